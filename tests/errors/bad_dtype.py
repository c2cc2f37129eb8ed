# An unknown dtype in an annotation.
# expect: FILE:3:11: error: x: unknown dtype 'q8'; the dtypes are f32, f16, bf16, f64, i32, i64 and bool (expected a spec like "bf16[2, 3] uniform(1, 2)")
def f(x: "q8[2]"):
    return x
