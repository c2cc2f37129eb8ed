# A float index.
# expect: FILE:4:14: error: a tensor index must be an int, a slice, None or ..., got a float
def f(x: "f32[2, 7]"):
    return x[0.5]
