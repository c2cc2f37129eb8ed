# torch.where whose operands cannot broadcast, returned as it is: the
# broadcast error with its position (it was lost, and "graph verifier:
# output 0 missing" came out instead).
# expect: FILE:6:18: error: shapes [2,7] and [5,7] cannot broadcast: dimension 0 is 2 and 5
def f(m: "bool[2, 7]", x: "f32[5, 7]"):
    return torch.where(m, x, 0.5)
