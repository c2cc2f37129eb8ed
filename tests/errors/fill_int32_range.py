# An int fill outside int32 is an error in PyTorch, not a wrap.
# expect: FILE:7:30: error: value 2147483648 cannot be converted to type int32 without overflow
import torch


def f(x: "i32[4]"):
    return torch.full((4,), 2**31, dtype=torch.int32) + x
