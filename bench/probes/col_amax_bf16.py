# Bench probe, not in make bench: build/coil bench bench/probes/col_amax_bf16.py, or tools/ab_bench.sh
"""Column max of bf16 (x.float().amax(dim=0)): the loop gcc left scalar
before the column blocks spelled max as c_maxv on 2026-11-30 (docs/bench.md,
"A column max was scalar")."""
import torch


def cmax(x: "bf16[8192, 8192]"):
    return x.float().amax(dim=0)
