# select's index is checked against the dim's size.
# expect: FILE:4:24: error: select(): index 5 out of range for tensor of size 5 at dimension 1
def f(x: "f32[4, 5]"):
    return x.select(1, 5)
