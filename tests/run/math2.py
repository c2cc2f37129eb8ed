"""The rest of model code's pointwise math (tan, the inverse and hyperbolic
functions, erfc, erfinv, expm1, log10, log1p, signbit, atan2, hypot,
copysign, fmod, remainder and floor_divide with % and //, shifts with << and
>>), as torch.X, Tensor.X and operators, in every dtype PyTorch takes, with
NaN, infinities, -0 and subnormals among the inputs.  The comparison with
PyTorch takes no NaN in an output, so an output that may hold one comes as
its isnan(), the values with NaNs made 0, and their signbit() (which
tells a -0).  tests/run/aten_math2.py has the ATen spellings; tests/accuracy/
math_ulp.py holds the float results to 2 ulp of PyTorch's."""
import torch


def shown(y):
    # a NaN's sign is the implementation's: not compared
    nan = torch.isnan(y)
    y = torch.where(nan, 0.0, y)
    return nan, y, torch.signbit(y)


def specials(x, subnormals=True):
    # x in (-3, 3): +-inf at the ends, NaN near 2, -0 near 0, subnormals near 0.15 and -0.55
    v = torch.where(x > 2.7, float("inf"), x)
    v = torch.where(x < -2.7, float("-inf"), v)
    v = torch.where((x > 1.9) & (x < 2.1), float("nan"), v)
    v = torch.where((x > -0.1) & (x < 0.05), -0.0, v)
    if not subnormals:
        return v
    v = torch.where((x > 0.1) & (x < 0.2), 1e-40, v)
    return torch.where((x > -0.6) & (x < -0.5), -1e-41, v)


def unary_f32(x: "f32[5, 97] uniform(-0.999, 0.999)", w: "f32[5, 97] uniform(-30, 30)", p: "f32[5, 97] uniform(1, 60)"):
    return (torch.tan(w), x.asin(), torch.acos(x), torch.atan(w), w.sinh(), torch.cosh(w), torch.asinh(w), p.acosh(),
            torch.atanh(x), torch.erfc(w * 0.2), x.erfinv(), torch.expm1(w), torch.log10(p), x.log1p(), torch.log1p(p),
            torch.arcsin(x), x.arccos(), torch.arctan(x), torch.arcsinh(x), torch.arccosh(p), x.arctanh())


def unary_specials(x: "f32[4, 64] uniform(-3, 3)"):
    v = specials(x)
    out = ()
    for f in (torch.tan, torch.asin, torch.acos, torch.atan, torch.sinh, torch.cosh, torch.asinh, torch.acosh,
              torch.atanh, torch.erfc, torch.erfinv, torch.expm1, torch.log10, torch.log1p):
        out = out + shown(f(v))
    return out + (torch.signbit(v), v.signbit())


def unary_edges(x: "f32[3, 40] uniform(-1, 1)"):
    # erfinv and atanh at +-1 (+-inf), log1p at -1 (-inf), acosh at 1, expm1 and sinh overflowing
    one = torch.where(x > 0, 1.0, -1.0)
    big = torch.where(x > 0, 89.0, -104.0)
    return (torch.erfinv(one), torch.atanh(one), torch.log1p(one * 0 - 1), torch.acosh(one * one), torch.expm1(big),
            torch.sinh(big), torch.cosh(big), torch.erfc(big))


def unary_f64(x: "f64[4, 50] uniform(-0.999, 0.999)", w: "f64[4, 50] uniform(-40, 40)", p: "f64[4, 50] uniform(1, 1e6)"):
    return (torch.tan(w), torch.asin(x), torch.acos(x), torch.atan(w), torch.sinh(w), torch.cosh(w), torch.asinh(p),
            torch.acosh(p), torch.atanh(x), torch.erfc(w * 0.1), torch.erfinv(x), torch.expm1(w), torch.log10(p),
            torch.log1p(x))


def unary_bf16(x: "bf16[4, 70] uniform(-0.99, 0.99)", w: "bf16[4, 70] uniform(-8, 8)", p: "bf16[4, 70] uniform(1, 40)"):
    return (torch.tan(w), torch.asin(x), torch.acos(x), torch.atan(w), torch.sinh(w), torch.cosh(w), torch.asinh(w),
            torch.acosh(p), torch.atanh(x), torch.erfc(w), torch.erfinv(x), torch.expm1(w), torch.log10(p), torch.log1p(x),
            torch.signbit(w))


