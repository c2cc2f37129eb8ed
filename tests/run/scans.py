"""Scans: cumsum, cumprod, logcumsumexp, cummax and cummin along one dim, in
every dtype, against PyTorch.  Axes short enough for the dense form (up to
32) and longer ones cut into blocks of 16, one level (70) and several (1000,
600: the totals of the blocks are scanned by blocks again), with a last
block that padding fills; every dim of a 3-d tensor, negative dims, a
permuted view, a 0-d tensor and a dim of size 1.  cummax and cummin follow
PyTorch's loop: ties go to the later element, a NaN to the last NaN, and the
value is the element at the index (so -0 and +0 are told apart).  Ties come
from floors of small ranges; NaN, +-inf and -0 are put in by where.  The
comparison with PyTorch takes no NaN in an output, so values that may hold
one come through seen().  Scans fused with pointwise work: position ids from
an attention mask, an exclusive cumsum, a normalised cumulative sum."""
import torch


def seen(y):
    """y's NaNs as a mask, and 1 / y elsewhere (-0 -> -inf, inf -> 0)."""
    n = y.isnan()
    return n, torch.where(n, 7.0, 1.0 / y)


def cumsum_forms(x: "f32[5, 70]", y: "f32[3, 4, 5]"):
    return (torch.cumsum(x, 1), x.cumsum(0), x.cumsum(dim=-1), torch.cumsum(x, 1, dtype=torch.float64),
            y.cumsum(0), y.cumsum(1), torch.cumsum(y, -1), y.permute(2, 0, 1).cumsum(0))


def cumsum_long(x: "f32[2, 1000]", h: "bf16[3, 600]", f: "f16[600, 2] uniform(0, 1)", d: "f64[2, 333]"):
    return x.cumsum(1), h.cumsum(-1), f.cumsum(0), d.cumsum(1), torch.cumsum(h, 1, dtype=torch.float32)


def cumsum_ints(a: "i32[4, 100]", b: "i64[3, 40]", m: "bool[2, 77]"):
    """Ints and bools sum to int64 unless a dtype is given (int32 wraps)."""
    big = a * 40000000
    return (a.cumsum(1), torch.cumsum(b, 0), m.cumsum(-1), torch.cumsum(big, 1, dtype=torch.int32),
            big.cumsum(1), m.cumsum(0, dtype=torch.float32))


def cumprod_forms(x: "f32[4, 45] uniform(0.5, 1.5)", z: "f32[3, 9]", a: "i64[3, 70] uniform(-2, 3)",
                  m: "bool[2, 40] uniform(0, 1)", h: "bf16[2, 50] uniform(0.8, 1.25)"):
    """Products of numbers near 1 over long axes, a zero that holds from where it
    appears, ints that wrap, bools (int64)."""
    zero = torch.where(z > 1.0, 0.0, z)
    return (x.cumprod(1), torch.cumprod(x, 0), zero.cumprod(1), a.cumprod(1), m.cumprod(1), h.cumprod(-1),
            torch.cumprod(a, 0, dtype=torch.float64))


def logcumsumexp_forms(x: "f32[4, 100]", h: "bf16[3, 40]", d: "f64[2, 9]", y: "f32[3, 4, 50]"):
    neg = torch.where(x < -1.0, float("-inf"), x * 30.0)
    return (torch.logcumsumexp(x, 1), x.logcumsumexp(0), neg.logcumsumexp(1), h.logcumsumexp(-1), d.logcumsumexp(1),
            y.logcumsumexp(1), torch.logcumsumexp(y, 2))


def logcumsumexp_edges(x: "f32[3, 70]"):
    """+inf stays +inf from where it appears, a row of -inf stays -inf, a NaN
    spreads; values 80 apart."""
    e = torch.where(x > 1.5, float("inf"), x * 80.0)
    e = torch.where(x < -1.6, float("nan"), e)
    rows = torch.where(torch.arange(70) < 40, float("-inf"), x)
    return seen(e.logcumsumexp(1)) + (rows.logcumsumexp(1),)


def cummax_forms(x: "f32[5, 70]", y: "f32[3, 4, 5]"):
    v, i = x.cummax(1)
    r = torch.cummin(x, 0)
    w = torch.cummax(y, -2)
    return v, i, r.values, r.indices, w[0], w[1], y.cummin(2).indices, y.permute(2, 0, 1).cummax(0).values


def cummax_ties(x: "f32[6, 90] uniform(0, 3)", a: "i32[4, 50] uniform(0, 4)", m: "bool[3, 37] uniform(0, 1)",
                h: "bf16[2, 40] uniform(0, 3)"):
    """Few distinct values: ties everywhere, the later index wins."""
    t = x.floor()
    hf = h.floor()
    out = ()
    for r in (t.cummax(1), t.cummin(1), t.cummax(0), a.cummax(1), a.cummin(0), m.cummax(1), m.cummin(1), hf.cummax(-1),
              hf.cummin(-1)):
        out = out + (r.values, r.indices)
    return out


def cummax_edges(x: "f32[4, 80]"):
    """NaN, +-inf and -0 among the values: the last NaN's index once one is
    seen; -0 and +0 tie, and the value is the later one's."""
    e = torch.where(x > 1.2, float("nan"), x)
    e = torch.where(x < -1.2, float("-inf"), e)
    e = torch.where((x > 0.8) & (x < 1.0), float("inf"), e)
    e = torch.where((x > -0.3) & (x < -0.1), -0.0, e)
    e = torch.where((x > 0.1) & (x < 0.3), 0.0, e)
    v, i = e.cummax(1)
    w, j = e.cummin(1)
    return seen(v) + (i,) + seen(w) + (j,)


def scan_small(x: "f32[4, 1]", y: "f32[3, 5]", s: "i64[3, 2]"):
    """A dim of size 1, a 0-d tensor, a scan of a reduction."""
    z = y.sum()
    m = s.sum()
    return (x.cumsum(1), x.cummax(1).indices, z.cumsum(0), z.cummax(-1).values, z.cummin(0).indices, m.cumsum(0),
            y.sum(1).cumsum(0), y.amax(0).cummax(0).indices)


def position_ids(mask: "i64[4, 300] uniform(0, 2)"):
    """Hugging Face's position ids from an attention mask."""
    pos = mask.long().cumsum(-1) - 1
    return pos.masked_fill(mask == 0, 1)


def scans_fused(x: "f32[8, 130]", w: "f32[130]"):
    """An exclusive cumsum, a cumulative share of the row's total, a running
    max shift (a stable cumulative softmax denominator)."""
    excl = x.cumsum(1) - x
    share = (x.abs() * w).cumsum(1) / (x.abs() * w).sum(1, keepdim=True)
    m = x.cummax(1).values
    den = torch.exp(x - m).cumsum(1)
    return excl, share, den, torch.logcumsumexp(x, 1) - x.logsumexp(1, keepdim=True)
