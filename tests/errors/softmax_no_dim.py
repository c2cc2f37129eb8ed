# softmax without dim: PyTorch's implicit dim is deprecated, coil asks for it.
# expect: FILE:4:14: error: softmax needs dim (PyTorch's implicit dim is deprecated)
def f(x: "f32[2, 7]"):
    return x.softmax()
