# Two annotated functions and no --fn.
# expect: error: FILE: several functions could be compiled (f, g); pick one with --fn NAME
def f(x: "f32[4]"):
    return x.sum()
def g(x: "f32[4]"):
    return x.amax()
