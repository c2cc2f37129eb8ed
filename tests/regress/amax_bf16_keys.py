# Long max/min rows of bf16 values are compared as 16-bit integers (sched.c's
# bf16 keys: a bf16 is its f32's top half; a negative one's magnitude bits
# are flipped so the integers order as the values).  Rows of 1061 (16 blocks
# of 64 lanes and a tail of 37), 4096, and 4133 (a second chunk of 37 only:
# every lane keeps its start key), over: plain randn values; values that
# are all negative (the flipped half of the order) or all positive; NaNs in
# some rows, of either sign (a positive NaN's key is above +inf's, a
# negative one's below -inf's: each lane keeps its far-end key too); +-inf;
# bf16 subnormals of both signs; +-0; a bf16 widened to f32 (the cast form);
# and a max beside a sum in one group.
# equal-nan
import torch


def bf16_keys(x: "bf16[48, 1061]", z: "bf16[5, 4096]", w: "bf16[3, 4133]"):
    neg = -x.abs() - 1
    nans = torch.where(x > 3.0, torch.nan, x)
    negnans = -nans
    infs = torch.where(x > 2.5, torch.inf, torch.where(x < -2.5, -torch.inf, x))
    tiny = x * 1e-39
    zeros = x * 0
    zf = z.float()
    return (x.amax(-1), x.amin(-1), neg.amax(-1), neg.amin(-1), nans.amax(-1), nans.amin(-1),
            negnans.amax(-1), negnans.amin(-1),
            infs.amax(-1), infs.amin(-1), tiny.amax(-1), tiny.amin(-1), zeros.amax(-1),
            zf.amax(-1), zf.amin(-1), zf.sum(-1), (w.abs() + 1).amin(-1), (-w.abs() - 2).amax(-1))
