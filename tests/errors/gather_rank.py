# expect: FILE:6:24: error: gather(): index tensor must have the same number of dimensions as input tensor (1 and 2)
import torch


def f(x: "f32[5, 7]", i: "i64[3] uniform(0, 5)"):
    return x.gather(0, i)
