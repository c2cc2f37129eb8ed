# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/14_nhwc_col_var_f32.py
"""Per-channel variance of an NHWC activation read as NCHW: a column
reduction over a permuted input (three axes, merged)."""
import torch


def nhwc_var(x: "f32[64, 56, 56, 160]"):
    return torch.var(x.permute(0, 3, 1, 2), dim=(0, 2, 3), correction=0)
