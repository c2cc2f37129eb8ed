# A raise that runs (its branch is taken when compiling) is an error there.
# expect: FILE:5:9: error: the function raises ValueError: expected a 3-d input
def f(x: "f32[4, 8]"):
    if x.dim() != 3:
        raise ValueError("expected a 3-d input")
    return x
