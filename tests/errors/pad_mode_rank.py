# A 2-D replicate pad of a 2-D tensor (PyTorch takes 3-D or 4-D).
# expect: FILE:6:21: error: Padding size 4 is not supported for 2D input tensor.
import torch.nn.functional as F

def f(x: "f32[5, 6]"):
    return F.pad(x, (1, 1, 1, 1), mode="replicate")
