# A loop whose condition is a tensor's values.
# expect: FILE:4:20: error: 'while' needs the truth value of a tensor, which coil does not know when compiling: branch on shapes, dtypes and Python numbers, or compute both sides and pick with torch.where(cond, a, b)
def f(x: "f32[8]"):
    while x.amax() > 1:
        x = x / 2
    return x
