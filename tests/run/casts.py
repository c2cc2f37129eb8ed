"""Casts by method (float, half, bfloat16, double, int, long, bool), by
to(dtype) with every torch dtype spelling and alias, and type_as."""
import torch


def cast_methods(x: "f32[5, 7]"):
    y = x * 10
    return (x.half(), x.bfloat16(), x.double(), y.int(), y.long(), x.bool(), x.float(),
            (x > 0).float(), y.int().float())


def cast_to_dtypes(x: "f32[3, 11]"):
    y = x * 10
    return (x.to(torch.float16), x.to(torch.half), x.to(dtype=torch.bfloat16),
            y.to(torch.long), y.to(torch.int), x.to(torch.float), x.to(torch.float64),
            x.to(torch.bool), y.to(torch.int32), y.to(torch.int64),
            x.to(torch.float32), x.to(torch.bfloat16), x.to(torch.double))


def cast_from_ints(i: "i32[7, 3] arange", b: "bool[7, 3]"):
    return (i.float(), i.half(), i.bfloat16(), i.long(), i.bool(), i.double(),
            b.int(), b.float(), b.long(), b.to(torch.float16), i.to(torch.bool).sum(0))


def cast_type_as(x: "bf16[3, 5]", y: "f16[5]", z: "f32[3, 1]"):
    return y.type_as(x), x.type_as(y), z.type_as(x) * x, x.type_as(z) + z


def cast_roundtrips(x: "f32[11, 5]"):
    # every rounding step is visible: f32 -> bf16 -> f32, f32 -> f16 -> f32
    a = x.bfloat16().float() - x
    b = x.half().float() - x
    return a, b, (x * 1000).to(torch.float16).sum(1), x.bfloat16().sum(dim=0)
