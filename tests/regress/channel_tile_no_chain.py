# A kernel that walks a tile of x points inside each outer r point (sched.c's
# r_tile: channel sums of NCHW) was put in a row chain with the pointwise
# kernel after it, which runs a row at a time; the chain verifier rejected
# the plan, so coil refused a valid function (fuzz seed 9001 case 974:
# (x * x).sum((0, 3, 4)) of f32[2, 8, 11, 3, 1], then a where and a
# permute).  A tiled kernel is no row kernel: chain.c leaves it alone.
import torch


def tile_no_chain(y: "f32[3, 96, 17, 16]"):
    c = y.sum(dim=(0, 2, 3), keepdim=True)
    d = torch.where(c > 0, c, -c)
    return d.permute(1, 0, 2, 3), d
