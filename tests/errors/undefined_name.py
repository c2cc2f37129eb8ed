# A name that is never assigned.
# expect: FILE:4:12: error: name 'y' is not defined
def f(x: "f32[2]"):
    return y
