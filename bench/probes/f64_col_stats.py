# Bench probe, not in make bench: tools/device/probe_f64_cols.sh times each function on the GPU
"""Column reductions whose sums accumulate in f64 (var and std of f32)."""
import torch


def nhwc_var(x: "f32[64, 56, 56, 160]"):
    return torch.var(x.permute(0, 3, 1, 2), dim=(0, 2, 3), correction=0)


def col_var(x: "f32[32768, 1024]"):
    return x.var(dim=0)


def col_std3(x: "f32[8, 4096, 512]"):
    return x.std(dim=(0, 1))


def narrow_var(x: "f32[300007, 96]"):
    return x.var(dim=0)


def col_var_mean(x: "f32[65536, 256]"):
    v, m = torch.var_mean(x, dim=0)
    return v, m
