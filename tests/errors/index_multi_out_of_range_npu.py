# x[i, j] on the NPU dialect: the check of i (dimension 0) fails, through coil's Triton executor.
# args: --target triton-npu
# expect: FILE [coil emit --target triton-npu]:55:9: error: Device-side assertion failed: FILE:8:13: index out of range: an index is outside [-5, 5) for dimension 0 of size 5 at index [0] (program (0, 0, 0))
import torch


def f(x: "f32[5, 7]", i: "i64[4] uniform(5, 9)", j: "i64[4] uniform(0, 7)"):
    return x[i, j] * 2
