# add, sub and rsub with alpha of floats are one fused multiply-add in
# PyTorch's CPU kernel (alpha in the tensors' dtype): coil multiplied and
# added in two roundings, 1 ulp off in 18% of random f32 sums and -inf for
# 3e38 - 2 * 3e38 (PyTorch: -3e38).  Found checking rsub (issue 22) against
# PyTorch on edge values.  Bit for bit on C and the two Triton dialects.
# exact
# equal-nan
import torch


def add_alpha(x: "f32[8, 500]", y: "f32[8, 500]", h: "bf16[8, 500]", g: "f16[8, 500]"):
    big = torch.where(x > 1.5, 3e38, torch.where(x < -1.5, float("inf"), x))
    return (torch.add(x, y, alpha=0.3), torch.sub(x * 10, y, alpha=3), torch.rsub(x, y, alpha=-2.5), x.add(y, alpha=7),
            torch.rsub(big, big, alpha=2), torch.sub(big, 3e38, alpha=1.5), torch.add(h, h.flip(0), alpha=0.7),
            torch.sub(h, 1.5, alpha=3), torch.add(g, g.flip(1), alpha=0.3), torch.rsub(x, 2.5, alpha=1.1))
