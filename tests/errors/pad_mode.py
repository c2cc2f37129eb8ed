# F.pad compiles mode="constant" only.
# expect: FILE:7:34: error: pad: mode='reflect' is not in coil's subset (only mode='constant')
import torch
import torch.nn.functional as F

def f(x: "f32[2, 6]"):
    return F.pad(x, (1, 1), mode="reflect")
