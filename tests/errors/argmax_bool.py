# argmax and argmin refuse bool tensors, as PyTorch does (max(dim) takes them).
# expect: FILE:4:27: error: argmin(): does not support bool input (as in PyTorch); cast it first
def f(m: "bool[3, 4]"):
    return m.max(1)[1], m.argmin(0)
