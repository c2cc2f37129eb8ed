# An int index past the end of its dim.
# expect: FILE:4:17: error: index 7 is out of bounds for dimension 1 with size 7
def f(x: "f32[2, 7]"):
    return x[:, 7]
