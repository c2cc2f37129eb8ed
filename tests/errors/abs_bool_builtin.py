# Python's abs() of a bool tensor, as torch.abs's: PyTorch rejects it.
# expect: FILE:4:15: error: abs of a bool tensor is not supported (as in PyTorch)
def f(x: "bool[4]"):
    return abs(x)
