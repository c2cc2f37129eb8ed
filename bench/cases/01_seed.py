# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/01_seed.py
"""The seed: RMSNorm's weight gradient, a sum over three axes (0, 1, 2) of a
permuted f32 gradient times bf16 activations times a per-row scale."""
import torch


def rms_norm_weight_grad(grad_out_base: "f32[2, 64, 4096, 128]",
                         q: "bf16[2, 4096, 64, 128]",
                         q_square_sum: "f32[2, 4096, 64] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)
