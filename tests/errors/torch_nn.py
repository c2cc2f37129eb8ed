# torch.nn is outside the subset.
# expect: FILE:5:21: error: torch.nn.functional is not in coil's subset
import torch
def f(x: "f32[8]"):
    return torch.nn.functional.relu(x)
