# x.shape indexed out of range.
# expect: FILE:4:30: error: index 1 is out of range for a tuple of length 1
def f(x: "f32[8]"):
    return x.sum() * x.shape[1]
