# A lambda.
# expect: FILE:4:9: error: 'lambda' is not in coil's subset
def f(x: "f32[8]"):
    g = lambda t: t
    return x
