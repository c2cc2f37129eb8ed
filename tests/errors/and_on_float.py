# '&' on float tensors.
# expect: FILE:4:14: error: '&' is supported on bool tensors only
def f(x: "f32[8]"):
    return x & x
