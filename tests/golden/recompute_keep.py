# coil: dump -d fuse,schedule
# Three layer norms with tanh over 16 rows of 20000: too few rows for a
# row chain, so each mean and variance would compute every earlier layer
# again from x.  recompute.c keeps the first layer's output in a buffer
# (b4, %20); the kernels then do 1.49 times the graph's work, within its
# bound of 1.5, and none computes more than two layers.
import torch


def few_rows(x: "f32[16, 20000]"):
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    m = x.mean(dim=-1, keepdim=True)
    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)
    x = (x - m) * torch.rsqrt(v + 1e-5)
    x = x + torch.tanh(x * 0.5)
    return x
