# The packet aten.pow(...) with arguments no overload takes.
# expect: FILE:7:17: error: aten.pow: none of its overloads in coil's subset (aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar) takes these arguments
import torch
aten = torch.ops.aten

def f(x: "f32[8]"):
    return aten.pow(2, 3)
