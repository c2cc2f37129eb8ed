# An argument of the wrong type, at its position.
# expect: FILE:7:36: error: aten.sum.dim_IntList: argument 'dim' must be a list of ints or None, got a float
import torch
aten = torch.ops.aten

def f(x: "f32[4, 8]"):
    return aten.sum.dim_IntList(x, 1.5)
