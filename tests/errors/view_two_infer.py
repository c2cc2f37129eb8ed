# view with two -1.
# expect: FILE:4:19: error: view: only one dimension can be -1
def f(x: "f32[2, 3, 4]"):
    return x.view(-1, -1)
