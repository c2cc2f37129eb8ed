# F.pad's modes are constant, reflect, replicate and circular.
# expect: FILE:7:34: error: pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got 'wrap'
import torch
import torch.nn.functional as F

def f(x: "f32[2, 6]"):
    return F.pad(x, (1, 1), mode="wrap")
