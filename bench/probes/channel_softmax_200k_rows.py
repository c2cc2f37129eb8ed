"""Channel softmax with 256 rows of 200 KB: a row chain before column chains
were preferred (docs/bench.md, session 7)."""
import torch


def channel_softmax(x: "f32[256, 20, 2500]"):
    return torch.softmax(x, dim=1)
