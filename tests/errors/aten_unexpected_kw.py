# A keyword the schema does not have.
# expect: FILE:7:39: error: aten.add.Tensor got an unexpected keyword argument 'beta'
import torch
aten = torch.ops.aten

def f(x: "f32[8]"):
    return aten.add.Tensor(x, x, beta=2)
