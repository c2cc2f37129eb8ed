"""More than 2^31 elements: the kernels index in int64 (program ids, the
aranges and the split offsets), in both dialects.  Too large for the
interpreter: the suite runs it at small shapes and compiles it for sm_90 at
this size."""
import torch


def wide(x: "bf16[5, 600000000]", y: "f32[600000000, 5]"):
    return x.sum(1), y.amax(0), (x.float() * 2).sum(0)
