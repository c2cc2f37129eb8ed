# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/17_rms_norm_f16.py
"""RMS norm over f16 activations, f16 out: two kernels in one chain, every
element converted f16 -> f32 and back."""
import torch


def rms_norm_f16(x: "f16[16384, 4096]", weight: "f32[4096]"):
    xf = x.float()
    variance = (xf * xf).mean(-1, keepdim=True)
    return (xf * torch.rsqrt(variance + 1e-6) * weight).half()
