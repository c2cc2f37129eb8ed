# Argument unpacking.
# expect: FILE:5:22: error: unsupported Python syntax: argument unpacking
def f(x: "f32[2, 4]"):
    s = (1, 0)
    return x.permute(*s)
