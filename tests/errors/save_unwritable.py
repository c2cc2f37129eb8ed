# A --save directory that cannot be created.
# expect: error: --save /proc/coil-cannot-write: cannot create directory: No such file or directory
# args: --save /proc/coil-cannot-write
def f(x: "f32[8]"):
    return x.sum()
