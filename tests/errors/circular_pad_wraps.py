# A circular pad wider than the input wraps around more than once.
# expect: FILE:6:21: error: Padding value causes wrapping around more than once.
import torch.nn.functional as F

def f(x: "f32[2, 3, 4]"):
    return F.pad(x, (5, 0), mode="circular")
