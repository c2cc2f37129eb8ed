# f16 stores and loads staged through the CPU's converter (sched.c), bit
# for bit with PyTorch: results that round to f16 subnormals, to the
# largest finite value and past it to inf, a broadcast f16 weight, and x
# runs of 1001 (chunks of 256 and a last one of 233, whose tail of 9 is
# converted one value at a time).
# exact
import torch


def staged_exact(x: "f16[33, 1001] uniform(-65504, 65504)", w: "f16[1001]"):
    xf = x.float()
    return (xf * 1e-9).half(), (xf * 1.5).half(), (xf * w.float()).half(), xf * w.float()
