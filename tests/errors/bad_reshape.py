# A reshape to a different number of elements.
# expect: FILE:4:22: error: reshape: shape [4,2] is invalid for input of size 6
def f(x: "f32[2, 3]"):
    return x.reshape(4, 2)
