"""torch.compile(backend="coil") of a small model with GroupNorm, BatchNorm
in train mode (its running stats updated by the graph), a circular pad, a
flip, a roll and the BCE losses: forward and backward for several training
steps against eager, and every op of it in coil programs (strict mode);
the pad modes and roll forward and backward."""
import copy

import pytest
import torch
import torch.nn.functional as F

import coil


class NormBlock(torch.nn.Module):
    def __init__(self, c=8, d=6):
        super().__init__()
        self.inp = torch.nn.Linear(d, d)
        self.gn = torch.nn.GroupNorm(4, c)
        self.bn = torch.nn.BatchNorm1d(c)
        self.head = torch.nn.Linear(d + 3, 1)

    def forward(self, x):
        h = F.silu(self.gn(self.inp(x)))
        h = self.bn(h) + h.flip(-1) - torch.roll(h, 1, 1)
        h = F.pad(h, (1, 2), mode="circular")
        return self.head(h).squeeze(-1)


def loss_fn(logits, y):
    return F.binary_cross_entropy_with_logits(logits, y, pos_weight=torch.full((8,), 2.0)) + \
        F.binary_cross_entropy(torch.sigmoid(logits), y, reduction="sum") / logits.numel()


def train(model, batches, lr=0.05):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses, grads = [], []
    for x, y in batches:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        losses.append(loss.detach())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return losses, grads


def test_norms_and_losses_train_like_eager():
    torch.manual_seed(0)
    eager = NormBlock()
    compiled = torch.compile(copy.deepcopy(eager), backend="coil")
    batches = [(torch.randn(5, 8, 6), torch.rand(5, 8)) for _ in range(3)]
    want_losses, want_grads = train(eager, batches)
    got_losses, got_grads = train(compiled, batches)
    for step, (w, g) in enumerate(zip(want_losses, got_losses)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"loss of step {step}")
    for step, (ws, gs) in enumerate(zip(want_grads, got_grads)):
        for (name, _), w, g in zip(eager.named_parameters(), ws, gs):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"grad of {name}, step {step}")
    # the running stats the train-mode graph updates
    torch.testing.assert_close(compiled.bn.running_mean, eager.bn.running_mean, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(compiled.bn.running_var, eager.bn.running_var, rtol=1e-5, atol=1e-6)


def test_norms_and_losses_run_in_coil(monkeypatch):
    """Strict mode: every op but the linear layers runs in coil, forward
    and backward."""
    monkeypatch.setattr(coil.config, "strict", True)
    model = NormBlock()
    x, y = torch.randn(5, 8, 6), torch.rand(5, 8)
    report = coil.explain(lambda x: loss_fn(model(x), y), x, backward=True)
    assert all(f.by_design for f in report.fallbacks), report
    ops = {op for k in report.kernels for op in k.ops}
    assert "aten.var_mean.correction" in ops, report
    assert any(k.graph.startswith("backward") for k in report.kernels), report


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "roll"])
def test_pad_modes_and_roll(mode):
    """Forward and backward against eager.  The backend keeps roll and the
    reflect and replicate pads whole (coil compiles them as cats of
    slices); their backward runs in coil for roll, circular and reflect
    (_unsafe_masked_index, sums at indices), and partly as ATen for
    replicate (replication_pad2d_backward)."""
    if mode == "roll":
        def fn(x):
            return torch.roll(x, (2, -1), (1, 3)) * 2
    else:
        def fn(x):
            return F.pad(x, (2, 1, 1, 3), mode=mode) * 2
    x = torch.randn(2, 3, 5, 6, requires_grad=True)
    g = torch.randn_like(fn(x))
    f = torch.compile(fn, backend="coil")
    got = f(x)
    torch.testing.assert_close(got, fn(x))
    torch.testing.assert_close(torch.autograd.grad(got, x, g)[0], torch.autograd.grad(fn(x), x, g)[0])
    report = coil.explain(fn, x, backward=True)
    assert report.kernels, report
    if mode in ("roll", "circular", "reflect"):
        assert not report.fallbacks, report
