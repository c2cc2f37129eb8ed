# 0.0 and -0.0 as constants of one kernel: lowering's hash-consing once
# compared constants with ==, so -0.0 became the 0.0 before it, and the C
# printer spelled -0.0 as "-0", the integer 0.  Half the outputs were +inf
# where PyTorch gives -inf.
# exact
import torch


def signed_zero(x: "f32[64, 33]"):
    z = torch.where(x > 0, 0.0, -0.0)
    return 1.0 / z, z
