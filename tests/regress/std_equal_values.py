# The std of equal f32 values must be exactly 0, as in PyTorch (fuzz seed
# 2002 case 6422): var/std was two-pass with the mean summed in f32, so the
# mean missed the value by an ulp of the sum and the std came out 5e-4.
# Now one pass of shifted sums, d = x - (first element), accumulated in f64:
# equal values give d = 0 exactly.
import torch


def std_equal(in1: "i64[16, 5, 4, 3, 1]", x: "f32[33, 7]"):
    t5 = (in1 * in1 / 0.5).clamp(-8, 8).exp().float().permute(2, 3, 1, 4, 0)
    c = x * 0 + 2980.9580
    return t5.std(dim=(-1,)), t5.var(dim=(-1, 2), correction=0), c.std(0), c.var(), c.std(dim=1, keepdim=True)
