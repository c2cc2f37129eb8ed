# A stack of five layer norms, each followed by x + tanh(x / 2), in one row
# chain of eleven kernels.  Each mean and variance once recomputed every
# earlier layer from x (work per element growing with the square of the
# depth; 16 layers took 3.1 s for 8 MB), and in one function that large
# gcc left c_tanhf a call in scalar loops.  Now each reduction reads the
# layer before it from a row buffer (chain.c), two buffers in turn, and the
# prelude's helpers are always inlined.  Rows of 1000: the lane loops'
# tails read the buffers too.
import torch


def norm_stack(x: "f32[67, 1000]", w: "f32[1000]"):
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
