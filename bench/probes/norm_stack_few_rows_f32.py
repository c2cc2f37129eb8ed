# Bench probe, not in make bench: build/coil bench bench/probes/norm_stack_few_rows_f32.py, or tools/ab_bench.sh
"""Eight layer norms with tanh over 16 rows of 131072: too few rows for a
row chain, so recompute.c keeps layers in buffers (each mean and variance
once computed every earlier layer again)."""
import torch


def norm_stack_few_rows(x: "f32[16, 131072]", w: "f32[131072]"):
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5) * w
    x = x + torch.tanh(x * 0.5)
    return x
