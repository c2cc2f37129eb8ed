# aten.cat of tensors of different ranks.
# expect: FILE:7:21: error: aten.cat: tensors must have same number of dimensions: got 2 and 1
import torch
aten = torch.ops.aten

def f(a: "f32[2, 3]", b: "f32[3]"):
    return aten.cat.default([a, b])
