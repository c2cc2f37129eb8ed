# flip naming one dim twice.
# expect: FILE:6:26: error: dim 1 appears multiple times in the list of dims
import torch

def f(x: "f32[4, 5]"):
    return torch.flip(x, (1, -1))
