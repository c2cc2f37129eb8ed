# An unknown input distribution.
# expect: FILE:3:18: error: x: unknown distribution 'normal'; the choices are randn, uniform(lo, hi), ones and arange (expected a spec like "bf16[2, 3] uniform(1, 2)")
def f(x: "f32[2] normal(0, 1)"):
    return x
