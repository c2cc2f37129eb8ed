# fuzz seed 40 case 106: bool + bool saturates in the Triton printers too
# (the NPU module kept 2 for True + True).
import torch


def fuzz106(in0: "bool[7]"):
    t1 = in0 + in0
    t2 = t1.sum(dim=(0,), keepdim=False)
    t3 = t2.square()
    t4 = torch.where(t3 > 0, t3, t3)
    t5 = torch.where(t2 > 0, t2, t4)
    return t5
