"""The vocabulary of model code that is a composite of coil's ops (issue 22):
triu and tril, logaddexp and logaddexp2, xlogy, rsub, outer and ger,
diagonal, trace, diag and diag_embed, diff, deg2rad, rad2deg, heaviside and
sinc, as torch.X, Tensor.X and their ATen overloads, in the dtypes PyTorch
takes, with NaN, the infinities and -0 among the inputs.  The comparison
with PyTorch takes no NaN in an output, so an output that may hold one comes
as shown(): its isnan(), the values with NaNs made 0, and their signbit()."""
import torch

aten = torch.ops.aten


def shown(y):
    nan = torch.isnan(y)
    y = torch.where(nan, 0.0, y)
    return nan, y, torch.signbit(y)


def specials(x):
    # x in (-3, 3): +-inf at the ends, NaN near 2, -0 near 0
    v = torch.where(x > 2.5, float("inf"), x)
    v = torch.where(x < -2.5, float("-inf"), v)
    v = torch.where((x > 1.8) & (x < 2.1), float("nan"), v)
    return torch.where((x > -0.2) & (x < 0.1), -0.0, v)


def triangles(x: "f32[2, 5, 7]", m: "i32[6, 4] uniform(-9, 9)", b: "bool[3, 3]"):
    n = specials(x * 3)
    s = torch.ones(6, 6)
    causal = torch.triu(torch.full((6, 6), float("-inf")), diagonal=1)
    out = (torch.triu(x), x.tril(), torch.tril(x, -2), x.triu(3), torch.triu(x, -1), x.tril(diagonal=9), torch.triu(x, -9),
           torch.tril(m, 1), m.triu(-1), torch.triu(b), b.tril(1), torch.tril(s).sum(0), causal,
           torch.softmax(causal + x[0, :6, :6].sum(), -1))
    return out + shown(torch.triu(n, 1))


def log_add(a: "f32[4, 30] uniform(-3, 3)", b: "f32[4, 30] uniform(-3, 3)", c: "f32[30] uniform(-40, 40)"):
    sa, sb = specials(a), specials(b)
    # both -inf, both +inf, one of each, NaN; and far apart (exp underflows)
    out = (torch.logaddexp(a, b), a.logaddexp(c), torch.logaddexp2(a, b), b.logaddexp2(c), torch.logaddexp(a * 100, c),
           torch.logaddexp2(c, a * -100))
    return (out + shown(torch.logaddexp(sa, sb)) + shown(torch.logaddexp2(sa, sb)) + shown(torch.logaddexp(sa, sa))
            + shown(torch.logaddexp2(sb, sb)))


def log_add_dtypes(a: "bf16[3, 40] uniform(-5, 5)", b: "f16[3, 40] uniform(-5, 5)", c: "f64[3, 40] uniform(-5, 5)",
                   d: "f32[40] uniform(-5, 5)"):
    return (torch.logaddexp(a, a.flip(1)), torch.logaddexp2(b, b.flip(1)), torch.logaddexp(c, c.flip(0)), torch.logaddexp2(c, d),
            torch.logaddexp(a, b), torch.logaddexp2(a, d))


def xlogy_forms(x: "f32[4, 30] uniform(-3, 3)", y: "f32[4, 30] uniform(0, 5)", i: "i32[4, 30] uniform(-2, 3)",
                b: "bool[4, 30]"):
    sx, sy = specials(x), specials(y - 2)
    zero = torch.where(x > 0, 0.0, x)
    # 0 where x == 0 (log y = -inf or inf too), NaN where y is NaN (x == 0 too)
    out = (torch.xlogy(x, y), x.xlogy(y), torch.xlogy(x, 2.5), torch.xlogy(2, y), torch.xlogy(i, y), torch.xlogy(i, i * i),
           torch.xlogy(b, b), torch.xlogy(b, y), torch.special.xlogy(x, y), torch.special.xlogy(3.0, y),
           torch.xlogy(zero, 0.0))
    return out + shown(torch.xlogy(sx, sy)) + shown(torch.xlogy(zero, sy)) + shown(torch.xlogy(0, sy))


