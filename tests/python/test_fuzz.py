"""The differential fuzzer's PyTorch front end: random functions of
pointwise math, broadcasting, casts, views and reductions over random
dims, run through torch.compile(backend="coil") and against eager, forward
and (for float inputs) backward.

COIL_FUZZ_COUNT (default 24, what CI runs) and COIL_FUZZ_SEED pick the
cases; a failure prints the case's seed and source, so
`COIL_FUZZ_SEED=S COIL_FUZZ_COUNT=1 pytest tests/python/test_fuzz.py`
replays it."""
import os
import random

import pytest
import torch

COUNT = int(os.environ.get("COIL_FUZZ_COUNT", "24"))
SEED = int(os.environ.get("COIL_FUZZ_SEED", "1"))

UNARY = ["torch.exp({})", "torch.tanh({})", "torch.sigmoid({})", "torch.abs({})", "torch.relu({})",
         "torch.nn.functional.silu({})", "torch.nn.functional.gelu({})", "({0} * {0} + 1.0).rsqrt()", "torch.sin({})",
         "torch.erf({})", "(-{})", "torch.clamp({}, -1.5, 2.0)"]
BINARY = ["({} + {})", "({} * {})", "({} - {})", "torch.maximum({}, {})", "torch.where({0} > {1}, {0}, {1})"]
REDUCE = ["{x}.sum({dims}, keepdim={k})", "{x}.mean({dims}, keepdim={k})", "{x}.amax({dims}, keepdim={k})",
          "torch.softmax({x}, {d})", "{x}.var({dims}, keepdim={k}, unbiased=False)", "torch.logsumexp({x}, {dims}, keepdim={k})"]


class Case:
    """A random function of one or two inputs, written as Python source."""

    def __init__(self, seed):
        r = random.Random(seed)
        self.seed = seed
        ndim = r.randint(1, 4)
        self.shape = [r.choice([1, 2, 3, 5, 8, 17, 33]) for _ in range(ndim)]
        self.dtype = r.choice([torch.float32, torch.float32, torch.float64, torch.bfloat16])
        # the second input broadcasts along some dims
        self.shape2 = [s if r.random() < 0.6 else 1 for s in self.shape]
        lines, names = [], ["x", "y"]
        for i in range(r.randint(2, 6)):
            a = r.choice(names)
            kind = r.random()
            if kind < 0.35:
                e = r.choice(UNARY).format(a)
            elif kind < 0.65:
                e = r.choice(BINARY).format(a, r.choice(names))
            elif kind < 0.9:
                dims = r.sample(range(ndim), r.randint(1, ndim))
                e = r.choice(REDUCE).format(x=a, dims=tuple(dims), k=True, d=r.randrange(ndim))
            elif ndim >= 2:
                p = list(range(ndim))
                r.shuffle(p)
                e = f"{a}.permute{tuple(p)}.contiguous().permute{tuple(p.index(j) for j in range(ndim))}"
            else:
                e = f"({a}.float() * 0.5).to({a}.dtype)"
            names.append(f"t{i}")
            lines.append(f"    t{i} = {e}")
        outs = names[-1:] + ([r.choice(names[2:-1])] if len(names) > 3 and r.random() < 0.5 else [])
        self.source = "def fn(x, y):\n" + "\n".join(lines) + f"\n    return {', '.join(outs)}\n"
        namespace = {"torch": torch}
        exec(compile(self.source, f"<fuzz case {seed}>", "exec"), namespace)
        self.fn = namespace["fn"]

    def inputs(self):
        g = torch.Generator().manual_seed(self.seed)
        x = torch.randn(self.shape, generator=g, dtype=torch.float64).to(self.dtype)
        y = torch.randn(self.shape2, generator=g, dtype=torch.float64).to(self.dtype)
        return x.requires_grad_(), y.requires_grad_()


def grad(t):
    """t's gradient (zeros where the function does not use t)."""
    return torch.zeros_like(t) if t.grad is None else t.grad.clone()


def tolerance(dtype):
    return {torch.bfloat16: (4e-2, 4e-2), torch.float32: (2e-4, 2e-5), torch.float64: (1e-9, 1e-10)}[dtype]


@pytest.mark.parametrize("seed", range(SEED, SEED + COUNT))
def test_random_function(seed):
    case = Case(seed)
    rtol, atol = tolerance(case.dtype)
    x, y = case.inputs()
    want = case.fn(x, y)
    want = want if isinstance(want, tuple) else (want,)
    sum(w.float().sum() for w in want).backward()
    want_grads = (grad(x), grad(y))
    x.grad = y.grad = None
    f = torch.compile(case.fn, backend="coil")
    got = f(x, y)
    got = got if isinstance(got, tuple) else (got,)
    where = f"fuzz case {seed} ({case.dtype}, x{case.shape}, y{case.shape2}):\n{case.source}"
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, where
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{m}\n{where}")
    sum(g.float().sum() for g in got).backward()
    for g, w in zip((grad(x), grad(y)), want_grads):
        torch.testing.assert_close(g, w, rtol=rtol * 10, atol=atol * 10, equal_nan=True,
                                   msg=lambda m: f"gradient: {m}\n{where}")
