# --fn names a function that is not there.
# expect: error: FILE: no function named 'g' (functions: f)
# args: --fn g
def f(x: "f32[8]"):
    return x.sum()
