# torch.pow of two numbers: coil's functions compute tensors.
# expect: FILE:5:25: error: torch.pow needs a tensor base or exponent
import torch
def f(x: "f32[4]"):
    return torch.pow(2, 3) + x
