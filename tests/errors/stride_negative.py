# A negative stride (a flipped view): coil's strides are 0 or more.
# expect: FILE:3:45: error: x: strides must not be negative (0 repeats an element, as expand does) (expected a spec like "f32[4, 8] stride(1, 4)")
def f(x: "f32[4, 8] uniform(0, 1) stride(1, -4)"):
    return x.sum(0)
