# Channel reductions walked in x tiles (sched.c r_tile): the pieces of
# adjacent channels lie side by side, so a tile of 3 channels (50 / 16) is
# walked inside each batch point; 17 tiles, the last of 2; each reduction
# split in 2.  Pieces of 4500 values: two chunks (4096 + 404) and a lane
# tail of 20.  In one group: mean and variance, an f32 max with NaNs (NaN
# lanes), a bf16 min (16-bit keys), exp sums in fast form with chunks run
# again exactly (x * 30 passes 87); a logsumexp whose second kernel reads
# its channel's max inside the tile.
# equal-nan
import torch


def channel_tiles(x: "f32[6, 50, 9, 500]", b: "bf16[6, 50, 9, 500]"):
    m = x.mean(dim=(0, 2, 3))
    v = x.var(dim=(0, 2, 3))
    y = torch.where(x > 3.9, torch.nan, x)
    mx = y.amax(dim=(0, 2, 3))
    bm = b.amin(dim=(0, 2, 3))
    e = (x * 30).exp().sum(dim=(0, 2, 3))
    mm = x.amax(dim=(0, 2, 3), keepdim=True)
    lse = (x - mm).exp().sum(dim=(0, 2, 3)).log() + mm.flatten()
    return m, v, mx, bm, e, lse
