# An nn.Module is the torch.compile backend's job; the text front end says so.
# expect: FILE:5:21: error: torch.nn.Linear is not in coil's subset: an nn.Module is compiled by the torch.compile backend (torch.compile(model, backend="coil")); here, use torch.nn.functional
import torch
def f(x: "f32[8]"):
    return torch.nn.Linear(8, 8)(x)
