"""torch.compile(backend="coil") with the vocabulary of issue 22: triu and
tril (a causal mask), logaddexp and logaddexp2, xlogy, rsub, outer,
diagonal, trace, diag, diag_embed, diff, deg2rad, rad2deg, heaviside and
sinc, against eager, forward and backward, with no fallback.  Inductor's
decompositions turn most of them into ops coil had before; aten.diagonal
(a view) reaches coil as its own row; tests/run/more_ops.py has every
spelling, the ATen rows and the edge values."""
import pytest
import torch

import coil


def fallbacks(report):
    return [f for f in report.fallbacks if not f.by_design]


def model_math(x, y, v, w):
    s = x.shape[-1]
    mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
    att = torch.softmax(x @ x.transpose(-1, -2) / 4 + mask, -1)
    low = torch.tril(x, -1) + torch.triu(y, 2)
    lse = torch.logaddexp(x, y) + torch.logaddexp2(y, x * 0.5)
    xl = torch.xlogy(torch.relu(x), y.abs() + 0.5) + torch.special.xlogy(2.0, y.abs() + 1)
    r = torch.rsub(x, y, alpha=2) + torch.rsub(x, 1.5)
    o = torch.outer(v, w)
    d = x.diagonal(0, -2, -1) + torch.diagonal(x, 1, 1, 2).sum(-1, keepdim=True)
    t = torch.trace(x[0]) + torch.diag(v).sum() + torch.diag(x[1], -1).sum()
    e = torch.diag_embed(v, 1)
    df = torch.diff(x, dim=1) + torch.diff(y, n=2, dim=1, prepend=y[:, :1])
    deg = torch.deg2rad(x) * torch.rad2deg(y)
    sc = torch.sinc(x) + torch.heaviside(torch.round(x).detach(), y.detach())  # (heaviside has no derivative)
    return att, low, lse, xl, r, o, d, t, e, df, deg, sc


def inputs(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 6, 6, generator=g)
    y = torch.randn(3, 6, 6, generator=g)
    v = torch.randn(6, generator=g)
    w = torch.randn(4, generator=g)
    return x, y, v, w


@pytest.mark.parametrize("target", ["c", "triton-npu"])
def test_forward_matches_eager(target):
    args = inputs(0)
    want = model_math(*args)
    torch._dynamo.reset()
    with coil.recording() as report:
        got = torch.compile(model_math, backend="coil", options={"target": target})(*args)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-5)
    assert report.kernels, report
    assert not fallbacks(report), report


def test_backward_matches_eager():
    args = inputs(1)
    ref = [a.clone().requires_grad_() for a in args]
    mine = [a.clone().requires_grad_() for a in args]
    torch._dynamo.reset()
    with coil.recording() as report:
        out = torch.compile(model_math, backend="coil")(*mine)
        sum(o.float().sin().sum() for o in out).backward()
    sum(o.float().sin().sum() for o in model_math(*ref)).backward()
    for a, b in zip(mine, ref):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    assert not fallbacks(report), report


def test_diagonal_view_reaches_coil():
    # aten.diagonal is a view Inductor's table keeps: coil takes it whole
    def f(x):
        return x.diagonal(1, 0, 2) * 2 + 1, torch.diagonal(x, -1).exp()

    x = torch.randn(4, 3, 5)
    torch._dynamo.reset()
    with coil.recording() as report:
        got = torch.compile(f, backend="coil")(x)
    for g, e in zip(got, f(x)):
        torch.testing.assert_close(g, e)
    ops = {op for k in report.kernels for op in k.ops}
    assert "aten.diagonal.default" in ops, report
    assert not fallbacks(report), report


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.bool])
def test_dtypes_match_eager(dtype):
    def f(x, y):
        out = [torch.triu(x, 1), torch.tril(x), torch.diagonal(x, 1), torch.diag(x[0]), torch.diff(x, dim=0),
               torch.outer(x[0], y[1]), torch.heaviside(x, y), torch.sinc(x), torch.deg2rad(x), torch.xlogy(x, y)]
        if dtype != torch.bool:
            out += [torch.trace(x), torch.rsub(x, y)]
        if dtype.is_floating_point:
            out += [torch.logaddexp(x, y), torch.logaddexp2(x, y)]
        return out

    g = torch.Generator().manual_seed(3)
    if dtype.is_floating_point:
        x, y = (torch.randn(5, 5, generator=g) * 2).to(dtype), (torch.rand(5, 5, generator=g) * 3).to(dtype)
        x[1, 2] = 0.0
    else:
        x, y = torch.randint(-3, 4, (5, 5), generator=g).to(dtype), torch.randint(0, 4, (5, 5), generator=g).to(dtype)
    torch._dynamo.reset()
    with coil.recording() as report:
        got = torch.compile(f, backend="coil")(x, y)
    want = f(x, y)
    tol = {torch.bfloat16: 2e-2}.get(dtype, 1e-5)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=tol, atol=tol, equal_nan=True)
    assert not fallbacks(report), report


