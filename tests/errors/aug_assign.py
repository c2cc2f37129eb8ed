# Augmented assignment into a tensor's elements is an in-place change.
# expect: FILE:4:5: error: augmented assignment into a tensor changes it in place, which coil's subset does not do; write y = x op v with a new name (or torch.where)
def f(x: "f32[8]"):
    x[0] += 1
    return x
