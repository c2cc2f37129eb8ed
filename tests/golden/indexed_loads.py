# coil: dump -d graph,fuse,kernel --fn f
# Indexed reads: the embedding's weight and the log_softmax are read where
# the indices say (load ... + stride*(v, checked in [0, size))), from
# buffers: the weight is an input, the log_softmax gets one (a gathered
# tensor is never computed at the data's points); the gathered values fuse
# into the reductions after them.  The sum at indices (an embedding's
# backward) is a sum over the indices of the values whose index is the
# point, with the indices checked by an indexed read of their range.
import torch
import torch.nn.functional as F


def f(w: "f32[10, 4]", ids: "i64[3] uniform(0, 10)", logits: "f32[3, 5]", t: "i64[3] uniform(0, 5)", g: "f32[3, 4]"):
    h = F.embedding(ids, w)
    picked = F.log_softmax(logits, -1).gather(1, t.unsqueeze(1))
    return (h * h).sum(1) - picked.squeeze(1), torch.zeros(10, 4).index_add(0, ids, g)
