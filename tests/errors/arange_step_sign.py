# arange's step must go from start towards end.
# expect: FILE:6:18: error: arange: upper bound and larger bound inconsistent with step sign
import torch

def f(x: "f32[4]"):
    return torch.arange(5, 1, 1) + x
