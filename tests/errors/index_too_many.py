# Three indices for a 2-d tensor.
# expect: FILE:4:13: error: too many indices for a tensor of dimension 2 (3 given)
def f(x: "f32[2, 7]"):
    return x[0, 1, 2]
