# break outside a loop.
# expect: FILE:4:5: error: 'break' outside a loop
def f(x: "f32[8]"):
    break
    return x
