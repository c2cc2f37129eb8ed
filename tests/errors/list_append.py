# A list changed in place.
# expect: FILE:6:9: error: a call as a statement has no effect in coil's subset, which knows no mutation (xs.append(v) is xs = xs + [v]); assign or return its result
def f(x: "f32[8]"):
    outs = []
    for k in range(2):
        outs.append(x * k)
    return tuple(outs)
