# Bench probe, not in make bench: build/coil bench bench/probes/col_amax_f32.py, or tools/ab_bench.sh
"""Column max of f32 (x.amax(dim=0)); see col_amax_bf16.py."""
import torch


def cmax(x: "f32[8192, 8192]"):
    return x.float().amax(dim=0)