def xlogy_dtypes(x: "bf16[3, 40] uniform(-3, 3)", y: "bf16[3, 40] uniform(0.01, 9)", h: "f16[3, 40] uniform(0.01, 9)",
                 d: "f64[3, 40] uniform(0.01, 9)"):
    return (torch.xlogy(x, y), torch.xlogy(x, 1.5), torch.xlogy(h, h), torch.xlogy(d, y), torch.xlogy(y, h), torch.xlogy(d, d))


def rsub_forms(x: "f32[5, 9] uniform(-3, 3)", y: "f32[9] uniform(-3, 3)", i: "i64[5, 9] uniform(-9, 9)",
               h: "bf16[5, 9] uniform(-3, 3)"):
    return (torch.rsub(x, y), torch.rsub(x, 2), torch.rsub(x, 1.5, alpha=3), torch.rsub(i, 7), torch.rsub(i, i, alpha=2),
            torch.rsub(i, x), torch.rsub(i, 2.5), torch.rsub(h, 1), torch.rsub(h, y, alpha=0.5), torch.rsub(x, y, alpha=-2))


def outer_forms(a: "f32[7]", b: "f32[5]", i: "i32[4] uniform(-9, 9)", j: "i64[3] uniform(-9, 9)", p: "bool[4]",
                h: "bf16[6]"):
    sa = specials(a * 3)
    return (torch.outer(a, b), a.outer(b), torch.ger(b, a), a.ger(a), torch.outer(i, j), torch.outer(p, p), torch.outer(i, a),
            torch.outer(h, b), torch.outer(h, h),) + shown(torch.outer(sa, b))


def diagonals(x: "f32[4, 6]", y: "f32[3, 5, 4, 2]", m: "i32[5, 5] uniform(-9, 9)", b: "bool[3, 4]"):
    s = specials(x * 3)
    return (torch.diagonal(x), x.diagonal(1), x.diagonal(-2), x.diagonal(5), x.diagonal(-4), torch.diagonal(x, 9),
            y.diagonal(0, 1, 2), torch.diagonal(y, -1, 2, 1), y.diagonal(offset=1, dim1=-1, dim2=0), y.diagonal(2, 3, 1),
            torch.diagonal(m, 1), b.diagonal(-1),) + shown(s.diagonal()) + (x.diagonal().sum(), x.t().diagonal(2) * 2)


def traces(x: "f32[5, 7]", d: "f64[4, 4]", m: "i32[6, 3] uniform(-99, 99)", j: "i64[3, 3] uniform(-9, 9)",
           h: "bf16[8, 8]", f: "f16[5, 5]"):
    return (torch.trace(x), x.trace(), d.trace(), torch.trace(m), j.trace(), h.trace(), f.trace(), torch.trace(x.t()),
            torch.trace(x[:, 2:]))


def diags(v: "f32[5]", x: "f32[4, 6]", i: "i64[3] uniform(-9, 9)", b: "bool[4]", y: "f32[2, 3, 4]"):
    s = specials(v * 3)
    out = (torch.diag(v), v.diag(2), torch.diag(v, -3), torch.diag(x), x.diag(1), torch.diag(x, -2), torch.diag(x, 7),
           torch.diag(i, 1), b.diag(-1), torch.diag_embed(v), torch.diag_embed(y), y.diag_embed(1),
           torch.diag_embed(y, -2, 0, 2), torch.diag_embed(y, 1, 3, 1), torch.diag_embed(y, offset=0, dim1=-1, dim2=0),
           torch.diag_embed(i, 2), torch.diag(torch.diag(v)))
    return out + shown(torch.diag(s))


def diffs(x: "f32[4, 9]", i: "i32[4, 9] uniform(-9, 9)", b: "bool[3, 8]", p: "f32[4, 2]", q: "i64[1, 9] uniform(-9, 9)",
          h: "bf16[5, 6]"):
    s = specials(x * 3)
    # n = 0: x; n at least the length: an empty dim; bools: logical_xor; prepend and append promote as cat
    out = (torch.diff(x), x.diff(dim=0), torch.diff(x, n=2), x.diff(3, 0), torch.diff(x, n=0), torch.diff(x, n=9),
           torch.diff(x, n=12), torch.diff(i), i.diff(2, -1), torch.diff(b), b.diff(n=2, dim=0), torch.diff(x, prepend=p),
           torch.diff(x, 1, 0, append=q), torch.diff(x, 2, -1, p, p), torch.diff(i, prepend=p), torch.diff(h, 2))
    return out + shown(torch.diff(s))


