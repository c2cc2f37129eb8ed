# coil: dump -d fuse,simplify,schedule
# Two reductions of one shape share a kernel and a loop; the contiguous
# tail (dims 1, 2) merges into one axis; the row layout vectorises over r.
def stats(x: "f32[8, 5, 12]"):
    return x.sum(dim=(1, 2)), x.amax(dim=(1, 2)), x.mean(dim=(1, 2)) * 2
