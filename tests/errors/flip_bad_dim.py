# flip along a dim the tensor does not have.
# expect: FILE:4:19: error: dim 2 is out of range for a tensor of 2 dimensions (expected in [-2, 1])
def f(x: "f32[4, 5]"):
    return x.flip(0, 2)
