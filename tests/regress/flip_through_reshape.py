# A flip read through a reshape: the flipped index -x1 + 5 of a [5, 8, 6]
# view of a [40, 6] input goes through the view's flat offset, and iexpr
# split (6*x0 + 6 - x1) // 6 into x0 + 1 + (-x1) // 6: right with Python's
# floor division, wrong as printed with C's and Triton's truncating / and
# % (5 of 360 values off).  A dividend now keeps enough of the constant to
# stay >= 0.  Found by the torch.compile backend (a Linear's [40, 6]
# output viewed as [5, 8, 6], then h + h.flip(-1) padded).
import torch
import torch.nn.functional as F


def flip_view(a: "f32[40, 6]"):
    h = a.view(5, 8, 6)
    return F.pad(h + h.flip(-1), (1, 2)).view(40, 9), h.flip(1, 2).reshape(40, 6) * 2
