# Unpacking into the wrong number of names.
# expect: FILE:4:5: error: cannot unpack a tuple into 2 names
def f(x: "f32[8]"):
    a, b = x.shape
    return x
