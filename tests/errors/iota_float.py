# prims.iota makes integers only (as in PyTorch).
# expect: FILE:7:63: error: prims.iota only supports integer dtypes, got f32
import torch
prims = torch.ops.prims

def f(x: "f32[4]"):
    return prims.iota.default(4, start=0, step=1, dtype=torch.float32, device='cpu', requires_grad=False) + x
