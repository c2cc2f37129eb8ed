# Expanding a dim that is not of size 1.
# expect: FILE:4:21: error: expand: size 2 of dimension 0 cannot expand to 4 (only size-1 dimensions expand)
def f(x: "f32[2, 3]"):
    return x.expand(4, 3)
