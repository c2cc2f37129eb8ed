# An unknown keyword argument.
# expect: FILE:4:23: error: sum got an unexpected keyword argument 'axis'
def f(x: "f32[4]"):
    return x.sum(axis=0)
