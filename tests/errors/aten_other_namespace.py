# torch.ops has only aten and prims in the subset.
# expect: FILE:6:22: error: torch.ops.quantized is not in coil's subset (torch.ops.aten and torch.ops.prims are)
import torch

def f(x: "f32[8]"):
    return torch.ops.quantized.add(x, x)
