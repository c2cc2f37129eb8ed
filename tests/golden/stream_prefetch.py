# coil: dump -d schedule
# Which loads prefetch ahead (CSched.stream_ahead), 8 KB of what the loop
# reads.  r-vectorised, every load contiguous along its row: k0 (rows of a
# contiguous matrix: 2048 f32 points ahead, 4096 bf16), k1 (rows of 16: the
# prefetch runs 128 rows ahead), k5 (a whole-tensor sum: one row); where the
# row does not go on in memory, past its end the next row's points
# (stream_wrap): k2 (a slice of each row: the next x0's), k3 (two r axes,
# the inner one sliced: the next r1's).  x-vectorised, those that read less
# than 8 KB per r point: k4 (rows of 96 f32 and 96 bf16, 576 bytes: 15 r
# points ahead).  Not: k6 (a column sum of 8 KB rows, 8 r points per pass:
# the hardware streams it).
import torch


def stream_prefetch(x: "f32[64, 4096]", h: "bf16[64, 4096]", s: "f32[1000, 16]", w: "f32[48, 1024]",
                    t: "f32[8, 16, 512]", c: "f32[256, 96]", cb: "bf16[256, 96]", a: "f32[40, 300]",
                    d: "f32[64, 2048]"):
    return ((x * h.float()).sum(-1), s.amax(-1), w[:, :1000].sum(-1), t[:, :, :500].sum(dim=(1, 2)),
            (c * cb.float()).sum(0), a.sum(), d.sum(0))
