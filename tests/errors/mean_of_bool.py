# mean of a bool tensor.
# expect: FILE:4:14: error: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: bool
def f(x: "bool[8]"):
    return x.mean()
