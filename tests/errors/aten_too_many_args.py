# More positional arguments than the schema has.
# expect: FILE:7:32: error: aten.exp.default takes 1 positional argument but 2 were given
import torch
aten = torch.ops.aten

def f(x: "f32[8]"):
    return aten.exp.default(x, 2)
