# clamp_min(min=...) read the keyword 'max' (a wrong index into the name).
import torch
def f(x: "f32[5]"):
    return x.clamp_min(min=0.5), torch.clamp_max(x, max=0.1), x.clamp_max(0.2)
