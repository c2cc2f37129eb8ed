# index_put with several index tensors: a negative index counts from the end once; below -size is a run-time error.
# expect: FILE:7:37: error: index out of range: an index is outside [-5, 5) for dimension 0 of size 5
import torch


def f(x: "f32[5, 7, 3]", i: "i64[4] uniform(-9, -6)", j: "i64[4] uniform(0, 3)", v: "f32[4, 7]"):
    return torch.ops.aten.index_put.default(x, [i, None, j], v)
