"""Tail tiles and reduction identities: reduction lengths that are odd and
larger than any tile (so the last tile is partial), on values whose sign makes
a wrong identity visible (a masked lane that contributes 0 to an amax of
negative values, or to an amin of positive values, or to a prod, changes the
result)."""
import torch


def amax_negative_rows(x: "f32[37, 1031] uniform(-3, -1)"):
    return x.amax(dim=1), x.amax(dim=0), torch.amax(x)


def amin_positive_rows(x: "f32[37, 1031] uniform(1, 3)"):
    return x.amin(dim=1), x.amin(dim=0, keepdim=True), torch.amin(x)


def prod_tail(x: "f32[29, 131] uniform(0.98, 1.02)"):
    return x.prod(dim=1), x.prod(0)


def sum_long_odd(x: "f32[3, 4099]", y: "f32[4099, 3]"):
    return x.sum(1), y.sum(0), x.mean(-1), y.var(0), x.std(1, unbiased=False)


def multi_axis_tail(x: "f32[13, 131, 67] uniform(-2, -1)"):
    return x.amax(dim=(0, 2)), x.sum(dim=(0, 2)), x.amin(dim=(1, 2)), x.mean(dim=(0, 1))


def permuted_multi_axis_tail(x: "f32[67, 13, 131] uniform(-2, -1)"):
    y = x.permute(1, 2, 0)
    return y.amax(dim=(0, 2)), y.sum(dim=(0, 2)), y.amin(dim=(0, 1), keepdim=True)


def int_amax_negative(i: "i32[7, 1031] arange"):
    j = i - 100000
    return j.amax(1), j.amin(0), (-j).amin(1), j.sum(1)


def bf16_tail(x: "bf16[5, 2053] uniform(-2, -1)"):
    return x.amax(1), x.float().sum(1), x.sum(1), x.mean(1)


def seed_tail(grad_out_base: "f32[2, 17, 131, 24]",
              q: "bf16[2, 131, 17, 24]",
              q_square_sum: "f32[2, 131, 17] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    return (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
