# roll with more shifts than dims.
# expect: FILE:6:34: error: shifts and dimensions must align. shifts: 2, dims:1
import torch

def f(x: "f32[4, 5]"):
    return torch.roll(x, (1, 2), 0)
