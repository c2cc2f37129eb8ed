# '&' on float tensors.
# expect: FILE:4:14: error: '&' (bitwise_and) needs bool or integer tensors, got f32 (as in PyTorch)
def f(x: "f32[8]"):
    return x & x
