# A cache directory others can write.
# expect: error: cache directory TMP/c is writable by other users (mode 777); refusing to load code from it
# setup: mkdir c && chmod 777 c
# env: COIL_CACHE_DIR=TMP/c
def f(x: "f32[8]"):
    return x.sum()
