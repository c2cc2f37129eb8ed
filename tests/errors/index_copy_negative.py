# index_copy does not count a negative index from the end (PyTorch raises): a run-time error.
# expect: FILE:7:14: error: index out of range: an index is outside [0, 5) for dimension 0 of size 5
import torch


def f(x: "f32[5, 7]", i: "i64[3] uniform(-2, 0)", s: "f32[3, 7]"):
    return x.index_copy(0, i, s)
