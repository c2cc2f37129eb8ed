# A scan along a long axis cuts it into blocks, two more dims inside coil:
# a 7-dim tensor has no room for them (at most 8), and says so.
# expect: FILE:5:14: error: a scan of a 7-dim tensor needs more than 8 dims inside coil
def f(x: "f32[2, 1, 1, 1, 1, 1, 40]"):
    return x.cumsum(-1)
