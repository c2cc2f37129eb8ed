# view with a negative size.
# expect: FILE:4:19: error: view: invalid size -2
def f(x: "f32[2, 3]"):
    return x.view(-2, 3)
