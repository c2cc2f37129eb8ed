# max_pool2d with a padding over half the window, as PyTorch refuses it.
# expect: FILE:7:14: error: max_pool2d: pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1
import torch
import torch.nn.functional as F

def f(x: "f32[1, 2, 8, 8]"):
    return F.max_pool2d(x, 3, 1, 2)
