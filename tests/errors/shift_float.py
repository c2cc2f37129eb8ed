# Shifts take integer tensors only.
# expect: FILE:4:14: error: << needs integer tensors, got f32 (as in PyTorch)
def f(x: "f32[8]"):
    return x << 2
