# float() of a string that is not a number, as Python says it.
# expect: FILE:4:22: error: could not convert string to float: 'fast'
def f(x: "f32[8]"):
    return x + float("fast")
