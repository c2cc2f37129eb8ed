# A reflect pad as wide as the input (PyTorch: the pad must be smaller).
# expect: FILE:6:21: error: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (4, 0) at dimension 2 of input [2,3,4]
import torch.nn.functional as F

def f(x: "f32[2, 3, 4]"):
    return F.pad(x, (4, 0), mode="reflect")
