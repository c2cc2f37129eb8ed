# var of an integer tensor.
# expect: FILE:4:14: error: var needs a floating-point tensor, got i64
def f(x: "i64[8]"):
    return x.var()
