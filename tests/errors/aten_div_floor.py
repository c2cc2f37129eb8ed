# div with rounding_mode="floor": PyTorch computes it with fmod, which coil does not have.
# expect: FILE:7:53: error: div with rounding_mode='floor' is not in coil's subset (PyTorch computes it with fmod, which coil does not have)
import torch
aten = torch.ops.aten

def f(x: "f32[8]", y: "f32[8]"):
    return aten.div.Tensor_mode(x, y, rounding_mode="floor")
