# coil's Triton executor folded tl.sum of an f32 block one element after
# another in f32; a GPU sums in a tree and Triton's interpreter pairwise, and
# the running sum drifted several times further from the exact one: 156
# terms near -4 came out 5.6e-6 off, past the check's tolerance, though the
# emitted kernel was right (fuzz seed 9200 case 1440, minimised).  The
# executor now sums f32 in f64 and rounds once.
import torch


def f32_sum_order(in0: "f32[]", in2: "i32[4, 5, 13, 5, 3]"):
    t3 = torch.where(in2 > 0.25, in2, in2)
    t4 = t3 - in0
    return t4.sum(dim=(0, 2, -2, 4,), keepdim=True)
