# A cat (and a roll, a cat of two slices) along dim 1 of a tensor kept in a
# buffer, then viewed with dims 0 and 1 merged: the view's index map hands
# the pieces' guards as conditions on x0 % 8, and the verifier refused the
# guarded load ("reaches [-6, 233] outside [0, 240)") because a condition
# on a remainder did not bound its dividend (ix_bounds_where now derives
# e >= a from a <= e % d for e >= 0).  Found by the torch.compile backend
# on a circular pad and a roll after a batch norm.
import torch


def cat_view(x: "f32[5, 8, 6]"):
    d = x.exp()
    r = torch.roll(d, 3, 1).reshape(40, 6) + torch.roll(d, -2, 2).reshape(5, 48)[:, :, None].reshape(40, 6)
    return torch.cat([d[:, 7:], d[:, :7]], 1).view(40, 6), r, d
