# masked_fill on an integer tensor cast its float value with a C cast, which
# is undefined for -inf, NaN and values out of range (UBSan under the
# frontend fuzzer: "-inf is outside the range of representable values").
# PyTorch converts a fill value with a range check: a float into an integer
# truncates, and bool takes anything as "is it nonzero".  Here are the
# values that fit, at each edge; tests/errors/fill_*.py has those that do
# not.
# exact
# equal-nan
import torch


def fill_values(x: "f32[4, 6]", i: "i32[4, 6] uniform(-9, 9)", h: "f16[4, 6]", m: "bool[4, 6]"):
    b = x > 0
    return (i.masked_fill(m, 1.9), i.masked_fill(m, -2147483648.0), i.masked_fill(m, 2147483647), i.long().masked_fill(m, -9.2e18),
            b.masked_fill(m, float("-inf")), b.masked_fill(m, 0.0), h.masked_fill(m, float("inf")), h.masked_fill(m, -65504.0),
            h.masked_fill(m, float("nan")), torch.full((3,), -7.9, dtype=torch.int32), torch.full((3,), float("nan"), dtype=torch.bool),
            torch.full((2,), 65504, dtype=torch.float16))
