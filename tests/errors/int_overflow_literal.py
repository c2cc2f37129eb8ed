# An integer literal beyond 64 bits.
# expect: FILE:4:16: error: integer literal 99999999999999999999999 is out of range or malformed
def f(x: "f32[8]"):
    return x * 99999999999999999999999
