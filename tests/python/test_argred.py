"""torch.compile(backend="coil") with arg-reductions: x.max(dim) (a node
with two results, taken apart by operator.getitem), argmax and argmin
(over a dim and over every element) run in coil programs against eager,
with no fallback for them; ties and NaN keep PyTorch's first index."""
import pytest
import torch

import coil


class Classifier(torch.nn.Module):
    """A linear head, its top-1 accuracy and confidence, and a per-row
    absmax scale."""

    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x, target):
        logits = self.head(x)
        pred = logits.argmax(-1)
        conf, cls = torch.softmax(logits, -1).max(dim=1)
        acc = (pred == target).float().mean()
        scale = x.abs().max(-1, keepdim=True).values
        low, where = x.min(0)
        return logits, pred, conf, cls, acc, x / scale, low, where, torch.argmin(x, dim=0), x.argmax()


ARG_OPS = {"aten.max.dim", "aten.min.dim", "aten.argmax.default", "aten.argmin.default"}


@pytest.mark.parametrize("target", ["c", "triton-npu"])
def test_classifier_arg_reductions_run_in_coil(target):
    torch.manual_seed(0)
    model = Classifier()
    x = torch.randn(12, 16)
    x[3, 5] = float("nan")  # a NaN wins its row's max and its column's min
    x[7, :4] = 2.5  # ties: the first index wins
    y = torch.randint(0, 10, (12,))
    with torch.no_grad():
        want = model(x, y)
        with coil.recording() as report:
            compiled = torch.compile(model, backend="coil", options={"target": target})
            got = compiled(x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, equal_nan=True, rtol=1e-5, atol=1e-5)
    ops = {op for k in report.kernels for op in k.ops}
    assert ARG_OPS <= ops, report
    assert not [f for f in report.fallbacks if not f.by_design], report


def top2_gap(x):
    v, i = x.max(-1)
    rest = torch.where(x == v[:, None], float("-inf"), x)
    return v - rest.amax(-1), i, x.argmin(-1, keepdim=True)


def test_ties_and_dtypes_match_eager():
    f = torch.compile(top2_gap, backend="coil")
    for dtype in (torch.float32, torch.bfloat16, torch.float64):
        x = torch.randint(-3, 3, (6, 40)).to(dtype)
        for g, w in zip(f(x), top2_gap(x)):
            assert g.dtype == w.dtype
            torch.testing.assert_close(g, w, rtol=0, atol=0)
