"""PyTorch's type promotion: python scalars are weak (they keep a tensor's
category), ints and bools promote to the default float on true division and
float unary ops, half types promote to f32 together, integer sums give int64."""
import torch


def int_scalar_ops(i: "i32[5, 7] arange"):
    return i + 1, i * 2.5, i / 2, (i + 1) / (i + 2), i - 3, i ** 2, i * -1, 3 - i


def int_tensor_ops(i: "i32[3, 5] arange", l: "i64[5] arange", x: "f32[5]"):
    return i + l, i * x, l / i.clamp_min(1), i - l * 2, torch.maximum(i, l), torch.where(i > 4, i, l)


def bool_promote(b: "bool[3, 7]", i: "i32[3, 7] arange", x: "f32[7]"):
    return b + 1, b * 1.5, b + i, b.sum(), b.sum(dim=1), b * x, b.int().sum(0)


def bf16_scalars(x: "bf16[7, 5]", y: "f32[5]"):
    return x * 2.5, x + 1, x / 3, x * y, x - x.float(), (x * 0.1).sum(1), x.amax(0)


def half_types(a: "f16[5, 3]", b: "bf16[5, 3]"):
    return a + b, a * 2, a.mean(), a.sum(0), b.mean(1), torch.maximum(a, b), a.amax(1)


def f16_mean(x: "f16[3, 5, 7, 11]"):
    return x.mean(), x.mean(dim=(1, 3)), torch.mean(x, -1, keepdim=True), x.float().mean(0)


def int_reductions(i: "i32[5, 11] arange"):
    return (i.sum(), i.sum(1), i.amax(0), i.amin(1), i.prod(0),
            torch.sum(i, dim=1, keepdim=True), torch.amax(i), (i - 20).abs().amin(0))


def int_float_unary(i: "i32[5, 7] arange"):
    return (torch.exp(i / 16), torch.sqrt(i), torch.sigmoid(i - 17), i.float().mean(1),
            torch.mean(i.double(), 0), torch.rsqrt(i + 1), torch.reciprocal(i + 1))


def int_unary_stays_int(i: "i32[5, 7] arange"):
    j = i - 17
    return j.abs(), -j, torch.neg(j), j.square(), torch.relu(j), j.clamp(-3, 3), j.clamp_min(0)


def i64_ops(l: "i64[7, 3] arange"):
    return l * 3 - 1, l.sum(0), l.prod(1), l.amax(), l / 7, (l > 10).sum()
