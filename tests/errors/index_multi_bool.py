# A bool mask beside an index tensor is refused as a bool index alone is: the data decides the shape.
# expect: FILE:7:22: error: indexing: a bool index selects a number of elements that depends on the data; coil needs shapes known when compiling (use torch.where)
import torch


def f(x: "f32[5, 7]", i: "i64[4] uniform(0, 5)"):
    return x[i, x[0] > 0]
