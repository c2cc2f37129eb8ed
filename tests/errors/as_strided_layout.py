# aten.as_strided with strides that are not a reshape of the elements.
# expect: FILE:7:47: error: as_strided with strides [1,4] for size [4,3] is not a reshape of the tensor's elements, which is all coil's subset has of it
import torch
aten = torch.ops.aten

def f(x: "f32[3, 4]"):
    return aten.as_strided.default(x, [4, 3], [1, 4])
