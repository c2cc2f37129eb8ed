# torch.maximum with a number.
# expect: FILE:5:29: error: torch.maximum expects a tensor as its second argument; use clamp for a number
import torch
def f(x: "f32[8]"):
    return torch.maximum(x, 0.5)
