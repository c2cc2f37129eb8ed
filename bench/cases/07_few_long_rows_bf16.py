# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/07_few_long_rows_bf16.py
"""Few outputs with long reductions: 4 rows of 32M bf16 values, each summed
in f32."""


def long_rows(x: "bf16[4, 33554432]"):
    return x.float().sum(dim=-1)
