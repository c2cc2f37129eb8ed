# torch.atan2's second argument is a tensor, as PyTorch's signature says.
# expect: FILE:5:27: error: torch.atan2 expects a tensor as its second argument (as in PyTorch)
import torch
def f(x: "f32[8]"):
    return torch.atan2(x, 2.0)
