# where with a float condition.
# expect: FILE:5:18: error: where's condition must be a bool tensor, got f32
import torch
def f(x: "f32[8]"):
    return torch.where(x, x, 0.0)
