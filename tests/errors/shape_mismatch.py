# Shapes that do not broadcast.
# expect: FILE:4:14: error: shapes [2,3] and [4] cannot broadcast: dimension 1 is 3 and 4
def f(x: "f32[2, 3]", y: "f32[4]"):
    return x + y
