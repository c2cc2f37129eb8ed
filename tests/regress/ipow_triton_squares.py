# An integer power by a tensor exponent in the Triton targets (fuzz seed
# 9001 case 416, minimised).  coil_ipow squares its base 63 times; on data
# int32 wraps, as on a GPU, but coil's Triton executor reported "int32
# overflow in index arithmetic": its shortcut for a where with a uniform
# condition gave the branch taken the branch's provenance, and
# coil_minimum(v, 3) of a block where every v >= 3 is the constant 3, an
# index's.  The branch taken by a data condition is data.
import torch


def ipow_squares(in0: "i32[7] arange"):
    t1 = in0.unsqueeze(0).expand(11, 7)
    t2 = t1.reshape(77,)
    t3 = t2.clamp(-3, 3) ** t2.clamp(0, 4)
    t4 = t3.to(torch.bfloat16)
    t5 = t4.std(dim=(0,), correction=0, keepdim=False)
    return t3, t5
