# coil: dump -d schedule
# Which long max/min rows compare bf16 values as 16-bit integers (CSched.
# bf16_keys): those with NaN lanes (f32-computed max/min rows of 1024 or
# more) whose values are bf16s, as loaded (acc0: amax of a bf16 row) or
# widened to f32 exactly (acc1: x.float().amin).  Not: a max of an f32 row
# (acc2), a max of values computed in f32 and not rounded to bf16 (acc3:
# x.float() * 0.5 is no bf16 value), a sum (acc4: no line), a bf16 row too
# short for NaN lanes (k1).
import torch


def bf16_keys(x: "bf16[16, 2048]", y: "f32[16, 2048]", s: "bf16[64, 100]"):
    return (x.amax(-1), x.float().amin(-1), y.amax(-1), s.amax(-1), (x.float() * 0.5).amax(-1), x.float().sum(-1))
