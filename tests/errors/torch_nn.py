# A torch.nn.functional op outside coil's table is refused by its name.
# expect: FILE:5:32: error: torch.nn.functional.conv1d is not in coil's subset
import torch
def f(x: "f32[8]"):
    return torch.nn.functional.conv1d(x, x)
