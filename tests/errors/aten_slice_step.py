# aten.slice with a step below 1 (PyTorch refuses it).
# expect: FILE:7:42: error: slice step must be positive (as in PyTorch)
import torch
aten = torch.ops.aten

def f(x: "f32[8, 8]"):
    return aten.slice.Tensor(x, 1, 0, 8, -2)
