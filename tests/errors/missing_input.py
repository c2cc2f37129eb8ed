# --inputs names a directory without the parameter file.
# expect: error: cannot open /nonexistent-coil-dir/x.npy: No such file or directory
# args: --inputs /nonexistent-coil-dir
def f(x: "f32[4]"):
    return x.sum()
