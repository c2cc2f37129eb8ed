"""bench/groups.py rebuilds each coil group of a model's step from its
graph source and runs that source as Python, eagerly and under each
backend.  The source dropped every placement keyword, so a group with
prims.iota (torch.arange's decomposition, which has no default device or
requires_grad) failed in eager ("prims::iota() is missing value for
argument 'device'") and groups.py skipped it, and a factory op without its
device would have made CPU tensors for a CUDA group.  Here every group of a
small model's training step (positions from arange, a full of zeros in the
backward) runs from its source: eager and backend="coil" agree."""
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import groups  # noqa: E402


class Positions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(16))

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)[None, :, None].float()
        h = torch.sin(x * self.w + pos * 0.1)
        return h[..., :8] * h[..., 8:]


def make():
    return Positions(), (torch.randn(3, 5, 16),), lambda y: y.pow(2).sum()


def test_every_group_source_runs_as_python():
    sources = groups.group_sources(make)
    assert sources, "no coil group recorded"
    assert any("prims.iota" in s for _, s in sources), "the model no longer makes a prims.iota: the test would pass vacuously"
    for name, source in sources:
        scope = {}
        exec(compile(source, f"<{name}>", "exec"), scope)
        fn = next(v for k, v in scope.items() if k.startswith("coil_"))
        args = groups.inputs(source)
        want = fn(*args)
        torch._dynamo.reset()
        got = torch.compile(fn, backend="coil")(*args)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w, msg=lambda m: f"{name}: {m}")
