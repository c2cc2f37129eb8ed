# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/04_full_sum_bf16.py
"""Full reduction of a bf16 tensor to one f32 value: one output, so the
reduction itself must be split across threads."""


def full_sum(x: "bf16[16384, 8192]"):
    return x.float().sum()
