# A name the function assigns is local to all of it, as in Python: read
# before its assignment it is not the module constant of that name.
# expect: FILE:8:13: error: local variable 'EPS' is used before it is assigned (on this path through the function)
EPS = 1e-6


def f(x: "f32[8]"):
    y = x + EPS
    if x.dim() == 3:
        EPS = 1e-5
    return y
