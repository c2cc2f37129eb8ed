"""Index values and padded reads in Triton: a padded read is a masked
tl.load, the tile's mask and the guard's ranges joined, other= the fill
(-inf here); an index value is its expression of the axis variables, as
loads print their indices (a causal mask, a cat along the reduced axis)."""
import torch
import torch.nn.functional as F


def cat_pad(a: "f32[6, 10]", b: "f32[6, 7]"):
    i = torch.arange(10)
    masked = torch.where(i[:6, None] >= i[None, :], a, float("-inf")).softmax(-1)
    return F.pad(a, (1, 2), value=float("-inf")), masked, torch.cat([a.exp(), b], 1).sum(1)
