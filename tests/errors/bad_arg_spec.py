# A malformed --arg.
# expect: error: --arg x=f32[3: x: expected ',' or ']' (expected a spec like "bf16[2, 3] uniform(1, 2)")
# args: --arg x=f32[3
def f(x):
    return x.sum()
