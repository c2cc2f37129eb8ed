# A value given to a reflect pad.
# expect: FILE:6:51: error: Padding mode "reflect" doesn't take in value argument.
import torch.nn.functional as F

def f(x: "f32[2, 3, 4]"):
    return F.pad(x, (1, 1), mode="reflect", value=2.0)
