"""The remaining reduction forms on one activation: prod over one axis of
values near 1, amax and amin with keepdim, std with unbiased=False, var with
correction=1, the torch.NAME(x, ...) spellings, and a full reduction to a
0-d result (dim=None)."""
import torch


def reductions(x: "f32[24, 16, 80] uniform(0.9, 1.1)"):
    p = x.prod(dim=1)
    hi = torch.amax(x, dim=-1, keepdim=True)
    lo = x.amin(dim=(0, 2), keepdim=True)
    spread = (hi - lo).squeeze(-1)
    s = torch.std(x, dim=2, unbiased=False)
    v = x.var(1, correction=1)
    total = torch.sum(x)
    return p, spread, s, v, total


if __name__ == "__main__":
    torch.manual_seed(0)
    out = reductions(torch.rand(24, 16, 80) * 0.2 + 0.9)
    print([(o.dtype, tuple(o.shape)) for o in out])
