# Column chains (chain.c): softmax over the channels of an NCHW-like
# tensor runs its three kernels (max, sum of exp, division) a tile of 2048
# columns at a time in each of 32 rows (too few for a row chain), the exp
# kept in a tile buffer and the next tile prefetched.  4100 columns: two
# full tiles and a tail of 4.  A few
# NaNs (values above 3.5) and -infs make their columns NaN (and the fast
# exp's blocks run again exactly); the rest must match softmax.
# equal-nan
import torch


def channel_softmax(x: "f32[32, 20, 4100]"):
    y = torch.where(x > 3.5, torch.nan, x)
    y = torch.where(y < -3.7, -torch.inf, y)
    return torch.softmax(y, dim=1)
