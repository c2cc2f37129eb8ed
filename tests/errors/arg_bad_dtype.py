# --arg with an unknown dtype.
# expect: error: --arg x=f31[3]: x: unknown dtype 'f31'; the dtypes are f32, f16, bf16, f64, i32, i64 and bool (expected a spec like "bf16[2, 3] uniform(1, 2)")
# args: --arg x=f31[3]
def f(x):
    return x.sum()
