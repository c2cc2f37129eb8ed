"""torch.compile(backend="coil") with scans: cumsum, cumprod, logcumsumexp,
cummax and cummin run in coil programs against eager, forward and backward
(aot_autograd's backward of a scan is made of scans, flips and sums at
indices), with no fallback for them; in every dtype the scans take."""
import pytest
import torch

import coil

SCAN_OPS = {"aten.cumsum.default", "aten.cumprod.default", "aten.logcumsumexp.default", "aten.cummax.default",
            "aten.cummin.default"}


def scans(x, w):
    a = torch.cumsum(x * w, -1)
    b = torch.cumprod(torch.sigmoid(x) + 0.5, dim=1)
    c = torch.logcumsumexp(x, 0)
    v, i = torch.cummax(x, 1)
    m = torch.cummin(x, 0)
    return a, b, c, v, i, m.values, m.indices


def fallbacks(report):
    return [f for f in report.fallbacks if not f.by_design]


@pytest.mark.parametrize("target", ["c", "triton-npu"])
def test_scans_run_in_coil(target):
    torch.manual_seed(0)
    x = torch.randn(6, 50)
    x[2, 7] = float("nan")  # a NaN takes cummax/cummin over from where it is
    x[4, 10:20] = 1.5  # ties: the later index wins
    w = torch.randn(50)
    want = scans(x, w)
    with coil.recording() as report:
        got = torch.compile(scans, backend="coil", options={"target": target})(x, w)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, equal_nan=True, rtol=1e-5, atol=1e-5)
    ops = {op for k in report.kernels for op in k.ops}
    assert SCAN_OPS <= ops, report
    assert not fallbacks(report), report


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int32,
                                   torch.int64, torch.bool])
def test_scan_dtypes_match_eager(dtype):
    def f(x):
        out = [x.cumsum(1), x.cumprod(0), *x.cummax(1), *x.cummin(0)]
        if dtype.is_floating_point:
            out.append(x.logcumsumexp(1))
        return out

    torch.manual_seed(1)
    x = (torch.randn(5, 70) * 2).to(dtype) if dtype.is_floating_point else torch.randint(-2, 3, (5, 70)).to(dtype)
    got, want = torch.compile(f, backend="coil")(x), f(x)
    tol = {torch.bfloat16: 2e-2, torch.float16: 2e-3}.get(dtype, 1e-5)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, rtol=tol, atol=tol)


class RunningNorm(torch.nn.Module):
    """A causal running mean over the sequence (cumsum / count) and a
    cumulative log-normaliser, trained for a few steps."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = self.proj(x)
        count = torch.arange(1, h.shape[1] + 1, dtype=h.dtype)[:, None]
        mean = h.cumsum(1) / count
        lse = torch.logcumsumexp(h, 1)
        peak = h.cummax(1).values
        return (mean * lse).square().mean() + (h - peak).mean() + torch.cumprod(torch.sigmoid(h), 1).mean()


def test_scan_model_trains_like_eager():
    torch.manual_seed(2)
    model = RunningNorm()
    ref = RunningNorm()
    ref.load_state_dict(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    with coil.recording() as report:
        compiled = torch.compile(model, backend="coil")
        for step in range(3):
            x = torch.randn(4, 40, 16)
            loss = compiled(x)
            ref_loss = ref(x)
            torch.testing.assert_close(loss, ref_loss, rtol=1e-4, atol=1e-5)
            opt.zero_grad()
            ref_opt.zero_grad()
            loss.backward()
            ref_loss.backward()
            for p, q in zip(model.parameters(), ref.parameters()):
                torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)
            opt.step()
            ref_opt.step()
    assert not fallbacks(report), report
