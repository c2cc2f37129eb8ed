# f64 exp called libm's exp, a call that kept every loop using it scalar (a
# row sum of exp over f64 took 35 ms, now 6.8; sigmoid 35 -> 8.5 ms); now
# the prelude's c_expd (tests/unit/mathd_test.c: within 1 ulp of expl).
# Here: the whole finite range, subnormal results, overflow to inf, and
# exp inside sigmoid, softmax and logsumexp, against PyTorch.
# equal-nan
import torch


def exp_f64(x: "f64[16, 1031] uniform(-745, 709)", y: "f64[64, 257]"):
    big = torch.where(y > 2, 710.0, y)  # overflow: inf
    tiny = y.clamp(max=0) * 740 - 4  # down to subnormal results
    return (torch.exp(x), torch.exp(big), torch.exp(tiny), torch.sigmoid(y * 30), torch.softmax(y * 10, dim=-1),
            torch.logsumexp(y * 100, dim=-1), torch.exp(y).sum(-1))
