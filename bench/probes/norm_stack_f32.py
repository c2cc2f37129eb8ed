# Bench probe, not in make bench: build/coil bench bench/probes/norm_stack_f32.py, or tools/ab_bench.sh
"""Eight layer norms in a row, each followed by x + tanh(x / 2): one function
of 16 reductions, a row chain of 17 kernels that pass each layer on in
row buffers (a deep stack once cost the square of its depth)."""
import torch


def norm_stack(x: "f32[4096, 1024]", w: "f32[1024]"):
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
