# torch.nn.functional, math and float() as model code writes them; every
# function is checked against coil's reference and against PyTorch (ops.sh).
import math

import torch
import torch.nn.functional as F
from torch.nn import functional as nnf


def activations_f32(x: "f32[6, 129] uniform(-6, 6)"):
    return (F.relu(x), F.relu6(x), F.leaky_relu(x, 0.2), F.elu(x), F.selu(x), F.celu(x, alpha=0.5),
            F.silu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.softplus(x), F.softplus(x, beta=2.0, threshold=5.0),
            F.mish(x), F.softsign(x), F.hardtanh(x), F.hardtanh(x, -2.0, 3.0), F.hardsigmoid(x), F.hardswish(x),
            F.logsigmoid(x), F.threshold(x, 0.5, -1.0), F.sigmoid(x), F.tanh(x), nnf.relu(x, inplace=True))


def activations_bf16(x: "bf16[4, 200] uniform(-8, 8)"):
    return F.silu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.mish(x), F.softplus(x), F.hardswish(x), F.elu(x)


def activations_f16(x: "f16[3, 64] uniform(-5, 5)"):
    return F.silu(x), F.gelu(x), F.logsigmoid(x), F.leaky_relu(x)


def activations_extreme(x: "f64[9, 33] uniform(-60, 60)"):
    # far tails: exp over- and underflow, softplus's threshold
    return F.softplus(x), F.logsigmoid(x), F.mish(x), F.elu(x), F.gelu(x), F.silu(x)


def softmax_family(x: "f32[5, 37]"):
    return (F.softmax(x, dim=-1), F.log_softmax(x, 1), F.softmin(x, dim=0),
            F.softmax(x, -1, dtype=torch.float64))


def glu_halves(x: "f32[4, 10, 6]"):
    return F.glu(x), F.glu(x, dim=1)


def transcendental(x: "f32[7, 65] uniform(-4, 4)", p: "f32[65] uniform(0.1, 30)"):
    return torch.erf(x), x.sin(), torch.cos(x), torch.exp2(x), p.log2(), x.erf().sum(-1)


def math_constants(x: "f32[8, 16]"):
    scale = 1.0 / math.sqrt(x.shape[-1])
    bias = math.log(2.0) + math.pi / 4 - math.e * math.cos(0.0) + math.tau
    big = max(x.shape[0], 3) * min(2.5, abs(-4)) + int(7.9) + float(2)
    return x * scale + bias, torch.where(x > 1, float("inf"), x), torch.clamp(x, min=float("-inf"), max=big)


def rotary(x: "f32[2, 8, 16]", cos: "f32[8, 8]", sin: "f32[8, 8]"):
    # rotary embedding as model code writes it: halves rotated, cos/sin broadcast
    x1 = x[..., :8]
    x2 = x[..., 8:]
    return x1 * cos - x2 * sin, x2 * cos + x1 * sin


def layer_norms(x: "f32[4, 6, 96]", w: "f32[96]", b: "f32[96]"):
    return (F.layer_norm(x, (96,), w, b), F.layer_norm(x, [6, 96], eps=1e-3), F.rms_norm(x, (96,), w),
            F.rms_norm(x, [96], eps=1e-5))


def layer_norms_bf16(x: "bf16[8, 128]", w: "bf16[128]", b: "bf16[128]"):
    return F.layer_norm(x, (128,), w, b), F.rms_norm(x, (128,), w)


def vector_norms(x: "f32[5, 40]"):
    return (torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, dim=-1), torch.linalg.vector_norm(x, 1, dim=1),
            torch.linalg.vector_norm(x, float("inf"), dim=0, keepdim=True), torch.linalg.vector_norm(x, -math.inf, dim=1),
            torch.linalg.vector_norm(x, 3.5, dim=1), x.norm(), x.norm(dim=1), x.norm(p=1, dim=0), F.normalize(x),
            F.normalize(x, p=1.0, dim=0))


def losses(x: "f32[6, 17]", y: "f32[6, 17]"):
    return (F.mse_loss(x, y), F.l1_loss(x, y, reduction="sum"), F.smooth_l1_loss(x, y), F.smooth_l1_loss(x, y, beta=0.5),
            F.huber_loss(x, y, delta=0.7), F.mse_loss(x, y, reduction="none"), F.huber_loss(x, y, "sum"))


def statistics(x: "f32[6, 33]"):
    v, m = torch.var_mean(x, dim=1)
    s, m2 = torch.std_mean(x, 0, correction=0, keepdim=True)
    return v, m, s, m2, (x > 0).all(1), (x > 1).any(), torch.count_nonzero(x > 0.5, dim=0), x.all(), x.any(dim=0)


def nan_reductions(x: "f32[5, 12]"):
    y = torch.where(x > 1, float("nan"), x)
    return y.nansum(1), torch.nanmean(y, dim=0), y.nansum()


