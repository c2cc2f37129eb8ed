# An error inside a helper points at the helper's line, not at the call.
# expect: FILE:7:22: error: dim 2 is out of range for a tensor of 2 dimensions (expected in [-2, 1])
import torch


def scale(t, dims):
    return t.sum(dim=dims)


def f(x: "f32[4, 8]"):
    y = x + 1
    return scale(y, 2)
