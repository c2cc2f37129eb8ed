# A cache directory that cannot be created.
# expect: error: cannot create cache directory /proc/coil-cache: No such file or directory
# env: COIL_CACHE_DIR=/proc/coil-cache
def f(x: "f32[8]"):
    return x.sum()
