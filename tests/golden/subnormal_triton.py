# coil: emit --target triton-gpu --harness
# Subnormal constants and fills are spelled by their bits in Triton, and
# every launch passes enable_reflect_ftz=False: on the H200 (2026-12-02)
# compiled Triton made a subnormal constant 0, and libdevice's tan, asinh,
# expm1... flushed subnormal inputs and results to 0, where PyTorch's CUDA
# math keeps them (tests/run/math2.py:unary_specials).  Triton's interpreter
# keeps both, so only what is pinned here tells them apart without a GPU.
import torch


def f(x: "f32[8]", h: "bf16[8]", d: "f64[8]"):
    return (torch.where(x > 0, -1e-41, x), torch.tan(torch.where(x > 0, 1e-40, x)), torch.where(h > 0, 1e-40, h),
            torch.where(d > 0, 1e-310, d), torch.nn.functional.pad(x, (1, 1), value=-1e-42))
