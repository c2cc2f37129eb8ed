# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/08_many_short_rows_f32.py
"""Many outputs with short reductions: 4M rows of 16 values, the max of each."""


def short_rows(x: "f32[4194304, 16]"):
    return x.amax(dim=-1)
