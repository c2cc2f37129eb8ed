# An index past the end of the indexed dim is a run-time error at the op, as in PyTorch, never a read.
# expect: FILE:7:14: error: index out of range: an index is outside [0, 5) for dimension 0 of size 5
import torch


def f(x: "f32[5, 7]", i: "i64[40] uniform(0, 9)"):
    return x.index_select(0, i) * 2
