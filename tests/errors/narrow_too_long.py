# A narrow past the end of its dim.
# expect: FILE:4:27: error: narrow: start (3) + length (5) exceeds dimension size (7)
def f(x: "f32[2, 7]"):
    return x.narrow(1, 3, 5)
