# Python's abs() of a tensor is Tensor.__abs__, torch.abs: coil refused it
# ("abs() of a tensor needs its values, which coil does not know when
# compiling"), as it must refuse float(x) or bool(x).  Every dtype's abs,
# -0, infinities and NaN included, and the most negative int, which wraps as
# in PyTorch.
# exact
# equal-nan
import torch


def builtin_abs(x: "f32[6, 40]", h: "bf16[6, 40]", i: "i32[6, 40] uniform(-9, 9)", d: "f64[6, 40]"):
    s = torch.where(x > 1.5, float("inf"), torch.where(x < -1.5, float("nan"), torch.where(x.abs() < 0.1, -0.0, x)))
    m = torch.where(i > 7, -2147483648, i)
    return abs(s), abs(h), abs(m), abs(d * -2), abs(-s) + abs(x) * 2
