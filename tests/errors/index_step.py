# A slice of a tensor with a negative step (PyTorch refuses it; flip reverses).
# expect: FILE:4:19: error: step must be greater than zero (as in PyTorch; x.flip(dim) reverses)
def f(x: "f32[2, 7]"):
    return x[:, ::-1]
