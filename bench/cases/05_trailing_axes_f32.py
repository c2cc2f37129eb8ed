# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/05_trailing_axes_f32.py
"""Several axes at once, contiguous: the sum over the two trailing axes, which
merge into one long row."""


def trailing_sum(x: "f32[64, 256, 4096]"):
    return x.sum(dim=(1, 2))
