"""Channel softmax with 64 rows of 1.4 MB: a row chain before column chains
were preferred (docs/bench.md, session 7)."""
import torch


def channel_softmax(x: "f32[64, 21, 128, 128]"):
    return torch.softmax(x, dim=1)
