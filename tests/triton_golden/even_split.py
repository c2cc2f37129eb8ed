"""A split reduction whose parts can each take the same whole number of
RBLOCK steps runs unmasked: an NHWC variance (200704 rows in 3136 steps of
64) in 98 parts of 2048 rows, not 105 of 1920 with an rmask (bench case 14:
67% of a read on the H200, 84% split evenly; docs/gpu.md).  Rows that no
part count near the model's divides (200703) keep the mask."""
import torch


def even(x: "f32[64, 56, 56, 160]"):
    return torch.var(x.permute(0, 3, 1, 2), dim=(0, 2, 3), correction=0)


def uneven(x: "f32[200703, 160]"):
    return x.sum(0)
