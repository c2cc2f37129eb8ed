# coil: emit --target triton-gpu --fn padded
# A padded read's fill of -0.0 is given to tl.load's other= by its bits, as
# a -0.0 constant is (negative_zero_triton.py): on the H200 on 2026-12-02
# F.pad(value=-0.0) read +0 where it padded.
import torch
import torch.nn.functional as F


def padded(x: "f32[3, 4]", y: "f64[3, 4]"):
    return F.pad(x, (1, 1), value=-0.0) * 2, F.pad(y, (2, 0), value=-0.0) * 2
