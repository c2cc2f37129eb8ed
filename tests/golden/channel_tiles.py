# coil: dump -d schedule
# Which row reductions walk adjacent x points inside each outer r point
# (sched.c r_tile).  k0: a channel mean of NCHW, pieces of 1024 f32 (4 KB)
# side by side: tiles of 256 KB would be 64 channels, capped at 64 / 16 = 4
# so 16 tiles remain.  Not: the channels of a slice (pieces of 100 values,
# 128 apart: not side by side); 16 channels (a tile of 1); a plain row sum
# (no outer r point).
import torch


def channel_tiles(x: "f32[4, 64, 8, 128]", w: "f32[4, 48, 8, 128]", s: "f32[4, 16, 8, 128]", r: "f32[96, 1024]"):
    return x.mean(dim=(0, 2, 3)), w[:, :, :, :100].mean(dim=(0, 2, 3)), s.sum(dim=(0, 2, 3)), r.sum(-1)
