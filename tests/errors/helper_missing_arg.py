# A helper called without one of its parameters.
# expect: FILE:8:15: error: mix() missing required argument 'w'
def mix(a, b, w):
    return a * w + b * (1 - w)


def f(x: "f32[8]", y: "f32[8]"):
    return mix(x, y)
