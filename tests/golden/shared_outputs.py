# coil: dump -d fuse
# A returned value that another returned value is computed from (fuse.c's
# shared values): the kernel that stores it takes the other root too and
# computes it once for both, rather than storing it and reading it back in
# a second pass.  Shared: a normalised row and its scaled copy (one kernel,
# one read of x), and a root that reads the value at its own point and
# flipped (the flipped read is computed in the kernel too: its buffer is
# being written there).  Read from the buffer: by a root that reads it only
# flipped (at another point, computing it again would read its whole
# cone), by a reduction of it (another shape), and by a root that also
# waits for a kernel that waits for the shared value's (joining would close
# a cycle).
import torch


def shared_outputs(x: "f32[64, 128]", w: "f32[128]", y: "f32[64, 128]"):
    n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    scaled = n * w
    e = y.exp()
    both = e + e.flip(0)
    flipped = e.flip(0) + 1
    col = e.sum(0)
    total = e + e.amax(-1, keepdim=True)
    return n, scaled, e, both, flipped, col, total
