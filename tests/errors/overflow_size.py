# Sizes whose product overflows.
# expect: FILE:3:27: error: x: the sizes' product is too large (expected a spec like "bf16[2, 3] uniform(1, 2)")
def f(x: "f32[4294967296, 4294967296]"):
    return x.sum()
