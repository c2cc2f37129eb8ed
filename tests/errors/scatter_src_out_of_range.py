# scatter with a tensor src: an index outside the dim is a run-time error, never a write.
# expect: FILE:7:14: error: index out of range: an index is outside [0, 7) for dimension 1 of size 7
import torch


def f(x: "f32[5, 7]", i: "i64[4, 1] uniform(5, 9)", s: "f32[4, 7]"):
    return x.scatter(1, i, s)
