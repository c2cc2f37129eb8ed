# A composite op (lerp: several steps) whose operands do not broadcast: the
# first failing step's error, and no step after it runs on its missing
# result (the fuzzer found a crash there).
# expect: FILE:7:14: error: shapes [3,40] and [7] cannot broadcast: dimension 1 is 40 and 7
import torch
def f(a: "f32[3, 40]", b: "f32[3, 40]", w: "f32[7]"):
    return a.lerp(b, w)
