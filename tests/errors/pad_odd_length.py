# F.pad takes (before, after) pairs.
# expect: FILE:7:21: error: Padding length must be divisible by 2
import torch
import torch.nn.functional as F

def f(x: "f32[2, 6]"):
    return F.pad(x, (1, 2, 3))