def rounding(x: "f32[6, 50] uniform(-4, 4)", h: "f32[6, 50] uniform(-8, 8)", i: "i32[6, 50]"):
    t = torch.round(h * 2) / 2  # ties at every .5
    return (x.floor(), torch.ceil(x), x.trunc(), torch.frac(x), torch.round(x), torch.round(t), t.round(decimals=0),
            torch.round(x, decimals=2), torch.round(h * 100, decimals=-1), torch.sign(x), x.sgn(), i.floor(),
            torch.sign(i), (t * 0).round(), torch.round(x - x - 0.3))


def rounding_bf16(x: "bf16[4, 64] uniform(-100, 100)"):
    return x.floor(), x.ceil(), x.round(), x.trunc(), x.frac()


def classes(x: "f32[5, 9]", i: "i64[5, 9]"):
    y = torch.where(x > 1, float("inf"), torch.where(x < -1, -math.inf, x))
    z = torch.where(x.abs() < 0.3, float("nan"), y)
    return (z.isnan(), torch.isinf(z), torch.isfinite(z), torch.isposinf(z), torch.isneginf(z), torch.nan_to_num(z),
            z.nan_to_num(nan=-7.0, posinf=100.0), torch.isfinite(i), i.isnan(), torch.nan_to_num(z.half()))


def fills(x: "f32[4, 6]", m: "bool[4, 6]", r: "bool[6]"):
    return (x.masked_fill(m, -1.5), x.masked_fill(r, float("-inf")), torch.zeros(4, 6) + x, torch.ones((2, 3), dtype=torch.int64),
            torch.full((4, 6), 2.5) * x, torch.full((3,), 7), torch.zeros_like(x), torch.ones_like(m), torch.full_like(x, -3))


def interpolation(a: "f32[3, 40]", b: "f32[3, 40]", w: "f32[40] uniform(-0.5, 1.5)"):
    return (torch.lerp(a, b, 0.3), a.lerp(b, w), torch.addcmul(a, a, b, value=0.5), a.addcdiv(b, w + 2.0),
            torch.lerp(a.bfloat16(), b.bfloat16(), 0.75))


def pieces(x: "f32[6, 10, 4]"):
    a, b, c = x.chunk(3, dim=1)  # 4, 4, 2
    p, q = torch.split(x, [2, 4])
    r = x.split(4, dim=1)
    rows = x.unbind(2)
    return (a.sum(1), b * 2, c, p, q.amax(0), r[2], rows[0] - rows[3], x.select(1, -1), torch.select(x, 0, 2),
            torch.chunk(x, 4, dim=2)[3])


def repeats(x: "f32[3, 5]", v: "bf16[4]"):
    return (x.repeat(2, 3), x.repeat(2, 1, 2), torch.tile(x, (2,)), v.tile((3, 2)), x.movedim(0, 1),
            torch.moveaxis(x.unsqueeze(0), (0, 1), (2, 0)), x.view_as(x.t()), x.reshape_as(torch.zeros(15)))


def edges(x: "f32[6, 40]", h: "bf16[6, 40]", i: "i32[6, 40]"):
    # A bf16 or f16 tensor compared with a Python float compares with the float
    # rounded to its dtype (bf16 x < 0.8 is x < 0.80078125); threshold keeps NaN
    # and gives value for -inf; any and all over dim=() reduce no dim; None is
    # the default of var's correction and of nan_to_num's nan; logical_not and
    # bitwise_not of integers.
    y = torch.where(x > 1.2, float("inf"), torch.where(x < -1.2, float("-inf"), x))
    y = torch.where(x.abs() < 0.1, float("nan"), y)
    t = F.threshold(y, 0.1, -3.0)
    return (h < 0.8, h >= -1.2, h == 0.1, h.half() > 0.1, 0.8 < h.half(), t.isnan(), torch.nan_to_num(t, nan=-7.0),
            torch.any(i, dim=()), torch.all(x, dim=()), torch.any(i, dim=1), torch.var(x, 1, correction=None),
            torch.nan_to_num(y, nan=None, posinf=1.0), torch.logical_not(i), torch.logical_not(y), torch.bitwise_not(i))


def alpha_and_rounding(x: "f32[5, 12]", y: "f32[12]", h: "bf16[5, 12]", i: "i32[5, 12]"):
    # add and sub with alpha (x + alpha * y, rounded once); div with
    # rounding_mode='trunc' (the quotient truncated before it is rounded)
    return (torch.add(x, y, alpha=2.5), torch.sub(h, x, alpha=0.5), x.add(y, alpha=-1), torch.add(i, i, alpha=3),
            torch.sub(h, 0.1, alpha=2), torch.div(x, y, rounding_mode="trunc"), h.div(0.3, rounding_mode="trunc"),
            torch.div(x, 2, rounding_mode=None), torch.full((2, 3), 1.5), torch.zeros_like(h), torch.where(x > 0, x, y))
