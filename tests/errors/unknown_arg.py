# --arg for a parameter that does not exist.
# expect: error: --arg y: f has no parameter named 'y' (its parameters: x)
# args: --arg y=f32[3]
def f(x: "f32[4]"):
    return x.sum()
