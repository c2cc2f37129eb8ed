# Augmented assignment.
# expect: FILE:4:7: error: augmented assignment is not supported; write x = x op y
def f(x: "f32[8]"):
    x += 1
    return x
