# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/09_odd_col_mean_f32.py
"""Odd sizes, column reduction: the mean of each of 20011 columns over 3001 rows
(prime-ish sizes, so every tile has a tail)."""


def odd_col_mean(x: "f32[3001, 20011]"):
    return x.mean(dim=0)
