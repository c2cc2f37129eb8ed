"""A column variance of f32 sums in f64, whose accumulators shrink the GPU's
column tile to 2048 points at 8 warps: the tile keeps 64 r steps over 32
columns (128-byte rows) instead of 16 over 128 (1024 columns on the H200:
71% of a read against 64%; docs/gpu.md, 2026-12-03, evening)."""


def col_var(x: "f32[32768, 1024]"):
    return x.var(dim=0)
