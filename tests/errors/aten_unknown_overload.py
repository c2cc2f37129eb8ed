# An overload coil does not have: the error lists the ones it has.
# expect: FILE:7:21: error: aten.add.out is not in coil's subset (it has aten.add.Tensor, aten.add.Scalar)
import torch
aten = torch.ops.aten

def f(x: "f32[8]"):
    return aten.add.out(x, x)
