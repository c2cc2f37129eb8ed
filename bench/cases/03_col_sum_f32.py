# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/03_col_sum_f32.py
"""Column reduction: the sum of each column (unit-stride x axis, strided r)."""


def col_sum(x: "f32[8192, 8192]"):
    return x.sum(dim=0)
