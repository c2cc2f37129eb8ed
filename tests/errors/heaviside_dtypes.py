# heaviside takes values of the input's dtype only, as PyTorch does.
# expect: FILE:4:31: error: heaviside is not yet implemented for tensors with different dtypes (as in PyTorch): f32 and f64
def f(x: "f32[4, 4]", v: "f64[4]"):
    return torch.heaviside(x, v)
