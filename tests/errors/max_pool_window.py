# max_pool2d over a window too large to unroll (a global max pool: amax over the dims).
# expect: FILE:7:28: error: max_pool2d with a window of 1024 points: coil unrolls windows of up to 256
import torch
import torch.nn.functional as F

def f(x: "f32[1, 2, 32, 32]"):
    return F.max_pool2d(x, 32)
