# batch_norm in training mode with running stats: PyTorch would update them
# in place; coil's functions are pure, so this is refused, not skipped.
# expect: FILE:7:28: error: batch_norm: running stats are updated in place when training=True, which coil's pure functions do not do; pass running_mean=None and running_var=None (batch statistics only), or compute the update and return it
import torch.nn.functional as F

def f(x: "f32[4, 3, 5]", rm: "f32[3]", rv: "f32[3]"):
    return F.batch_norm(x, rm, rv, training=True)
