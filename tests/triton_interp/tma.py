"""Functions whose loads take tensor descriptors in the GPU dialect with
--gpu-loads tma (tests/suites/triton_emit.sh runs them in every dialect):
a split whose last chunk passes the end of the range, x blocks wider than
the x axis, two reduction groups with descriptors, a sliced input (a base
offset and a padded row stride), f16 / f64 / i32 boxes, and the seed's
pattern (a permuted input read through a merged 2-D view); inputs handed
over as strided views (stride(...)), whose descriptors take the caller's
strides."""
import torch


def split_tail(x: "f32[3000, 64]", w: "bf16[3000, 64]"):
    # 64 outputs: the 3000 rows split into chunks of whole RBLOCKs, the last passing 3000
    return (x * w.float()).sum(0), x.amax(0)


def x_tail(x: "f32[700, 40] uniform(-3, -1)"):
    # XBLOCK 64 over 40 columns: the copy reads zeros past 40, lanes never stored
    return x.sum(0), x.amax(0), (x * x).sum(0)


def two_groups(a: "f32[2000, 32]", b: "f32[96, 32]"):
    return a.sum(0) + b.amax(0), (a * 2).sum(0) - b.sum(0)


def sliced(x: "f32[513, 68]"):
    # base offset 72 elements (288 bytes), row stride 68 (272 bytes)
    return x[1:, 4:].sum(0)


def kinds(h: "f16[1000, 32]", d: "f64[1000, 32]", i: "i32[1000, 32]"):
    return h.sum(0), d.sum(0), i.sum(0), (h.float() * d).amax(0)


def permuted(g: "f32[2, 8, 64, 32]", q: "bf16[2, 64, 8, 32]"):
    # the seed's access: g read as (b, s, h) with h and s swapped
    return (g.permute(0, 2, 1, 3) * q.float()).sum(dim=(0, 1, 2))


def strided_rows(x: "f32[512, 64] stride(68, 1)"):
    # rows 68 elements (272 bytes) apart in the caller's buffer: the descriptor's row stride
    return x.sum(0), x.amax(0)


def permuted_view(g: "f32[2, 64, 8, 32] stride(16384, 32, 2048, 1)", q: "bf16[2, 64, 8, 32]"):
    # permuted above, with g handed over as the permuted view itself
    return (g * q.float()).sum(dim=(0, 1, 2))
