# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/16_entropy_f32.py
"""Entropy of each row of probabilities: a log per element (a libm call
before coil's own vectorisable logf)."""
import torch


def entropy(p: "f32[8192, 4096] uniform(0.0001, 1)"):
    return -(p * torch.log(p)).sum(dim=-1)
