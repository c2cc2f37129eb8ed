# permute with too few dims.
# expect: FILE:4:22: error: permute: 2 dims given for a tensor of 3 dimensions
def f(x: "f32[2, 3, 4]"):
    return x.permute(1, 0)
