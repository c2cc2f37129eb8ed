# coil: dump -d schedule
# Which loads prefetch 8 KB ahead along their rows (CSched.stream_ahead):
# those read along an r-vectorised loop whose row goes on in memory where the
# loop goes next: k0 (rows of a contiguous matrix: 2048 f32 points ahead,
# 4096 bf16), k1 (rows of 16: the prefetch runs 128 rows ahead).  Not: k2
# (a slice of each row, so the next row starts elsewhere), k3 (two r axes,
# the inner one sliced), k4 (a column sum, x-vectorised).
import torch


def stream_prefetch(x: "f32[64, 4096]", h: "bf16[64, 4096]", s: "f32[1000, 16]", w: "f32[48, 1024]",
                    t: "f32[8, 16, 512]", c: "f32[256, 96]"):
    return (x * h.float()).sum(-1), s.amax(-1), w[:, :1000].sum(-1), t[:, :, :500].sum(dim=(1, 2)), c.sum(0)
