# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/10_odd_row_sumsq_bf16.py
"""Odd sizes, row reduction of bf16: the sum of squares of 9973 rows of 13001."""


def odd_row_sumsq(x: "bf16[9973, 13001]"):
    xf = x.float()
    return (xf * xf).sum(dim=-1)