def test_as_strided_scatter_reaches_coil():
    """aot_autograd writes as_strided_scatter for an in-place op on a view
    (ConvNeXt's backward); coil takes the views as_strided has, runs of
    self's elements, and leaves any other to ATen with its reason."""
    aten = torch.ops.aten

    def runs(x, s):
        whole = aten.as_strided_scatter(x.reshape(-1) * 2, s, [2, 12], [12, 1], 0)
        inner = aten.as_strided_scatter(x + 1, s[:, :5].sin(), [2, 5], [5, 1], 3)
        return whole.sum(), inner

    def other(x, s):  # every other element: no run
        return aten.as_strided_scatter(x * 3, s[:, :6], [2, 6], [12, 2], 1)

    g = torch.Generator().manual_seed(5)
    x, s = torch.randn(4, 6, generator=g), torch.randn(2, 12, generator=g)
    torch._dynamo.reset()
    with coil.recording() as report:
        got = torch.compile(runs, backend="coil")(x, s)
    for a, b in zip(got, runs(x, s)):
        torch.testing.assert_close(a, b)
    ops = {op for k in report.kernels for op in k.ops}
    assert "aten.as_strided_scatter.default" in ops, report
    assert not fallbacks(report), report
    torch._dynamo.reset()
    with coil.recording() as report:
        got = torch.compile(other, backend="coil")(x, s)
    torch.testing.assert_close(got, other(x, s))
    assert [f.op for f in fallbacks(report)] == ["aten.as_strided_scatter.default"], report


@pytest.mark.parametrize("target", ["c", "triton-gpu"])
def test_max_pool_forward_and_backward_in_coil(target):
    """ResNet's stem pooling (3x3 windows, stride 2, padding 1: windows
    overlap), one step against eager, with ties and a window of -inf only:
    the forward's aten.max_pool2d_with_indices runs in coil, and so does
    the backward, which Inductor's table writes as a scatter_add at the
    indices; nothing falls back."""
    def stem(x, w, hole):
        y = torch.nn.functional.max_pool2d(torch.where(hole, float("-inf"), torch.relu(x * w)), 3, 2, 1)
        return (y * y.clamp(min=0)).sum((2, 3))

    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 4, 11, 10, generator=g).round()  # ties in most windows
    hole = torch.zeros(2, 4, 11, 10, dtype=torch.bool)
    hole[0, 1, 2:5, 3:6] = True  # a window of -inf only
    w = torch.rand(4, 1, 1, generator=g) + 0.5
    mine, ref = [(t.clone().requires_grad_(), w.clone().requires_grad_()) for t in (x, x)]
    torch._dynamo.reset()
    with coil.recording() as report:
        out = torch.compile(stem, backend="coil", options={"target": target})(*mine, hole)
        out.sum().backward()
    want = stem(*ref, hole)
    want.sum().backward()
    torch.testing.assert_close(out, want)
    for a, b in zip(mine, ref):
        torch.testing.assert_close(a.grad, b.grad)
    ops = {op for k in report.kernels for op in k.ops}
    assert {"aten.max_pool2d_with_indices.default", "aten.scatter_add.default"} <= ops, report
    assert not fallbacks(report), report
