# gather does not count negative indices from the end (x[idx] does): a run-time error.
# expect: FILE:7:14: error: index out of range: an index is outside [0, 7) for dimension 1 of size 7
import torch


def f(x: "f32[5, 7]", i: "i64[5, 3] uniform(-3, 0)"):
    return x.gather(1, i).sum()