def unary_f16(x: "f16[3, 70] uniform(-0.99, 0.99)", w: "f16[3, 70] uniform(-8, 8)", p: "f16[3, 70] uniform(1, 40)"):
    return (torch.tan(w), torch.asin(x), torch.acos(x), torch.atan(w), torch.sinh(w), torch.cosh(w), torch.asinh(w),
            torch.acosh(p), torch.atanh(x), torch.erfc(w), torch.erfinv(x), torch.expm1(w), torch.log10(p), torch.log1p(x),
            torch.signbit(w))


def unary_ints(i: "i32[4, 20] uniform(-3, 3)", j: "i64[4, 20] uniform(1, 9)", b: "bool[4, 20]"):
    # ints and bools compute in float32
    return (torch.tan(i), torch.atan(j), torch.sinh(i), torch.erfc(i), torch.expm1(b), torch.log10(j), torch.log1p(j),
            torch.asinh(b), torch.erfinv(b), torch.signbit(i), torch.signbit(j - 5), torch.signbit(b))


def binary_f32(a: "f32[6, 45] uniform(-20, 20)", b: "f32[6, 45] uniform(-6, 6)", c: "f32[45] uniform(0.5, 3)"):
    return (torch.atan2(a, b), a.atan2(c), torch.arctan2(b, a), torch.hypot(a, b), a.hypot(c), torch.copysign(c, b),
            a.copysign(-1.0), torch.copysign(a, 2), torch.fmod(a, b), a.fmod(2.5), torch.fmod(a, -c), torch.remainder(a, b),
            a.remainder(c), torch.remainder(a, -1.5), a % b, a % 3, 7.5 % b, torch.remainder(4.0, b), torch.floor_divide(a, b),
            a.floor_divide(c), a // b, a // 0.7, 10.0 // c, torch.div(a, b, rounding_mode="floor"),
            torch.div(a, 1.5, rounding_mode="floor"))


