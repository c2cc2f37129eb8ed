# to() with something that is not a dtype.
# expect: FILE:4:17: error: expected a torch dtype such as torch.float32, got an int
def f(x: "f32[8]"):
    return x.to(3)
