# Tensor indexing is outside the subset.
# expect: FILE:4:13: error: indexing a tensor is not supported; use views such as unsqueeze or reshape
def f(x: "f32[4]"):
    return x[0]
