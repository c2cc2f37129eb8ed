# x[idx] counts a negative index from the end, once: below -size is a run-time error.
# expect: FILE:7:13: error: index out of range: an index is outside [-6, 6) for dimension 1 of size 6
import torch


def f(x: "f32[4, 6]", i: "i64[3] uniform(-12, -7)"):
    return x[:, i] + 1
