# coil: dump -d schedule
# Which groups compute exp, log and sigmoid in their fast forms (CSched.
# fast_math), checked per value and run again exactly when off range: those
# that compute an f32 or f64 (or bf16, computed in f32) exp, log or sigmoid
# per element, r-vectorised (k0, k1, k5, k6: a chunk runs again) or
# x-vectorised (k3, a column sum: a block of r points runs again).  Not: an
# exp of a value that does not vary along the vector loop (k2: exp(w) is
# computed once per row), a group without any of them (k4).
import torch


def fast_math(x: "f32[64, 256]", d: "f64[32, 256]", w: "f32[48]", c: "f32[48, 256]", t: "f32[80, 96]",
              h: "bf16[16, 512]", g: "f32[24, 100]"):
    return (torch.log(x.abs() + 1).sum(-1), torch.exp(d).sum(-1), (torch.exp(w).unsqueeze(-1) * c).sum(-1),
            torch.exp(t).sum(0), t.sum(-1), torch.exp(h).sum(-1),
            torch.sigmoid(g).sum(-1))
