# coil: dump -d schedule
# Pins the CPU schedule of softmax: three kernels in one chain run a row at
# a time; exp(x - max) kept in a row buffer for the division; the sum's
# kernel prefetches the next row; the 134 MB output bypasses the caches;
# the max keeps NaNs in lanes of its own and alone would ask for 128-bit
# vectors, which the chain overrules for the exp.
import torch


def softmax(x: "f32[8192, 4096]"):
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
