"""A column variance of f32 sums in f64, whose accumulators shrink the GPU's
column tile to 2048 points: the tile keeps 64 r steps over 32 columns
(128-byte rows) instead of 16 over 128, and, split, runs at half the warps
with its loop unrolled twice (1024 columns on the H200: 91% of a read,
against 71% at 8 warps and 64% at 128 x 16; docs/gpu.md, 2026-12-03,
evening)."""


def col_var(x: "f32[32768, 1024]"):
    return x.var(dim=0)
