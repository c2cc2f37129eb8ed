# An arg-reduction over an empty dim has no element to point at.
# expect: FILE:4:25: error: argmax over dim 1, which has size 0: there is no element to point at (PyTorch raises here too)
def f(x: "f32[3, 0]"):
    return x.argmax(dim=1)
