# f64 tanh and float powers by other exponents (x ** 1.5, x ** 5, a tensor
# exponent) called libm, calls that kept every loop using them scalar (a
# row sum of f64 tanh took 33 ms, now 3.0; x ** y 96, now 12); now the
# prelude's c_tanhd (Cephes' rational below 0.625, 1 - 2/(e^2|x| + 1)
# above; tests/unit/mathd_test.c: within 1.5 ulp of tanhl) and c_powf
# (exp(b log|a|) in double; tests/unit/mathf_test.c: within 0.5 ulp).
# Here against PyTorch: tanh over small, middle and saturated values, -0,
# +-inf and NaN, inside a sum and a softmax; powers of bases of both signs,
# zeros and infinities by fractional, odd and even exponents, bf16 and f16
# bases (computed in f32), in a sum.
# equal-nan
import torch


def tanh_pow(d: "f64[16, 1031] uniform(-3, 3)", x: "f32[32, 515]", h: "bf16[8, 257] uniform(0, 4)",
             g: "f16[8, 257] uniform(0, 4)"):
    specials = torch.where(d > 2.5, torch.inf, torch.where(d < -2.5, -torch.inf, torch.where(d.abs() < 0.01, -0.0, d)))
    nans = torch.where(d > 2.9, torch.nan, d)
    zinf = torch.where(x > 1.8, torch.inf, torch.where(x < -1.8, -torch.inf, torch.where(x.abs() < 0.2, 0.0, x)))
    return (torch.tanh(d), torch.tanh(d * 0.1), torch.tanh(d * 10), torch.tanh(specials), torch.tanh(nans),
            torch.tanh(d).sum(-1), torch.softmax(torch.tanh(d * 3), dim=-1),
            x.abs() ** 1.5, x ** 5, x ** 1.5, zinf ** 1.5, zinf ** -1.5, zinf ** 5, zinf ** -3, (x.abs() + 1) ** 2.5,
            h ** 1.5, g ** 2.5, (x.abs() ** 1.5).sum(-1))
