# No function has annotations, and no --arg is given.
# expect: error: FILE: no function has all its parameters annotated with shapes like x: "f32[4, 8]" (functions: f); annotate one, or give --fn NAME and --arg NAME=DTYPE[d0,...]
def f(x):
    return x.sum()
