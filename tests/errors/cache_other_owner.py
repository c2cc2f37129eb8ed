# A cache directory owned by another user.
# expect: error: cache directory TMP/c is owned by another user (uid 65534); refusing to load code from it
# setup: mkdir c && chown 65534 c
# env: COIL_CACHE_DIR=TMP/c
def f(x: "f32[8]"):
    return x.sum()
