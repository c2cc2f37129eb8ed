# x ** 1 is x: Inductor's RMSNorm backward has aten.pow.Tensor_Scalar(a,
# 1.0), which coil computed with c_powf per element (its four groups of
# Llama's step ran 7.5-10.6x Inductor's time, bench/groups.py); the lowering
# now gives x itself, which is PyTorch's answer at every value, NaN,
# infinities and -0 included.
# exact
# equal-nan
import torch

aten = torch.ops.aten


def pow_one(x: "f32[8, 500]", h: "bf16[8, 500]", i: "i32[8, 500] uniform(-9, 9)"):
    s = torch.where(x > 1.5, float("inf"), torch.where(x < -1.5, float("nan"), torch.where(x.abs() < 0.1, -0.0, x)))
    return aten.pow.Tensor_Scalar(s, 1.0), s ** 1, h ** 1.0, i ** 1, (s * 3) ** 1.0
