# PyTorch rounds a Python scalar to a bf16/f16 tensor's dtype for add, sub
# and pow, keeps it in f32 for mul and div, and computes number / tensor as
# tensor.reciprocal() * number.  coil matched none of the first and last.
# exact
import torch
def scalars(a: "bf16[4000]", h: "f16[4000]", f: "f32[4000]", i: "i32[4000]"):
    return a + 0.3, a - 0.3, 0.3 - a, a * 1.1, a / 1.1, 1.1 / a, a.abs() ** 1.1, h + 0.3, h - 0.7, 2.5 / h, 1.1 / f, 3 / i, a.clamp(min=0.3)
