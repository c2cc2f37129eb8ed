# Python's not on a tensor.
# expect: FILE:4:17: error: 'not' needs the truth value of a tensor, which coil does not know when compiling (use ~ on bool tensors)
def f(x: "f32[8]"):
    return x if not x else -x
