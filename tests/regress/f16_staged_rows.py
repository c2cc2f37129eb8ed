# f16 loads and stores are staged: converted a vector block at a time by
# the CPU's converter into f32 blocks (sched.c, emit_c.c).  Before, every
# f16 value went through the prelude's bit arithmetic.  Here the parts a
# block converter could get wrong: rows whose length is no multiple of the
# 64 lanes (scalar tails after the blocks), x chunks of 256 with a short
# last one, a chain (rms norm: staged loads in both kernels, a staged
# weight and a staged store), and rows too short to stage beside them.
import torch


def staged_rows(x: "f16[300, 1000]", w: "f16[1000]", y: "f16[5, 4133]", s: "f16[40, 8]"):
    xf = x.float()
    rms = (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6) * w.float()).half()
    yf = y.float()
    return rms, yf.sum(-1), (yf * yf).amax(-1).half(), s.float().sum(-1).half()
