# A narrow whose start is outside its dim.
# expect: FILE:4:24: error: narrow: start -8 is out of range (expected in [-7, 7])
def f(x: "f32[2, 7]"):
    return x.narrow(1, -8, 1)
