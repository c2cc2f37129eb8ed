# cosine_similarity of integer tensors (PyTorch refuses them).
# expect: FILE:6:14: error: expected common dtype to be floating point, yet common dtype is i32 (as in PyTorch)
import torch.nn.functional as F

def f(a: "i32[3, 4]", b: "i32[3, 4]"):
    return F.cosine_similarity(a, b)
