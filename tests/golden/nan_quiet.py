# coil: dump -d graph
# Which float amax and amin no output needs the NaN of (nanquiet.c): a NaN
# in the row reaches every output that uses them by another way (a sum of
# exp(x - m) over the same dims), so the GPU dialect may reduce them with
# tl.max alone.  Quiet: logsumexp's row max, softmax's (the max of y over
# dim 1), and a max added to its row's sum (of the same node: x.abs()
# written twice is two nodes, and the proof does not look through them).  Not quiet: an amin that
# is an output; the max of y over dim 0, whose exp(y - m) is an output
# without a sum (a NaN-free m leaves the row's other points finite); a max
# whose exp(x - m) is summed over other dims than the max's; a max that
# picks an index; maxima that another row reads, flipped or summed over the
# rows (a NaN-free row would add another row's dropped NaN).
import torch


def nan_quiet(x: "f32[6, 40]", y: "f32[6, 40]", t: "f32[6, 40]", u: "f32[6, 40]", v: "f32[6, 40]"):
    m = x.amax(1, keepdim=True)
    lse = ((x - m).exp().sum(1, keepdim=True).log() + m).squeeze(1)
    soft = torch.softmax(y, 1)
    a = x.abs()
    plus = a.amax(1) + a.sum(1)
    low = x.amin(1)
    e = (y - y.amax(0, keepdim=True)).exp()
    other = (t - t.amax(1, keepdim=True)).exp().sum(0)
    i = (t * 2).amax(1).clamp(0, 5).long()
    mu = u.amax(1, keepdim=True)
    flipped = ((u - mu).exp().sum(1, keepdim=True) + mu.flip(0)).squeeze(1)
    mv = v.amax(1, keepdim=True)
    total = (v - mv).exp().sum(1) + mv.sum()
    return lse, soft, plus, low, e, other, x[i], flipped, total
