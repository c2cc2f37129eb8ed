# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/02_row_sum_f32.py
"""Row reduction: the sum of each row of an f32 matrix (unit-stride r axis)."""


def row_sum(x: "f32[8192, 8192]"):
    return x.sum(dim=-1)
