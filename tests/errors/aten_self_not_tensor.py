# The tensor an overload works on given as a number.
# expect: FILE:6:39: error: aten.exp.default: argument 'self' must be a tensor, got a float
import torch

def f(x: "f32[8]"):
    return torch.ops.aten.exp.default(2.0)
