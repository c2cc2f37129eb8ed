# Advanced indexing with a tensor.
# expect: FILE:4:16: error: indexing with a tensor (advanced indexing) is not supported
def f(x: "f32[2, 7]"):
    return x[x > 0]
