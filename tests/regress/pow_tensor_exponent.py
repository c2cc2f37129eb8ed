# pow with a tensor exponent (x ** y, x.pow(y), torch.pow(x, y)) and a
# number raised to a tensor power (2 ** x, torch.pow(2.5, n)) were refused.
# PyTorch takes a tensor exponent element by element with pow, so no
# exponent value is special here (2 and 0.5 among them: the reference keeps
# its products and roots for constant exponents only).  Covered: f32 bases
# of both signs with integer and fractional exponents (NaN for a negative
# base and a fractional exponent), zeros and infinities, a broadcast row of
# exponents, bf16 (the number rounded to bf16 first, as PyTorch), int ** int
# with negative exponents (0 unless the base is +-1), a float number to an
# int tensor's power (f32), powers inside a sum and an amax, and i32 powers.
# equal-nan
import torch


def pow_tensor(x: "f32[6, 200]", y: "f32[6, 200]", e: "f32[200]", h: "bf16[6, 200]", n: "i64[6, 200]",
               m: "i32[6, 200]"):
    base = x * 3
    ints = n.float()
    frac = y + 0.25
    zinf = torch.where(x > 1.5, torch.inf, torch.where(x < -1.5, 0.0, x))
    return (base ** ints, base.abs() ** frac, base ** frac, x.pow(e), torch.pow(zinf, ints),
            2 ** y, torch.pow(2.5, n), 1.1 ** h, h ** (h.abs() + 0.5), n ** n.abs(),
            n ** (n - 1), (x.abs() ** y).sum(-1), (1.5 ** (y * 3)).amax(-1), torch.pow(x.abs(), 0.5 + y * 0),
            m ** m.clamp(0, 4))
