# A tuple returned from elsewhere than a tuple display (found by libFuzzer:
# it read the elements of a display that was not there).
# expect: FILE:5:14: error: the function must return tensors, but output 0 is an int
def f(x: "f32[4]"):
    return x.shape
