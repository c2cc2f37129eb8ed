# unsqueeze of a dim out of range.
# expect: FILE:4:24: error: dim 4 is out of range for unsqueeze on 2 dimensions (expected in [-3, 2])
def f(x: "f32[2, 3]"):
    return x.unsqueeze(4)
