# coil: dump -d simplify
# Reshapes of contiguous data collapse back to affine loads; a reshape
# after a permute keeps a div/mod where it must.
def views(x: "f32[4, 6, 10]"):
    a = x.reshape(24, 10).sum(0)
    b = x.flatten(1).view(4, 3, 20).sum(1)
    c = x.transpose(1, 2).reshape(4, 60).sum(1)
    return a, b, c
