"""Column max of bf16 (x.float().amax(dim=0)): the loop gcc left scalar
before the column blocks spelled max as c_maxv (docs/bench.md, session 7)."""
import torch


def cmax(x: "bf16[8192, 8192]"):
    return x.float().amax(dim=0)
