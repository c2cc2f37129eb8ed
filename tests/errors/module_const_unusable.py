# A module constant that is not a compile-time value is an error where it is used.
# expect: FILE:5:23: error: module constant 'DEVICE' cannot be computed when compiling: torch.device expects a tensor as its first argument, got a string
import torch

DEVICE = torch.device("cuda")
SCALE = 2.0


def f(x: "f32[8]"):
    return (x * SCALE).to(DEVICE)
