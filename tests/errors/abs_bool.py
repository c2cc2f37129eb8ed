# abs of a bool tensor, as PyTorch rejects it ("abs_cpu" not implemented for 'Bool').
# expect: FILE:7:18: error: abs of a bool tensor is not supported (as in PyTorch)
import torch


def f(x: "bool[4]"):
    return torch.abs(x)
