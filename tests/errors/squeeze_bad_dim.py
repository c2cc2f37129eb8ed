# squeeze of a dim out of range.
# expect: FILE:4:22: error: dim 3 is out of range for a tensor of 2 dimensions (expected in [-2, 1])
def f(x: "f32[2, 1]"):
    return x.squeeze(3)