def degrees_heaviside_sinc(x: "f32[4, 30] uniform(-400, 400)", i: "i32[4, 30] uniform(-360, 360)", b: "bool[4, 30]",
                           h: "bf16[4, 30] uniform(-400, 400)", f: "f16[4, 30] uniform(-6, 6)", d: "f64[4, 30] uniform(-8, 8)",
                           u: "f32[4, 30] uniform(-3, 3)", val: "f32[30] uniform(-2, 2)"):
    s = specials(u)
    k = torch.round(u)
    # heaviside: values at 0 and -0, 0 for NaN; sinc: 1 at 0 and -0, NaN at +-inf, ints and bool as float32
    out = (torch.deg2rad(x), x.rad2deg(), torch.deg2rad(i), torch.rad2deg(b), h.deg2rad(), torch.rad2deg(h), d.deg2rad(),
           torch.heaviside(k, val), k.heaviside(val[3:4]), torch.heaviside(torch.round(i / 100).int(), i),
           torch.heaviside(b, b.flip(0)), torch.heaviside(torch.round(h / 100), h), torch.sinc(u), k.sinc(), torch.sinc(i),
           torch.sinc(b), h.sinc(), torch.sinc(f), torch.sinc(d), torch.special.sinc(k * 0.5))
    return (out + shown(torch.deg2rad(s)) + shown(s.rad2deg()) + shown(torch.heaviside(s, val))
            + shown(torch.sinc(s)))


def aten_rows(x: "f32[5, 6] uniform(-3, 3)", y: "f32[5, 6] uniform(0.1, 4)", v: "f32[6]", i: "i32[5, 6] uniform(-9, 9)",
              z: "f32[3, 4, 5]"):
    v0 = aten.triu.default(x, 1)
    v1 = aten.tril.default(x)
    v2 = aten.logaddexp.default(x, y)
    v3 = aten.logaddexp2.default(x, y)
    v4 = aten.xlogy.Tensor(x, y)
    v5 = aten.xlogy.Scalar_Other(x, 3.0)
    v6 = aten.xlogy.Scalar_Self(2, y)
    v7 = aten.special_xlogy.default(x, y)
    v8 = aten.special_xlogy.other_scalar(x, 0.5)
    v9 = aten.special_xlogy.self_scalar(0.0, y)
    v10 = aten.rsub.Tensor(x, y, alpha=2)
    v11 = aten.rsub.Scalar(x, 1)
    v12 = aten.rsub.Scalar(i, 5, 3)
    v13 = aten.outer.default(v, v)
    v14 = aten.ger.default(v, x[0])
    v15 = aten.diagonal.default(z, 1, 2, 0)
    v16 = aten.diagonal_copy.default(x, -1)
    v17 = aten.trace.default(x)
    v18 = aten.diag.default(v, -1)
    v19 = aten.diag.default(x, 2)
    v20 = aten.diag_embed.default(z, 1)
    v21 = aten.diff.default(x, 2, 0, x[:1], None)
    v22 = aten.diff.default(i)
    v23 = aten.deg2rad.default(x)
    v24 = aten.rad2deg.default(i)
    v25 = aten.heaviside.default(torch.round(x), y)
    v26 = aten.sinc.default(x)
    v27 = aten.rsub.Tensor(i, x)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23,
            v24, v25, v26, v27)


def diagonal_scatters(x: "f32[4, 6]", y: "f32[3, 5, 4]", m: "i32[5, 3] uniform(-9, 9)", s: "f64[4]", t: "f32[3, 3]"):
    # diagonal's backward: x with a diagonal replaced (src in x's dtype)
    return (torch.diagonal_scatter(x, s), x.diagonal_scatter(s[:3] * 2, 3), torch.diagonal_scatter(x, t[0] + 1, -1),
            torch.diagonal_scatter(y, x[:, :3], 0, 0, 1), torch.diagonal_scatter(y, x[:3, :4], 1, 2, 1),
            torch.diagonal_scatter(y, y[:, :, 0].t()[:, :2] * 0 - 0.0, -2, -1, 0), torch.diagonal_scatter(m, s[:3]),
            torch.diagonal_scatter(x, s[:0], 6), aten.diagonal_scatter.default(x, s[:2], -2),
            aten.diagonal_scatter.default(y, x[:, :3] + 1, 0, 1, 0))
