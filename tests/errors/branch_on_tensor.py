# A branch on a tensor's values: coil knows shapes when compiling, not values.
# expect: FILE:4:16: error: 'if' needs the truth value of a tensor, which coil does not know when compiling: branch on shapes, dtypes and Python numbers, or compute both sides and pick with torch.where(cond, a, b)
def f(x: "f32[8]"):
    if x.sum() > 0:
        return x
    return -x
