# An annotation without brackets.
# expect: FILE:3:15: error: x: expected '[' after the dtype (expected a spec like "bf16[2, 3] uniform(1, 2)")
def f(x: "f32 8"):
    return x
