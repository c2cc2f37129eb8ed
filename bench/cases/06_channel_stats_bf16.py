# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/06_channel_stats_bf16.py
"""Several axes at once, not contiguous: per-channel mean of an NCHW bf16
activation, reducing over (0, 2, 3) (batch norm's statistics)."""


def channel_mean(x: "bf16[32, 128, 64, 256]"):
    return x.float().mean(dim=(0, 2, 3))
