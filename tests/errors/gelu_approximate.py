# gelu's approximate takes 'none' or 'tanh' only.
# expect: FILE:5:34: error: gelu's approximate must be 'none' or 'tanh'
import torch.nn.functional as F
def f(x: "f32[8]"):
    return F.gelu(x, approximate="exact")
