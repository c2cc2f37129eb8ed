# A reduction dim given twice.
# expect: FILE:4:22: error: dim 1 appears more than once in the reduction dims
def f(x: "f32[2, 3]"):
    return x.sum(dim=(1, -1))
