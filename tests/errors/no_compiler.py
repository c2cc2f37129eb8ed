# No C compiler on PATH.
# expect: error: no C compiler: 'coil-no-such-cc' is not on PATH (set CC to a C11 compiler such as gcc or clang)
# env: CC=coil-no-such-cc
def f(x: "f32[8]"):
    return x.sum() * 3
