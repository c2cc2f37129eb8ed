# outer takes two vectors.
# expect: FILE:4:27: error: outer: Expected 1-D argument vec2, but got 2-D (as in PyTorch)
def f(x: "f32[3]", y: "f32[3, 4]"):
    return torch.outer(x, y)
