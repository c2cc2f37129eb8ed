# A required argument left out (div.Tensor_mode has no default rounding_mode).
# expect: FILE:7:21: error: aten.div.Tensor_mode missing required argument 'rounding_mode'
import torch
aten = torch.ops.aten

def f(x: "f32[8]"):
    return aten.div.Tensor_mode(x, 2.0)
