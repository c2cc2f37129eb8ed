# logaddexp has no integer kernel in PyTorch ("logaddexp_cpu" not implemented for 'Long').
# expect: FILE:4:18: error: logaddexp of i64 tensors is not supported (as in PyTorch): it needs floating-point tensors
def f(x: "i64[4, 4]", y: "i64[4, 4]"):
    return torch.logaddexp(x, y)
