# The f16 conversions were branchy, so loops over f16 did not vectorise (a
# row sum over f16 ran at 0.11 of the read ceiling, an f16 rms norm at
# 0.06); now branch-free (tests/unit/convert_test.c checks every f16 and a
# sample of every float).  Here: subnormals, the largest finite values,
# overflow to inf and rounding ties, through a kernel, against PyTorch.
# exact
import torch


def halves(x: "f16[64, 1031] uniform(-65504, 65504)", y: "f16[64, 1031]"):
    tiny = y.float() * 1e-6
    return (x.float() * 1.01).half(), tiny.half(), (tiny * 3).half(), (y.float() * 2049).half(), (x.float() * 0.5).half()
