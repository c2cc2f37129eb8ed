# aten.as_strided_scatter of a view that is not a run of the elements.
# expect: FILE:7:58: error: as_strided_scatter with strides [1,4] for size [4,3] is not a reshape of the tensor's elements, which is all coil's subset has of it
import torch
aten = torch.ops.aten

def f(x: "f32[3, 4]", s: "f32[4, 3]"):
    return aten.as_strided_scatter.default(x, s, [4, 3], [1, 4])
