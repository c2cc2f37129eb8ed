# A negative size.
# expect: FILE:3:18: error: x: sizes must not be negative (expected a spec like "bf16[2, 3] uniform(1, 2)")
def f(x: "f32[2, -3]"):
    return x
