# coil: dump -d schedule
# Pins which f16 conversions are staged (converted a vector block at a time
# by the CPU's converter, sched.c): the rms norm's loads in both kernels of
# its chain, its weight and its f16 store, and the column sum's f16 store;
# not the loads that x-vectorised kernels read in their r loops (the column
# sum, the transposed rows: a vector per r point, no block to convert), nor
# rows of 8 (a block too short to be worth the copy), nor the f16 store of
# an f32 load as it is (a copy at memory speed either way).
import torch


def f16_staging(x: "f16[64, 256]", w: "f16[256]", c: "f16[300, 48]", t: "f16[256, 80]", s: "f16[512, 8]", y: "f32[24, 512]"):
    xf = x.float()
    rms = (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6) * w.float()).half()
    col = c.float().sum(dim=0).half()
    rows_t = t.t().float().sum(dim=-1)
    short = s.float().amax(dim=-1).half()
    return rms, col, rows_t, short, y.half()
