# transpose of a dim out of range.
# expect: FILE:4:27: error: dim 2 is out of range for a tensor of 2 dimensions (expected in [-2, 1])
def f(x: "f32[2, 3]"):
    return x.transpose(0, 2)
