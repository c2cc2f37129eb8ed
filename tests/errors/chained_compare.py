# A chained comparison.
# expect: FILE:4:18: error: chained comparisons are not supported
def f(x: "f32[8]"):
    return 0 < x < 1
