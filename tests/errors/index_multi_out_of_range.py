# x[i, j]: each index tensor is checked against its own dim, so the error names the dim the index is outside of.
# expect: FILE:7:13: error: index out of range: an index is outside [-7, 7) for dimension 1 of size 7
import torch


def f(x: "f32[5, 7]", i: "i64[4] uniform(0, 5)", j: "i64[4] uniform(7, 12)"):
    return x[i, j] * 2
