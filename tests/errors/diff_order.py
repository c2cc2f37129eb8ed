# diff of a negative order.
# expect: FILE:4:26: error: diff: order must be non-negative but got -1 (as in PyTorch)
def f(x: "f32[3, 4]"):
    return torch.diff(x, -1)
