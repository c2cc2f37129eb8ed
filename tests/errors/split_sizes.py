# split's sizes must cover the dim exactly, as PyTorch says.
# expect: FILE:4:20: error: split_with_sizes expects split_sizes to sum exactly to 10 (input tensor's size at dimension 0), but got split_sizes=[3,4]
def f(x: "f32[10]"):
    a, b = x.split([3, 4])
    return a, b
