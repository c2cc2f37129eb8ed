# An op outside the subset.
# expect: FILE:4:14: error: 'kthvalue' is not in coil's subset of tensor ops
def f(x: "f32[4, 4]"):
    return x.kthvalue(2, 1)
