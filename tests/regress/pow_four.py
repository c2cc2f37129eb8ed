# x ** 4 is (x * x) * (x * x) (see pow_small_integers.py); PyTorch calls
# pow, so the two agree within the usual tolerance, not bit for bit.
import torch


def fourth(x: "f32[37, 129]", h: "bf16[37, 129]", i: "i64[37, 129] uniform(-300, 300)"):
    return x ** 4, h ** 4, i ** 4, (x ** 4).sum(1), torch.pow(x - x.mean(1, keepdim=True), 4).mean(1), (h.float() ** 3).sum(1)
