# mean of an integer tensor, as PyTorch rejects it.
# expect: FILE:4:14: error: mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: i32
def f(x: "i32[4]"):
    return x.mean()
