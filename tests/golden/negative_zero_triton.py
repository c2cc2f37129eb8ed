# coil: emit --target triton-gpu
# A -0.0 constant is spelled by its bits in Triton: compiled Triton's tl.full
# makes any value equal to 0 its type's +0 (on the H200 on 2026-12-02, cat's
# and where's -0 came out +0; Triton's interpreter kept -0, so only this
# spelling, pinned here, tells the two apart on a machine without a GPU).
# A negation is x * -1: Triton's unary minus is 0 - x, which made -(+0) +0 on
# the H200 (-a % b at a = 0 in tests/run/math2.py:binary_exact).
import torch


def f(x: "f32[8]", y: "f64[8]"):
    return torch.where(x > 0, -0.0, x), torch.where(y > 0, -0.0, y), -(x * 0.0)

