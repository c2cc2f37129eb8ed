# coil: dump -d schedule
# Which split reductions read each part's chunks as runs side by side
# (CSched.streams, sched.c streams_fit): only parts of whole chunks of one
# r axis, read plainly.  Streamed: a whole-tensor f32 sum (k0), long i32
# rows (sum, max and min together, k1).  Not: a long f32 max row (NaN
# lanes, k2), a sum of exp (fast forms, k3), long f16 rows (staged loads,
# k4), a sum over the outer axes of a short last axis (vectorised over x,
# k5), an odd-length row (the chunk does not divide it, k6).
import torch


def streams(a: "f32[700, 4096]", b: "i32[3, 1048576]", c: "f32[2, 4194304]", d: "f32[4, 2097152]",
            g: "f16[5, 1048576]", e: "f32[2048, 700, 8]", f: "f32[6, 1048575]"):
    return (a.sum(), b.sum(-1), b.amax(-1), b.amin(-1), c.amax(-1), d.exp().sum(-1), g.sum(-1),
            e.sum((0, 1)), f.sum(-1))
