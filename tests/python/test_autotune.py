"""--autotune through the package: Graph.compile(autotune=True) gives the
triton-gpu module its candidates (COIL_TUNE), other targets ignore it, and
the torch.compile backend hands options={"autotune": ...} (or
COIL_AUTOTUNE) to the groups that compile CUDA tensors.  The modules'
tuning itself is tests/triton_interp/autotune.py (make check's
triton_emit suite)."""
import torch

import coil
from coil import _C, backend


def _softmax_graph():
    g = _C.Graph("softmax_rows")
    x = g.input("x", "float32", (6, 37))
    g.output([g.call("F.softmax", [("v", x)], {"dim": ("i", -1)})])
    return g


def test_graph_compile_autotune_gives_candidates():
    tuned = _softmax_graph().compile(target="triton-gpu", autotune=True).code
    plain = _softmax_graph().compile(target="triton-gpu").code
    assert "COIL_TUNE = [" in tuned and "def coil_tune(bufs):" in tuned
    assert "COIL_TUNE" not in plain
    # the C and NPU targets have nothing to tune
    assert "COIL_TUNE" not in _softmax_graph().compile(target="triton-npu", autotune=True).code


def test_backend_passes_autotune_to_its_groups(monkeypatch):
    seen = []
    init = backend.CoilGroup.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        seen.append(self.autotune)

    monkeypatch.setattr(backend.CoilGroup, "__init__", record)
    fn = lambda x: torch.softmax(x * 2, -1)  # noqa: E731
    x = torch.randn(4, 9)
    for options, want in (({"autotune": True}, True), ({}, coil.config.autotune), ({"autotune": False}, False)):
        seen.clear()
        torch._dynamo.reset()
        out = torch.compile(fn, backend="coil", options=options)(x)
        torch.testing.assert_close(out, fn(x))
        assert seen and all(a == want for a in seen), (options, seen)
    torch._dynamo.reset()
