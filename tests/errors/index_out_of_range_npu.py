# The NPU dialect checks the index with tl.device_assert, which coil's Triton executor raises.
# args: --target triton-npu
# expect: FILE [coil emit --target triton-npu]:23:9: error: Device-side assertion failed: FILE:9:14: index out of range: an index is outside [0, 10) for dimension 0 of size 10 at index [0] (program (0, 0, 0))
import torch
import torch.nn.functional as F


def f(w: "f32[10, 4]", ids: "i64[3, 5] uniform(0, 30)"):
    return F.embedding(ids, w)
