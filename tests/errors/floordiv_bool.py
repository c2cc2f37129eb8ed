# Floor division of bool tensors: PyTorch has no kernel for it.
# expect: FILE:4:14: error: floor_divide of bool tensors is not supported (as in PyTorch)
def f(x: "bool[8]", y: "bool[8]"):
    return x // y
