# coil: dump -d kernel
# Which differences the graph proves <= 0 (graph_nonpositive; "(<= 0)" on
# the value, and the exp after it checks its fast range on one side): x -
# amax(x) kept and broadcast back, in f32 and in f64 (a, b), softmax's own
# (c), and the difference in bf16, computed in f32, then cast to f32 (d: a
# float cast keeps the sign).  Not: x - amin(x) (>= 0), x - amax(y) of
# another tensor, amax(x) reshaped and transposed (the same numbers, but not
# the keepdim form the check knows), or an integer difference (wraps).
import torch


def nonpositive(a: "f32[8, 64]", b: "f64[8, 64]", c: "f32[8, 64]", d: "bf16[8, 64]", y: "f32[8, 64]",
                i: "i32[8, 64]"):
    return ((a - a.amax(-1, keepdim=True)).exp().sum(-1),
            (b - b.amax(0, keepdim=True)).exp().sum(0),
            torch.softmax(c, -1),
            (d - d.amax(-1, keepdim=True)).float().exp().sum(-1),
            (a - a.amin(-1, keepdim=True)).exp().sum(-1),
            (a - y.amax(-1, keepdim=True)).exp().sum(-1),
            (a - a.amax(-1).reshape(1, 8).t()).exp().sum(-1),
            (i - i.amax(-1, keepdim=True)).sum(-1))
