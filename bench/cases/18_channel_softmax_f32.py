# Bench case of make bench (bench/compare.py); alone: build/coil bench bench/cases/18_channel_softmax_f32.py
"""Softmax over the 21 class channels of NCHW segmentation logits: a
reduction over a non-contiguous axis for every pixel, then a pointwise
pass (several kernels, a column chain)."""
import torch


def channel_softmax(x: "f32[16, 21, 256, 256]"):
    return torch.softmax(x, dim=1)
