"""coil.compile(fn): every function of examples/ from its own source (and
through the backend), against the same function run by PyTorch eager; numpy arrays; strided
tensors; several dtypes and zero-size dims."""
import glob
import os

import numpy as np
import pytest
import torch

import coil
import compare
import torch_save

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def example_functions():
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.py"))):
        mod = compare.load_module(path)
        for name, fn in vars(mod).items():
            if callable(fn) and getattr(fn, "__module__", None) == mod.__name__ and hasattr(fn, "__code__"):
                params = compare.annotated_params(fn)
                if params:
                    yield pytest.param(path, name, id=f"{os.path.basename(path)}:{name}")


@pytest.mark.parametrize("path,name", list(example_functions()))
@pytest.mark.parametrize("way", ["coil.compile", "backend"])
def test_example(path, name, way):
    """Every example through coil.compile (its source) and through
    torch.compile(backend="coil") (its ATen graph), against eager."""
    mod = compare.load_module(path)
    fn = getattr(mod, name)
    params = compare.annotated_params(fn)
    gen = torch.Generator().manual_seed(0)
    args = [torch_save.make_input(a, gen, f"{path}:{n}") for n, a in params]
    want = fn(*args)
    got = coil.compile(fn)(*args) if way == "coil.compile" else torch.compile(fn, backend="coil")(*args)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    n = max(int(np.prod(a.shape)) for a in args)
    for k, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"out{k}"
        if w.dtype.is_floating_point:
            rtol, atol = compare.tolerances(w.dtype, min(n, 1 << 20))
            torch.testing.assert_close(g.double(), w.double(), rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert torch.equal(g, w), f"out{k}"


def norm_stats(x: "f32[4, 8]"):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5), x.amax(0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_dtypes(dtype):
    x = torch.randn(6, 40, dtype=dtype)
    got = coil.compile(norm_stats)(x)
    want = norm_stats(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=2e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-5, atol=1e-2)


def test_numpy_arrays():
    x = np.random.default_rng(0).standard_normal((5, 9)).astype(np.float32)
    a, b = coil.compile(norm_stats)(x)
    assert isinstance(a, np.ndarray)
    wa, wb = norm_stats(torch.from_numpy(x))
    np.testing.assert_allclose(a, wa.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(b, wb.numpy())


def sums(x: "f32[4, 8]"):
    return x.sum(0), x.sum(1) * 2.0


@pytest.mark.parametrize("shape", [(0, 7), (3, 0)])
def test_zero_size_dim(shape):
    x = torch.randn(shape)
    for g, w in zip(coil.compile(sums)(x), sums(x)):
        assert g.shape == w.shape and torch.equal(g, w)


def int_and_bool(x: "i64[4, 6]", m: "bool[4, 6]"):
    return (x * m).sum(1), m.any(0), x.amax(1)


def test_ints_and_bools():
    x = torch.randint(-50, 50, (4, 6))
    m = torch.rand(4, 6) > 0.5
    for g, w in zip(coil.compile(int_and_bool)(x, m), int_and_bool(x, m)):
        assert torch.equal(g, w)


def test_specializes_per_layout():
    c = coil.compile(norm_stats)
    c(torch.randn(4, 8))
    c(torch.randn(4, 8))
    c(torch.randn(3, 8))
    assert len(c.programs) == 2


def test_bad_calls_raise_clear_errors():
    c = coil.compile(norm_stats)
    with pytest.raises(TypeError):
        c()
    with pytest.raises(TypeError):
        c(torch.randn(4, 8), torch.randn(4, 8))
    with pytest.raises(TypeError, match="only tensors and arrays"):
        c([1.0, 2.0])
    with pytest.raises(coil.TensorError, match="DLPack"):
        c(torch.randn(4, 8, device="meta"))
    with pytest.raises(coil.TensorError, match="complex64"):
        c(torch.randn(4, 8, dtype=torch.complex64))
