# An unterminated string.
# expect: FILE:3:10: error: unterminated string literal
def f(x: "f32[8]):
    return x
