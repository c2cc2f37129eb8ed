# A stride(...) that does not give one stride per dimension.
# expect: FILE:3:21: error: x: stride(...) gives 1 stride for 2 dimensions (expected a spec like "f32[4, 8] stride(1, 4)")
def f(x: "f32[4, 8] stride(1)"):
    return x.sum(0)
