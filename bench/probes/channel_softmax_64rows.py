# Bench probe, not in make bench: build/coil bench bench/probes/channel_softmax_64rows.py, or tools/ab_bench.sh
"""Channel softmax with 64 rows of 1.4 MB: a row chain before column chains
were preferred on 2026-11-30 (docs/bench.md, "Column chains")."""
import torch


def channel_softmax(x: "f32[64, 21, 128, 128]"):
    return torch.softmax(x, dim=1)
