# A causal mask of a 1-D tensor: triu and tril need the last two dims.
# expect: FILE:4:18: error: triu: input tensor must have at least 2 dimensions (as in PyTorch)
def f(x: "f32[8]"):
    return torch.triu(x, 1)
