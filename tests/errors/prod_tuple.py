# prod over a tuple of dims, which PyTorch does not accept.
# expect: FILE:4:23: error: prod reduces one dim, as in PyTorch: dim must be an int
def f(x: "f32[2, 3]"):
    return x.prod(dim=(0, 1))
