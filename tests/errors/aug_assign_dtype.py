# x /= 2 on an int tensor: in place, the float result cannot go back into it.
# expect: FILE:4:7: error: '/=' keeps the dtype of 'x': result type f32 can't be cast to i32 (as in PyTorch)
def f(x: "i32[8]"):
    x /= 2
    return x
