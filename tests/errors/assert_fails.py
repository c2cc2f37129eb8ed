# A failing assert on a shape is an error at its line.
# expect: FILE:5:5: error: assertion failed: the last dimension must be even
def f(x: "f32[6, 5]"):
    d = x.shape[-1]
    assert d % 2 == 0, "the last dimension must be even"
    return x
