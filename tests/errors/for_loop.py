# A for loop.
# expect: FILE:4:5: error: 'for' statements are not in coil's subset (a function body is assignments and a return)
def f(x: "f32[8]"):
    for i in range(3):
        x = x + i
    return x
