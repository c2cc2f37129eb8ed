"""Returned values that other returned values are computed from (fuse.c's
shared values: the kernel that stores one computes it for its other roots,
at their points, flipped ones included), against PyTorch on every target."""
import torch


def shared_norm(x: "bf16[300, 96]", w: "f32[96]"):
    n = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    return n, (n * w).to(torch.bfloat16)


def shared_flip(y: "f32[37, 50]"):
    e = y.exp()
    return e, e + e.flip(0), e.flip(0) + 1, e.sum(0), e + e.amax(-1, keepdim=True)


def shared_chain(x: "f32[2048, 256]", w: "f32[256]"):
    """Rows enough for the GPU dialect's chain (one launch for the row
    statistic and both stores)."""
    s = torch.softmax(x, -1)
    return s, s * w, (s * w).sum(-1)
