# Two ellipses in one index.
# expect: FILE:4:22: error: an index can only have a single ellipsis ('...')
def f(x: "f32[2, 7]"):
    return x[..., 0, ...]
