# A helper that calls itself without end: calls are inlined up to a depth.
# expect: FILE:4:17: error: calls nested more than 64 deep (is 'halve' recursive without an end?): coil inlines every call of the file's functions when compiling
def halve(x, n):
    return halve(x / 2, n - 1)


def f(x: "f32[8]"):
    return halve(x, 3)