def binary_specials(x: "f32[4, 64] uniform(-3, 3)", y: "f32[64] uniform(-3, 3)"):
    a, b = specials(x), specials(y)
    out = ()
    for f in (torch.atan2, torch.hypot, torch.copysign):
        out = out + shown(f(a, b)) + shown(f(b, a))
    # PyTorch's vectorised fmod (SLEEF's) gives NaN where |a / b| overflows
    # (a subnormal b), its scalar one and coil's (C's fmod) the exact value
    a, b = specials(x, False), specials(y, False)
    for f in (torch.fmod, torch.remainder, torch.floor_divide):
        out = out + shown(f(a, b)) + shown(f(b, a))
    return out + shown(a % b) + shown(a // b) + shown(a % 0.0) + shown(a // 0.0) + shown(a // -0.0) + shown(specials(x) % 3)


def binary_exact(a: "f32[4, 16] uniform(-4, 4)", b: "f32[16] uniform(-4, 4)"):
    # integers in floats: remainder's and floor_divide's signs, ties at .5, zeros
    a = torch.round(a * 2) * 0.5
    b = torch.where(torch.round(b) == 0, 1.0, torch.round(b))
    return shown(a % b) + shown(a // b) + shown(torch.fmod(a, b)) + shown(a // (b * 0.5)) + shown(-a % b)


def binary_f64(a: "f64[5, 30] uniform(-1e3, 1e3)", b: "f64[5, 30] uniform(-7, 7)"):
    return (torch.atan2(a, b), torch.hypot(a, b), torch.copysign(a, b), torch.fmod(a, b), a % b, a // b, a % 0.3, a // 0.3,
            torch.div(a, b, rounding_mode="floor"))


def binary_bf16(a: "bf16[4, 48] uniform(-20, 20)", b: "bf16[4, 48] uniform(-6, 6)"):
    # remainder and fmod round a number to bf16 first, floor_divide does not
    return (torch.atan2(a, b), torch.hypot(a, b), torch.copysign(a, b), torch.fmod(a, b), a % b, a // b, a % 0.3, a // 0.3,
            torch.fmod(a, 0.3), 7.3 % b, 7.3 // b, torch.div(a, 0.3, rounding_mode="floor"))


def binary_f16(a: "f16[4, 48] uniform(-20, 20)", b: "f16[4, 48] uniform(-6, 6)"):
    return (torch.atan2(a, b), torch.hypot(a, b), torch.copysign(a, b), torch.fmod(a, b), a % b, a // b, a % 0.3, a // 0.3,
            torch.fmod(a, 0.3), 7.3 % b)


def mixed_promotion(i: "i32[4, 24] uniform(-50, 50)", f: "f32[24] uniform(-5, 5)", h: "bf16[4, 24] uniform(-5, 5)",
                    d: "f64[24] uniform(1, 5)"):
    # ints with floats, bf16 with f32 and f64, numbers with ints (the result's dtype as PyTorch's)
    return (torch.atan2(i, f), torch.copysign(i, f), i % f, i // f, i % 2.5, i // 2.5, torch.fmod(i, 2.5), h % f, h // d,
            torch.atan2(h, d), torch.hypot(h, f), torch.copysign(i, i), torch.atan2(i, i))


def int_division(a: "i32[6, 40] uniform(-1000, 1000)", b: "i32[40] uniform(-9, 9)", c: "i64[6, 40] uniform(-100000, 100000)",
                 d: "i64[6, 40] uniform(1, 50)"):
    # b holds no 0 here (PyTorch raises on one; int_division_by_zero below)
    b = torch.where(b == 0, 3, b)
    return (a % b, a // b, torch.fmod(a, b), torch.remainder(a, b), torch.floor_divide(a, b), a % -7, a // -7, 100 % b,
            100 // b, torch.remainder(5, b), c % d, c // d, -c // d, torch.fmod(-c, d), c % 3, c // -3,
            torch.div(a, b, rounding_mode="trunc"), torch.div(c, d, rounding_mode="floor"), a.fmod(b), a.remainder(4),
            a.floor_divide(b))


def int_division_min(a: "i32[2, 8] uniform(-5, 5)", c: "i64[2, 8] uniform(-5, 5)"):
    # MIN // -1 wraps to MIN, MIN % -1 is 0, as PyTorch's CPU kernels give
    m32 = a * 0 - 2147483647 - 1
    m64 = c * 0 - 9223372036854775807 - 1
    return m32 // -1, m32 % -1, torch.fmod(m32, -1), m64 // -1, m64 % -1, m32 // a.clamp(min=1), m64 % 7


def shifts(a: "i32[5, 36] uniform(-1000, 1000)", s: "i32[36] uniform(0, 31)", c: "i64[5, 36] uniform(-100000, 100000)",
           t: "i64[36] uniform(0, 63)"):
    return (a << s, a >> s, c << t, c >> t, a << 3, a >> 2, c << 40, c >> 33, 1 << s, -256 >> s, torch.bitwise_left_shift(a, s),
            torch.bitwise_right_shift(c, t), a.bitwise_left_shift(2), c.bitwise_right_shift(t), a << t, torch.bitwise_left_shift(3, s))


def shifts_out_of_range(a: "i32[3, 20] uniform(-1000, 1000)", s: "i32[20] uniform(-40, 70)", c: "i64[3, 20] uniform(-1000, 1000)",
                        t: "i64[20] uniform(-80, 80)", b: "bool[3, 20]"):
    # negative counts and counts of the width or more: 0 for <<, the sign for >> (PyTorch's CPU kernels)
    return a << s, a >> s, c << t, c >> t, a >> -1, c << 64, b << 1, b >> s


def operators_in_place(x: "f32[4, 30] uniform(-9, 9)", i: "i64[4, 30] uniform(-99, 99)"):
    y = x * 1
    y %= 2.5
    z = x * 1
    z //= -1.5
    j = i * 1
    j <<= 2
    k = i * 1
    k >>= 1
    m = i * 1
    m %= 7
    n = i * 1
    n //= 4
    return y, z, j, k, m, n


def model_code(pos: "f32[2, 16, 32] uniform(-1, 1)", logits: "f32[2, 16, 50] uniform(-8, 8)", idx: "i64[2, 16] uniform(0, 4096)"):
    # as models write them: angles and distances, stable log1p/expm1 forms, bucketed indices
    ang = torch.atan2(pos[..., 1::2] if False else pos[..., 16:], pos[..., :16])
    r = torch.hypot(pos[..., 16:], pos[..., :16])
    sp = torch.log1p(torch.exp(-logits.abs())) + logits.clamp(min=0)
    elu = torch.where(logits > 0, logits, torch.expm1(logits))
    bucket = (idx >> 6) % 8
    row = idx // 64
    return ang * r, sp, elu, bucket, row, torch.tan(ang * 0.25), torch.log10(r + 1)
