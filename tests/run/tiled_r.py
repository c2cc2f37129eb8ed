"""Reductions whose second load is laid out across the lead (the seed's
shape): the CPU schedule tiles the inner r axis (sched.c tile_inner_r) and
walks the other load's row axis inside the tile.  Each is checked against
the reference and PyTorch (tests/suites/ops.sh); each is tiled
(`coil dump -d schedule`: r3[...] r2[...] r3i[...]), and the seed's
golden (tests/golden/seed_kernel.out) pins the decision."""
import torch


def tiled_seed(grad_out_base: "f32[2, 32, 512, 64]", q: "bf16[2, 512, 32, 64]",
               q_square_sum: "f32[2, 512, 32] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    return (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2)).to(torch.bfloat16)


def tiled_seed_f32(a: "f32[3, 32, 256, 48]", b: "f32[3, 256, 32, 48]"):
    return (a.permute(0, 2, 1, 3) * b).sum(dim=(0, 1, 2))


def tiled_stats(a: "f32[2, 64, 128, 32]", b: "bf16[2, 128, 64, 32]"):
    p = a.permute(0, 2, 1, 3) + b.float()
    return p.amax(dim=(0, 1, 2)), p.mean(dim=(0, 1, 2)), p.var(dim=(0, 1, 2))


def tiled_then_pointwise(a: "f32[32, 256, 64]", b: "f32[256, 32, 64]"):
    p = a.permute(1, 0, 2) * b
    return p / p.sum(dim=(0, 1), keepdim=True)


def tiled_beside_a_row_sum(a: "f32[2, 32, 256, 64]", b: "bf16[2, 256, 32, 64]", c: "f32[64, 100]"):
    p = a.permute(0, 2, 1, 3) * b.float()
    return p.sum(dim=(0, 1, 2)), p.amin(dim=(0, 1, 2)), c.sum(-1)



def tiled_odd_tokens(a: "f32[1, 32, 1023, 64]", b: "bf16[1, 1023, 32, 64]"):
    # 1023 tokens: no power of two divides them; tiles of 31 (1023 = 31 x 33)
    return (a.permute(0, 2, 1, 3) * b.float()).sum(dim=(0, 1, 2))
