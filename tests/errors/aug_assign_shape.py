# x += y keeps x's shape: a result that broadcasts wider cannot be written back.
# expect: FILE:4:7: error: '+=' keeps the shape of 'x' ([4,1]), as PyTorch does, but the result broadcasts to [4,8]
def f(x: "f32[4, 1]", y: "f32[4, 8]"):
    x += y
    return x
