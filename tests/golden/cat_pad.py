# coil: dump -d fuse,kernel
# Index values and padded reads.  A cat of two computed tensors is one
# kernel: each producer is inlined under its piece's guard (its loads read
# only inside their buffer), and the cat's where on the index picks between
# them with no other select (the branch's facts imply each piece's range).
# A pad of a buffer is one guarded load with the fill; a pad of a computed
# value selects its fill by index values; slice_scatter's source is a
# guarded load under a range of the index; a cat along the reduced axis
# feeds the sum in one group.
import torch
import torch.nn.functional as F


def cat_pad(a: "f32[4, 5]", b: "f32[4, 3]", c: "f32[4, 70]"):
    y = torch.cat([a.exp(), b * 2], dim=1)
    return (y, F.pad(a, (2, 1), value=-1.0), F.pad(a.sigmoid(), (0, 0, 1, 0)), a.slice_scatter(b, 1, 1, 4),
            torch.cat([a, c], 1).sum(1))
