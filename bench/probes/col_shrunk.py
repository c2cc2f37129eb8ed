# Bench probe, not in make bench: tools/device/gpu_bench.py times each function on the GPU (docs/gpu.md)
"""Column reductions whose accumulators shrink the GPU's column tile other
than a variance's f64 sums: an argmax (int64 positions beside the f32
values), an f64 sum, and an amax beside an f64 mean.  The model gives them
the narrowest x block too (plan.c, col_xblock's narrow); this file times
that rule on them (tools/device/gpu_bench.py, docs/gpu.md, 2026-12-03,
night)."""


def col_argmax(x: "f32[65536, 1024]"):
    return x.argmax(dim=0)


def col_sum64(x: "f64[32768, 1024]"):
    return x.sum(dim=0)


def col_amax_mean(x: "f32[65536, 512]"):
    return x.amax(dim=0), x.double().mean(dim=0)
