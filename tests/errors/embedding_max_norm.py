# expect: FILE:7:41: error: F.embedding with max_norm renormalises weight in place; a function coil compiles is pure (renormalise weight before the call)
import torch
import torch.nn.functional as F


def f(w: "f32[10, 4]", ids: "i64[3] uniform(0, 10)"):
    return F.embedding(ids, w, max_norm=1.0)
