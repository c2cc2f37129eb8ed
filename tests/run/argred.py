"""Arg-reductions: torch.argmax and argmin (dim=None over the flattened
tensor, a dim, keepdim), x.max(dim) and x.min(dim) as (values, indices)
(unpacked, indexed, and by .values and .indices), x.max() and torch.max(x,
other), torch.aminmax, in every dtype.  PyTorch's rules: the first index
wins a tie, a NaN wins (the first NaN's index) for max and min alike, and
the value is the one at the index (so -0 and +0 are told apart).  Ties come
from small int ranges and rounding; the reduced dim of size 1, negative
dims, odd sizes, a permuted view reduced over every dim (the loops run in
memory order, the index stays PyTorch's), a column reduction, a reduction
long enough for the C schedule to split it, and arg-reductions fused with
pointwise work before and after (top-1 accuracy, an absmax scale).  The
comparison with PyTorch takes no NaN in an output, so values that may hold
one come through seen()."""
import torch


def edges(x):
    """x with NaN, +inf, -inf and -0 among its values."""
    x = torch.where(x > 1.2, float("nan"), x)
    x = torch.where(x < -1.2, float("-inf"), x)
    x = torch.where((x > 0.8) & (x < 1.0), float("inf"), x)
    return torch.where((x > -0.3) & (x < -0.1), -0.0, x)


def seen(y):
    """y's NaNs as a mask, and 1 / y elsewhere (-0 -> -inf, inf -> 0)."""
    n = y.isnan()
    return n, torch.where(n, 7.0, 1.0 / y)


def argmax_forms(x: "f32[5, 7, 9]"):
    return (x.argmax(), x.argmax(1), torch.argmax(x, dim=-1), x.argmax(dim=0, keepdim=True), torch.argmin(x),
            x.argmin(2), torch.argmin(x, -2, keepdim=True), x.argmax(keepdim=True), torch.argmax(x, None))


def max_min_forms(x: "f32[5, 7, 9]", y: "f32[7, 9]"):
    v, i = x.max(1)
    r = torch.max(x, -1, keepdim=True)
    m = x.min(dim=0)
    w = torch.min(x, 2)
    return (v, i, r.values, r.indices, m[0], m[1], w.indices, w.values, x.max(), torch.min(x),
            torch.max(x, y), x.min(y), torch.max(x, dim=-3, keepdim=True).indices)


def aminmax_forms(x: "f32[6, 11]"):
    lo, hi = torch.aminmax(x)
    r = torch.aminmax(x, dim=1)
    k = torch.aminmax(x, dim=-2, keepdim=True)
    return lo, hi, r.min, r.max, k[0], k[1], torch.aminmax(x, keepdim=True).max


def float_ties(x: "f32[6, 33] uniform(0, 3)"):
    """Few distinct values (0, 1, 2): every row has ties."""
    t = x.floor()
    v, i = t.max(0)
    return t.argmax(1), t.argmin(1), t.argmax(), t.argmin(0), v, i, t.min(-1).indices, (t - 1).abs().argmin(1)


def int_ties(a: "i32[7, 40]", b: "i64[5, 33] uniform(0, 3)"):
    return ((a.argmax(1), a.argmin(0), a.min(1).indices, a.argmax(), b.argmax(-1), b.argmin(0), b.argmin())
            + a.max(-1) + b.max(0) + b.min(1) + torch.aminmax(b, dim=1))


def bool_max(m: "bool[6, 20]", n: "bool[5, 3]"):
    """max and min of bools (argmax refuses them, as PyTorch does)."""
    return m.max(1) + m.min(0) + torch.aminmax(m) + n.max(-1) + n.min(-1) + (m.max(),)


def half_types(a: "bf16[5, 37]", b: "f16[6, 29]"):
    ar, br = (a * 4).round(), (b * 2).round()
    return ((ar.argmax(1), ar.argmin(0), br.argmax(-1), br.argmin()) + ar.max(1) + ar.min(0) + br.max(0) + br.min(1)
            + torch.aminmax(ar, dim=0))


def f64_forms(x: "f64[4, 65]", y: "f64[3, 5, 7] uniform(0, 2)"):
    yf = y.floor()
    return (x.argmax(1), x.argmin(), yf.argmax(), yf.argmax(1)) + x.max(0) + x.min(-1) + yf.min(2) + yf.max(0)


def nan_edges(x: "f32[6, 40]"):
    """NaN wins in max and min alike, at its first index; -0 before +0 is
    the -0 (a value is the one at its index)."""
    e = edges(x)
    v, i = e.max(1)
    w, j = e.min(0)
    return (i, j, e.argmax(1), e.argmin(1), e.argmax(), e.argmin(), e.t().argmax(0), e.argmin(0, keepdim=True)) + seen(v) + seen(w)


