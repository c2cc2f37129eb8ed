# binary_cross_entropy with a target of another shape.
# expect: FILE:6:48: error: binary_cross_entropy: target size [4] must be the same as input size [3,4]
import torch.nn.functional as F

def f(x: "f32[3, 4]", t: "f32[4]"):
    return F.binary_cross_entropy(x.sigmoid(), t)
