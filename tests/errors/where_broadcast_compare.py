# The same where inside a comparison: a tensor value without a tensor
# reached the comparison's type promotion and coil crashed (found by the
# front end's libFuzzer target in CI).
# expect: FILE:6:36: error: shapes [2,7] and [5,7] cannot broadcast: dimension 0 is 2 and 5
def f(m: "bool[2, 7]", n: "bool[7]", x: "f32[5, 7]"):
    return (m | ~n).sum(0) < torch.where(m, x, 0.5)
