# aten.as_strided_scatter with a src of another size than the view.
# expect: FILE:7:47: error: expected src to have the size of the view: src size = [3,4], view size = [4,3]
import torch
aten = torch.ops.aten

def f(x: "f32[3, 4]", s: "f32[3, 4]"):
    return aten.as_strided_scatter.default(x, s, [4, 3], [3, 1])
