# Bench probe, not in make bench: build/coil bench bench/probes/channel_softmax_200k_rows.py, or tools/ab_bench.sh
"""Channel softmax with 256 rows of 200 KB: a row chain before column chains
were preferred on 2026-11-30 (docs/bench.md, "Column chains")."""
import torch


def channel_softmax(x: "f32[256, 20, 2500]"):
    return torch.softmax(x, dim=1)
