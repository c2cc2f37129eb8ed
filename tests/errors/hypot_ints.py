# hypot takes floating-point tensors only (PyTorch has no integer kernel).
# expect: FILE:5:18: error: hypot of i32 tensors is not supported (as in PyTorch)
import torch
def f(x: "i32[8]", y: "i32[8]"):
    return torch.hypot(x, y)
