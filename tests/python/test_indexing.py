"""Indexed reads and sums at indices through torch.compile(backend="coil"):
an embedding and a cross_entropy loss, forward and backward for several
training steps against eager, with nothing but the matmul left to ATen;
indices out of range raise coil.IndexOutOfRange (an IndexError) and never
read outside a tensor; coil.compile on gather and index_add."""
import copy
import importlib.util

import pytest
import torch
import torch.nn.functional as F

import coil


class TinyLM(torch.nn.Module):
    def __init__(self, vocab=40, d=16):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d, padding_idx=0)
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, ids, target):
        h = self.emb(ids)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        logits = self.head(h)
        return F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=3, label_smoothing=0.1)


def steps(model, batches, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    out = []
    for ids, target in batches:
        opt.zero_grad()
        loss = model(ids, target)
        loss.backward()
        out.append((loss.detach(), [p.grad.clone() for p in model.parameters()]))
        opt.step()
    return out


def test_embedding_cross_entropy_training_matches_eager():
    torch.manual_seed(0)
    eager = TinyLM()
    compiled = torch.compile(copy.deepcopy(eager), backend="coil")
    # repeated ids (the embedding's gradient sums them) and the padding id
    batches = [(torch.randint(0, 40, (3, 9)), torch.randint(0, 40, (3, 9))) for _ in range(3)]
    batches[0][0][0, :4] = 0
    batches[1][0][1, :] = 7
    for step, ((wl, wg), (gl, gg)) in enumerate(zip(steps(eager, batches), steps(compiled, batches))):
        torch.testing.assert_close(gl, wl, rtol=1e-5, atol=1e-6, msg=f"loss of step {step}")
        for (name, _), w, g in zip(eager.named_parameters(), wg, gg):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, msg=f"grad of {name}, step {step}")


def test_only_matmuls_fall_back():
    ids, target = torch.randint(0, 40, (2, 5)), torch.randint(0, 40, (2, 5))
    report = coil.explain(TinyLM(), ids, target, backward=True)
    ops = {op for k in report.kernels for op in k.ops}
    assert {"aten.embedding.default", "aten.gather.default"} <= ops, report
    assert any("index_put" in op or "scatter" in op for op in ops), report
    assert all(f.by_design for f in report.fallbacks), report


def test_index_out_of_range_raises():
    model = torch.compile(TinyLM(), backend="coil")
    target = torch.randint(0, 40, (2, 5))
    model(torch.randint(0, 40, (2, 5)), target)
    bad = torch.randint(0, 40, (2, 5))
    bad[1, 2] = 40
    with pytest.raises(IndexError, match="index out of range"):
        model(bad, target)
    with pytest.raises(coil.IndexOutOfRange):
        model(-bad, target)


def test_compile_gather_and_index_add(tmp_path):
    src = tmp_path / "ix.py"
    src.write_text(
        "import torch\n\n\n"
        "def pick(x: 'f32[4, 6]', i: 'i64[4, 2]'):\n"
        "    return x.gather(1, i), x.index_add(0, i[:, 0] % 4, x * 2)\n")
    spec = importlib.util.spec_from_file_location("ix", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = coil.compile(mod.pick)
    x = torch.randn(4, 6)
    i = torch.randint(0, 6, (4, 2))
    got = f(x, i)
    torch.testing.assert_close(got[0], x.gather(1, i))
    torch.testing.assert_close(got[1], x.index_add(0, i[:, 0] % 4, x * 2))
    i[0, 0] = 9
    with pytest.raises(coil.IndexOutOfRange):
        f(x, i)
