# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/12_rms_norm_bf16.py
"""RMSNorm forward on bf16 activations: statistics in f32, output in bf16."""
import torch


def rms_norm(x: "bf16[16384, 4096]", weight: "f32[4096]"):
    xf = x.float()
    variance = (xf * xf).mean(-1, keepdim=True)
    y = xf * torch.rsqrt(variance + 1e-6) * weight
    return y.to(torch.bfloat16)
