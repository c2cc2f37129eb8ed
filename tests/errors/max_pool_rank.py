# max_pool2d of a 2-D tensor: PyTorch takes 3-D or 4-D.
# expect: FILE:7:14: error: max_pool2d: expected a 3D or 4D input tensor, got 2 dimensions
import torch
import torch.nn.functional as F

def f(x: "f32[8, 8]"):
    return F.max_pool2d(x, 2)
