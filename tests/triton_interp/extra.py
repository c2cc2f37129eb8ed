"""Functions for the Triton backends' interpreter runs that examples/ and
tests/run/ do not reach: the coil_pow and coil_ipow helpers (exponents other
than 0.5, +-1, 2, 3, and tensor exponents), tanh in f64 and f16, NaN through amax/amin/sum, f16 and
bf16 results rounded after every op, bool reductions, and a kernel with two
reduction groups of different axes; amax and amin with NaN in some rows,
infinities, signed zeros and f64."""
import torch


def powers(i: "i32[5, 7] arange", x: "f32[7, 5]", d: "f64[3, 5] uniform(0.5, 2)"):
    return i ** 5, (i - 17) ** 4, x ** 1.7, x ** 4.0, d ** 2.5, d ** -0.5, (x.abs() + 1) ** -2.25


def tensor_powers(x: "f32[6, 40]", y: "f32[6, 40]", n: "i64[6, 40]", h: "bf16[6, 40]"):
    return ((x * 3) ** n.float(), x.abs() ** (y + 0.25), 2 ** y, torch.pow(2.5, n), n ** n.abs(), n ** (n - 1),
            1.1 ** h, (x.abs() ** y).sum(1))


def tanh_kinds(d: "f64[9, 33]", h: "f16[4, 33]", x: "f32[3, 1025] uniform(-0.7, 0.7)"):
    return d.tanh(), d.tanh().sum(1), h.tanh(), (h * 3).tanh().amax(0), x.tanh(), (x * 20).tanh().sum(1)


def nan_reductions(x: "f32[6, 37] uniform(-0.03, 1)"):
    y = x.log()  # NaN where x < 0: some rows have one, some not
    return y.amax(1), y.amin(0), y.sum(1), torch.maximum(y, x), torch.minimum(x, y)


def half_rounding(a: "bf16[7, 19]", h: "f16[7, 19]"):
    return (a * 1.1 + 0.25).sum(1), a * a - 1, h * h + h, (h / 3).amax(1), (a + h).mean(0)


def bool_reductions(b: "bool[5, 23]", x: "f32[5, 23]"):
    return b.sum(1), (x > 0).sum(0), (b & (x > 0)).sum(), (b | (x < -1)).int().amax(1)


def two_groups(x: "f32[8, 30]", y: "f32[8, 3, 5]"):
    return x.sum(1) * y.amax(dim=(1, 2)), y.sum(dim=(1, 2)) - x.amin(1)


def negative_extremes(x: "f32[6, 37] uniform(-3, -1)"):
    # every value is negative (or, negated, positive): a masked lane that
    # contributed 0 would win each amax and amin
    return x.amax(1), (-x).amin(1), x.amax(0)


def amax_edges(x: "f32[6, 300]", d: "f64[5, 77]", z: "f32[4, 9] uniform(-1, 1)"):
    # NaN in some rows (a NaN wins), +-inf, f64, all-negative rows, and
    # -0.0 beside +0.0
    x = torch.where(x > 2.8, float("nan"), torch.where(x < -2.6, float("-inf"), torch.where(x > 2.5, float("inf"), x)))
    d = torch.where(d > 2.2, float("nan"), torch.where(d < -2.0, float("-inf"), d))
    s = torch.where(z > 0, 0.0, -0.0)
    return (x.amax(1), x.amin(1), d.amax(1), d.amin(1), (-x.abs()).amax(1), x.abs().amin(1), (-d.abs()).amax(1), s.amax(1) * 5,
            s.amin(1) - 1, (-(x.abs()) - 1).amax(1))


def quiet_maxima(x: "f32[6, 300]", h: "bf16[5, 77]"):
    # maxima no output needs the NaN of (src/nanquiet.c; the GPU dialect
    # reduces them with tl.max alone): rows with a NaN, one all NaN, one
    # with +inf and one with -inf beside numbers
    row = torch.arange(6)[:, None]
    col = torch.arange(300)[None, :]
    x = torch.where(x > 3.0, float("nan"), x)
    x = torch.where(row == 0, float("nan"), torch.where((row == 1) & (col == 7), float("inf"), x))
    x = torch.where((row == 2) & (col == 9), float("-inf"), x)
    m = x.amax(1, keepdim=True)
    lse = ((x - m).exp().sum(1, keepdim=True).log() + m).squeeze(1)
    hf = h.float()
    hf = torch.where(hf > 2.5, float("nan"), hf)
    return lse, torch.softmax(x, 1), torch.log_softmax(hf, 1), torch.logsumexp(hf, 1), x.amax(1) + x.sum(1)


def loud_maxima(u: "f32[6, 40]", v: "f32[6, 40]"):
    # maxima that another row reads (flipped, summed over the rows): they
    # must keep their NaN, or a NaN-free row comes out finite where eager
    # gives NaN
    u = torch.where(u > 2.0, float("nan"), u)
    v = torch.where(v > 2.2, float("nan"), v)
    mu = u.amax(1, keepdim=True)
    mv = v.amax(1, keepdim=True)
    return ((u - mu).exp().sum(1, keepdim=True) + mu.flip(0)).squeeze(1), (v - mv).exp().sum(1) + mv[:3].sum()
