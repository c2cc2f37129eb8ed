# flatten with start after end.
# expect: FILE:4:14: error: flatten: start_dim 2 comes after end_dim 1
def f(x: "f32[2, 3, 4]"):
    return x.flatten(2, 1)
