# A file that is not .npy at all.
# expect: error: TMP/x.npy: not a .npy file (bad magic)
# setup: echo hello > x.npy
# args: --inputs TMP
def f(x: "f32[8]"):
    return x.sum()
