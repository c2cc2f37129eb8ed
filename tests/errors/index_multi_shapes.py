# Index tensors that do not broadcast together.
# expect: FILE:7:14: error: shape mismatch: indexing tensors could not be broadcast together with shapes [4], [3]
import torch


def f(x: "f32[5, 7]", i: "i64[4] uniform(0, 5)", j: "i64[3] uniform(0, 7)"):
    return x[i, j]
