# diagonal of one dim with itself.
# expect: FILE:4:29: error: diagonal dimensions cannot be identical 1, -2 (as in PyTorch)
def f(x: "f32[3, 4, 5]"):
    return x.diagonal(0, 1, -2)
