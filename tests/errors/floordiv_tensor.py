# Floor division of tensors.
# expect: FILE:4:14: error: operator '//' on tensors is not in coil's subset
def f(x: "f32[8]"):
    return x // 2
