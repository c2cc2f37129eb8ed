# group_norm with a number of groups that does not divide the channels.
# expect: FILE:6:28: error: Expected number of channels in input to be divisible by num_groups, but got input of shape [2,6,5] and num_groups=4
import torch.nn.functional as F

def f(x: "f32[2, 6, 5]"):
    return F.group_norm(x, 4)
