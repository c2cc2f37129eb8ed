# A slice with a step is a strided view, which coil does not have.
# expect: FILE:7:42: error: a slice with a step other than 1 is a strided view, which is not in coil's subset
import torch
aten = torch.ops.aten

def f(x: "f32[8, 8]"):
    return aten.slice.Tensor(x, 1, 0, 8, 2)
