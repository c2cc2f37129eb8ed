# Python's max() of tensors would need their values; the error names the
# tensor ops that do it.
# expect: FILE:5:15: error: max() of tensors is not in coil's subset: use x.amax(dim) or torch.maximum(a, b)
def f(x: "f32[8]", y: "f32[8]"):
    return max(x, y)
