# A missing closing parenthesis.
# expect: FILE:4:12: error: '(' was never closed
def f(x: "f32[4]"):
    return (x + 1

