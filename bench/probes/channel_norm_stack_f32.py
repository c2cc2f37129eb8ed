# Bench probe, not in make bench: build/coil bench bench/probes/channel_norm_stack_f32.py, or tools/ab_bench.sh
"""Four channel norms with tanh over NCHW: a column chain whose variances
and means read the layer before them from tile buffers."""
import torch


def channel_norm_stack(x: "f32[16, 32, 128, 128]"):
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
    m = x.mean(dim=1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    return x
