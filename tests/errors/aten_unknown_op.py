# An ATen op coil does not have: named at its use.
# expect: FILE:7:17: error: aten.mm is not in coil's subset (docs/ops.md lists the ATen overloads it compiles)
import torch
aten = torch.ops.aten

def f(x: "f32[8, 8]"):
    return aten.mm.default(x, x)
