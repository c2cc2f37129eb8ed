# An attribute of a tensor method (x.ops.aten) once handed a null namespace
# to strcmp (make fuzz found it).
# expect: FILE:5:18: error: a function has no attribute 'aten' in coil's subset
def f(x: "f32[8]"):
    return x.ops.aten
