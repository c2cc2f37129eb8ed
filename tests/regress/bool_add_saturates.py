# fuzz seed 4 case 186: bool + bool is bool (True + True == True); the C
# printer kept 2 and a later cast to f32 saw it.
import torch


def fuzz186(in0: "f64[8, 2, 1]", in1: "bf16[1, 3, 8, 5]", in2: "bool[1, 4, 1, 1, 7]"):
    t3 = in2 + in2
    t4 = t3 + t3
    t7 = t3.to(torch.float32)
    t8 = t7.to(torch.int32)
    t9 = t8 + t4
    return t9, t8, t8
