# A while loop whose condition never becomes false is unrolled up to a limit.
# expect: FILE:5:5: error: this loop ran more than 10000 iterations: coil unrolls loops when compiling (does its condition ever become false?)
def f(x: "f32[8]"):
    n = 1
    while n > 0:
        n = n + 1
    return x * n
