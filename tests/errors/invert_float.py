# '~' on a float tensor.
# expect: FILE:4:12: error: '~' is supported on bool tensors only, got f32
def f(x: "f32[8]"):
    return ~x
