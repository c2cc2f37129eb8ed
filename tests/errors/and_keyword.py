# Python's and on tensors.
# expect: FILE:4:20: error: 'and' needs the truth value of a tensor, which coil does not know when compiling (use & and | on bool tensors)
def f(x: "f32[8]"):
    return (x > 0) and (x < 1)
