# x ** -0.5 of -0 gave +inf where PyTorch gives -inf: coil called powf
# (and its reference pow), whose signs differ from sqrt's, while PyTorch's
# CPU kernel computes x ** 0.5 and x ** -0.5 as sqrt and rsqrt for f32,
# f64 and bf16 (so -0 ** 0.5 is -0, -inf ** 0.5 NaN).  Now lower.c and
# ref.c do too; f16 keeps pow, as PyTorch's f16 pow is std::pow (+inf for
# -0 ** -0.5 there, and +inf for -inf ** 0.5, which the Triton dialects'
# pow made NaN).  Negative inputs give NaN.
# Not bit for bit: coil's sqrt is the correctly rounded one, PyTorch's
# vector sqrt is 1 ulp off in about 17% of these f32 elements (its own
# torch.sqrt too).
# equal-nan
import torch


def pow_halves(x: "f32[64, 257] uniform(-1, 100)", b: "bf16[64, 257] uniform(0, 100)", d: "f64[33, 65] uniform(0, 10)",
               h: "f16[64, 257] uniform(0, 100)"):
    z = x.clamp(max=0) * 0  # 0 and -0
    zi = torch.where(x < 0, -torch.inf, x)
    return (x ** 0.5, x ** -0.5, b ** 0.5, b ** -0.5, d ** 0.5, d ** -0.5, h ** 0.5, h ** -0.5, (x ** 0.5).sum(-1),
            z ** 0.5, z ** -0.5, z.half() ** -0.5, zi ** 0.5, zi.half() ** 0.5, zi.half() ** -0.5)
