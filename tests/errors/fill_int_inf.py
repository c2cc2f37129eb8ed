# The frontend fuzzer's find: masked_fill of an int tensor with -inf was a
# C cast of -inf to an integer (undefined).  PyTorch: "value cannot be
# converted to type int without overflow".
# expect: FILE:9:29: error: value -inf cannot be converted to type int32 without overflow
import torch


def f(x: "i32[4]", m: "bool[4]"):
    return x.masked_fill(m, -float("inf"))
