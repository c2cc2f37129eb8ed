# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/15_logsumexp_bf16.py
"""logsumexp over the last axis of bf16 scores."""
import torch


def lse(x: "bf16[8192, 8192]"):
    xf = x.float()
    m = xf.amax(dim=-1, keepdim=True)
    return (torch.log(torch.exp(xf - m).sum(dim=-1, keepdim=True)) + m).squeeze(-1)
