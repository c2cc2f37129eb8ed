# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/13_layer_norm_stats_f32.py
"""LayerNorm's saved statistics: mean and reciprocal std of each row (two
reductions that feed each other)."""
import torch


def ln_stats(x: "f32[16384, 2048]"):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return mean.squeeze(-1), torch.rsqrt(var + 1e-5).squeeze(-1)
