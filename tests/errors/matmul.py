# Matrix multiplication is not a fused reduction here.
# expect: FILE:4:14: error: matrix multiplication is not in coil's subset
def f(x: "f32[4, 4]"):
    return x @ x
