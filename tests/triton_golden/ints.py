"""Integers and bools: i64 sums of i32 and of bool, a product, integer
amax/amin identities, casts between them."""
import torch


def ints(i: "i32[6, 9] arange", b: "bool[6, 9]", s: "i64[6, 4]"):
    j = i - 30
    return j.sum(1), b.sum(1), (s + 1).prod(1), j.amax(1), (-j).amin(0), (j > 0).float().mean(1)
