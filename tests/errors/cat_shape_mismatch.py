# cat's pieces must agree in every dim but the one they are joined along.
# expect: FILE:6:18: error: torch.cat: sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list
import torch

def f(a: "f32[2, 3]", b: "f32[3, 4]"):
    return torch.cat([a, b], dim=1)
