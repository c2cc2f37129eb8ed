# A module constant outside coil's subset (a dict) is an error where it is used.
# expect: FILE:3:10: error: module constant 'CONFIG' is not in coil's subset: expected an expression, found '{'
CONFIG = {"eps": 1e-6}
SCALE = 2.0


def f(x: "f32[8]"):
    return x * SCALE + CONFIG["eps"]
