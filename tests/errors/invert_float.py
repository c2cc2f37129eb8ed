# '~' on a float tensor.
# expect: FILE:4:12: error: '~' (bitwise_not) needs a bool or integer tensor, got f32 (as in PyTorch)
def f(x: "f32[8]"):
    return ~x
