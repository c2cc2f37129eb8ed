# F without its import: the error names the import.
# expect: FILE:4:12: error: name 'F' is not defined (import torch.nn.functional as F)
def f(x: "f32[8]"):
    return F.relu(x)
