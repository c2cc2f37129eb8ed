# Negating a bool tensor, as PyTorch rejects it.
# expect: FILE:4:12: error: negation of a bool tensor is not supported (as in PyTorch); use ~
def f(x: "bool[4]"):
    return -x
