# Python's and on tensors.
# expect: FILE:4:20: error: 'and' is not in coil's subset (use & and | on bool tensors)
def f(x: "f32[8]"):
    return (x > 0) and (x < 1)
