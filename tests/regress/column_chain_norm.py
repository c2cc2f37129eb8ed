# A column chain of two reductions and a pointwise kernel: the mean over
# the channels, the variance around it, then the normalised tensor; the
# variance's kernel reads the mean the first kernel of the chain wrote for
# the same tile.
import torch


def channel_norm(x: "f32[32, 16, 4100]"):
    m = x.mean(dim=1, keepdim=True)
    v = ((x - m) ** 2).mean(dim=1, keepdim=True)
    return (x - m) * torch.rsqrt(v + 1e-5)
