# A bool index picks a number of elements the data decides: coil needs shapes known when compiling.
# expect: FILE:7:16: error: indexing: a bool index selects a number of elements that depends on the data; coil needs shapes known when compiling (use torch.where)
import torch


def f(x: "f32[5, 7]"):
    return x[x > 0]
