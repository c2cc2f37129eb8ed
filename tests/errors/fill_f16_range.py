# A finite fill beyond float16's largest value is an error in PyTorch (inf
# itself is taken).
# expect: FILE:8:29: error: value 70000 cannot be converted to type float16 without overflow
import torch


def f(x: "f16[4]", m: "bool[4]"):
    return x.masked_fill(m, 70000.0)
