# Bench probe, not in make bench: build/coil bench bench/probes/col_logsumexp_bf16.py, or tools/ab_bench.sh
"""logsumexp over the first axis of bf16: two kernels a column chain does
not take (8192 points per column leave a 16-column tile)."""
import torch


def lse0(x: "bf16[8192, 8192]"):
    xf = x.float()
    m = xf.amax(dim=0, keepdim=True)
    return (torch.log(torch.exp(xf - m).sum(dim=0, keepdim=True)) + m).squeeze(0)
