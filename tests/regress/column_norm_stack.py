# Channel norms stacked three deep, each followed by x + tanh(x / 2): a
# column chain whose variances and means read the layer before them from
# tile buffers (chain.c match_cols), two places taken in turn.  13
# channels: the column blocks' 8-point r passes end in a tail of 5; a tile
# of 1500 columns, 70 rows.
import torch


def channel_norm_stack(x: "f32[70, 13, 1500]"):
    m = x.mean(dim=1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    return x
