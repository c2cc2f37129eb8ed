# coil: dump -d fuse,simplify,schedule
# Arg-reductions.  x.max(1)'s values and indices are one accumulator: the
# pair (value, position) of `acc0 = argmax v0 at v1`, whose results are
# acc0.value and acc0.index.  The position is an index value in PyTorch's
# order (the reduced dims flattened row-major): u.permute(2, 0, 1) reduced
# whole has the index 36*r0 + r1 over r0[6] r1[36] (the view's order),
# while the schedule runs the 36-point axis outside, in memory order (axes
# renamed in loop order there), so the loops do not decide ties: the
# combine does, by position.
import torch


def argmax(x: "f32[6, 33]", u: "i32[4, 9, 6]"):
    v, i = x.max(1)
    return v, i, x.argmin(0), u.permute(2, 0, 1).argmax()