def signed_zeros(x: "f32[4, 30]"):
    """Rows of only zeros and a NaN-free -0 / +0 mix: the first one's sign."""
    z = torch.where(x > 0, 0.0, -0.0)
    return (z.argmax(1), z.argmin(1)) + seen(z.max(1).values) + seen(z.min(1).values) + seen(z.max(0).values)


def nan_half(a: "bf16[4, 50]", b: "f16[5, 23]"):
    ea, eb = edges(a), edges(b)
    return ((ea.argmax(1), ea.argmin(1), eb.argmax(0), eb.argmin(0), ea.argmax(), eb.argmin())
            + seen(ea.max(1).values.float()) + seen(eb.min(0).values.float()))


def size_one(x: "f32[4, 1, 6]", y: "f32[1]", z: "f32[1, 1]"):
    """A reduced dim of size 1: index 0 and the value itself."""
    v, i = x.max(1)
    return (x.argmax(1), x.argmin(-2, keepdim=True), v, i, y.argmax(), z.argmin(), x.argmax(), x.argmax(2)) + y.max(0) + z.min(1)


def zero_dim(s: "f32[]", x: "f32[3]"):
    """A 0-d tensor: index 0 (dim 0 or -1, or none) and its value."""
    v, i = s.max(0)
    return s.argmax(), s.argmin(0, keepdim=True), v, i, torch.aminmax(s)[1], x.sum().argmax(), s.max(-1, keepdim=True).indices


def permuted(x: "f32[5, 6, 7]", s: "f32[4, 9, 6] stride(1, 24, 4)", u: "i32[4, 9, 6] uniform(0, 3)"):
    """dim=None over a permuted view is over its own (logical) order, while
    the loops read memory in order: with ties (u) and NaNs, the first in
    PyTorch's order, not in memory's, wins; a strided input alike."""
    p = x.permute(2, 0, 1)
    e = edges(x).transpose(0, 2)
    return (p.argmax(), p.argmin(), x.transpose(0, 2).argmax(1), p.argmax(-1), s.argmax(), s.argmin(1),
            s.transpose(1, 2).argmin(), x[:, 1:5].argmax(), x[1:4, :, 2:].argmin(1), u.permute(2, 0, 1).argmax(),
            u.transpose(0, 1).argmin(), u.permute(1, 2, 0).argmax(-1), e.argmax(), e.argmin(), e.argmax(1),
            (s > 0).int().argmax(), (s.floor() + 0.0).permute(2, 1, 0).argmin()) + s.max(2)


def columns(x: "f32[64, 37]", t: "i32[50, 19] uniform(0, 4)"):
    """Reductions along the outer dim (the C schedule's x-vectorised
    loops), with ties."""
    return (x.argmax(0), x.argmin(0), t.argmax(0), t.max(0).values) + x.max(0) + t.min(0)


def long_rows(x: "f32[2, 33000] uniform(0, 1000)", t: "i32[2, 65600] uniform(0, 50)"):
    """Rows long enough that the C schedule splits them (and Triton's):
    parts combined keep the first index of ties."""
    r = x.floor()
    return (r.argmax(), r.argmax(1), r.argmin(1), t.argmax(1), t.argmin(1), t.argmax()) + r.max(-1) + t.min(1)


def top1_accuracy(logits: "f32[12, 37]", target: "i64[12] uniform(0, 37)"):
    """(logits.argmax(-1) == target).float().mean(), and of the softmax."""
    pred = logits.argmax(-1)
    acc = (pred == target).float().mean()
    p = torch.softmax(logits, -1)
    conf, cls = p.max(-1)
    return acc, pred, conf, cls, (cls == target).sum()


def absmax_scale(x: "f32[8, 50]"):
    """A per-row absmax scale (int8 quantisation) by max(dim).values."""
    s = x.abs().max(-1, keepdim=True).values
    q = (x / s * 127).round().clamp(-127, 127)
    return s, q, x.abs().argmax(-1)


def chained(x: "f32[96, 50]", y: "f32[64, 4, 40]"):
    """Rows and column tiles of several kernels in one loop (the C
    schedule's chains): a row's absmax and its use, a channel max and its
    softmax beside the channel's argmin."""
    s = x.abs().max(-1, keepdim=True).values
    q = (x / s * 127).round()
    m = y.max(1, keepdim=True).values
    e = (y - m).exp()
    return q, q.argmax(-1), e / e.sum(1, keepdim=True), y.argmin(1)


def pointwise_around(x: "f32[6, 17]", y: "f32[6, 17]"):
    """Exact pointwise work before (a product, a sum) and after (casts,
    arithmetic on the index and the value)."""
    z = x * 2 + y
    v, i = z.max(1)
    j = (x - y).argmin(-1, keepdim=True)
    return i * 3 + 1, v * 2 - 1, i.float() / 17, j.to(torch.int32), (i == j.squeeze(1)).sum(), i.max(), v.argmax()

