# max(dim) reduces one dim: a tuple of dims is PyTorch's error too.
# expect: FILE:4:22: error: max reduces one dim, as in PyTorch: dim must be an int
def f(x: "f32[3, 4, 5]"):
    return x.max(dim=(0, 1))
