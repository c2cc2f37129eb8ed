# A permute with a repeated dim.
# expect: FILE:4:22: error: permute: dim 0 repeats
def f(x: "f32[2, 3]"):
    return x.permute(0, 0)
