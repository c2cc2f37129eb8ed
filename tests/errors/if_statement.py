# Control flow is outside the subset.
# expect: FILE:4:5: error: 'if' statements are not in coil's subset (a function body is assignments and a return)
def f(x: "f32[4]"):
    if x.ndim > 1:
        x = x + 1
    return x
