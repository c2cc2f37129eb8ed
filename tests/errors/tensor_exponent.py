# A tensor exponent.
# expect: FILE:4:17: error: '**' needs a number as its exponent, got a tensor
def f(x: "f32[4]", y: "f32[4]"):
    return x ** y
