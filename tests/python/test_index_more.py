"""Advanced indexing with several index tensors and writes at indices
through torch.compile(backend="coil"), against eager, forward and backward:
x[i, j] (its backward is index_put with accumulate), x[:, idx], x[0, idx],
x[idx, :, None], index_put without accumulate, scatter with a tensor src,
index_copy and index_fill, with repeated indices (the last write in index
order wins, as on PyTorch's CPU); every op in coil, none left to ATen; an
index out of range raises coil.IndexOutOfRange."""
import pytest
import torch

import coil


def both(fn, *args, grad=(0,)):
    """fn compiled with coil and eager on the same inputs: the outputs, and
    the gradients of the outputs' weighted sum with respect to args[k] for
    k in grad."""
    results = []
    for f in (fn, torch.compile(fn, backend="coil")):
        xs = [a.detach().clone().requires_grad_(k in grad) for k, a in enumerate(args)]
        out = f(*xs)
        out = out if isinstance(out, tuple) else (out,)
        loss = sum((o.float() * torch.linspace(0.5, 1.5, o.numel()).view(o.shape)).sum() for o in out if o.requires_grad)
        grads = torch.autograd.grad(loss, [xs[k] for k in grad]) if grad else ()
        results.append(([o.detach() for o in out], list(grads)))
    (want, wgrad), (got, ggrad) = results
    for k, (w, g) in enumerate(zip(want, got)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, msg=f"output {k}")
    for k, (w, g) in enumerate(zip(wgrad, ggrad)):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, msg=f"gradient {k}")


def in_coil(fn, *args):
    """Every op of fn's forward and backward ran in coil programs."""
    report = coil.explain(fn, *args, backward=True)
    assert report.kernels, report
    assert not report.fallbacks, report


X = torch.randn(6, 4, 5)
I = torch.tensor([[0, 5, -1], [2, 2, 3]])   # repeats, and a negative index
J = torch.tensor([1, -4, 1])
K = torch.tensor([[4], [0]])


def test_two_index_tensors():
    both(lambda x, i, j: x[i, j] * 2, X, I, J)


def test_index_tensors_separated_by_a_slice():
    both(lambda x, i, k: (x[i, :, k] + 1).tanh(), X, I, K)


def test_slices_ints_and_none_around_index_tensors():
    both(lambda x, i, j: (x[:, j], x[0, :, j], x[i, :, None], x[None, i, j], x[1:5, j, 1:4]), X, I, J)
    in_coil(lambda x, i, j: (x[:, j], x[0, :, j], x[i, :, None], x[1:5, j, 1:4]), X.clone().requires_grad_(), I, J)


def test_three_index_tensors():
    both(lambda x, i, j, k: x[i, j, k].sum(-1), X, I, J, K)


def test_multi_index_runs_in_coil():
    in_coil(lambda x, i, j: x[i, j] * 2, X.clone().requires_grad_(), I, J)


def test_index_put_last_write_wins():
    x, v = torch.randn(5, 3), torch.randn(6, 3)
    i = torch.tensor([1, 1, 3, 1, 0, 3])   # row 1 three times, row 3 twice: the last in index order wins
    both(lambda x, v, i: x.index_put((i,), v), x, v, i, grad=(0, 1))
    both(lambda x, v, i: x.index_put((i, i % 3), v[:, 0]), x, v, i, grad=(0, 1))
    both(lambda x, v, i: x.index_put((i, i % 3), v[:, 0], accumulate=True), x, v, i, grad=(0, 1))
    in_coil(lambda x, v, i: x.index_put((i, i % 3), v[:, 0]), x.clone().requires_grad_(), v.clone().requires_grad_(), i)


def test_scatter_src_last_write_wins():
    x, s = torch.randn(4, 6), torch.randn(4, 5)
    i = torch.tensor([[0, 0, 2, 5, 0], [1, 1, 1, 1, 1], [5, 4, 3, 2, 1], [2, 3, 2, 3, 2]])
    both(lambda x, s, i: x.scatter(1, i, s), x, s, i, grad=(0, 1))
    in_coil(lambda x, s, i: x.scatter(1, i, s), x.clone().requires_grad_(), s.clone().requires_grad_(), i)


def test_index_copy_and_index_fill():
    x, t = torch.randn(5, 4), torch.randn(6, 4)
    i = torch.tensor([4, 0, 4, 2, 0, 4])
    both(lambda x, t, i: x.index_copy(0, i, t), x, t, i, grad=(0, 1))
    both(lambda x, i: x.index_fill(1, i % 4 - 4, -2.0), x, i)
    in_coil(lambda x, t, i: x.index_copy(0, i, t) + x.index_fill(1, i % 4, 1.5), x.clone().requires_grad_(), t.clone().requires_grad_(), i)


def test_multi_index_out_of_range_raises():
    f = torch.compile(lambda x, i, j: x[i, j] + 1, backend="coil")
    x = torch.randn(5, 7)
    f(x, torch.tensor([0, 4]), torch.tensor([6, -7]))
    with pytest.raises(coil.IndexOutOfRange, match=r"outside \[-7, 7\) for dimension 1 of size 7"):
        f(x, torch.tensor([0, 4]), torch.tensor([7, 0]))
    with pytest.raises(IndexError, match=r"outside \[-5, 5\) for dimension 0 of size 5"):
        f(x, torch.tensor([-6, 4]), torch.tensor([1, 0]))


def random_index(rng, shape):
    """A random subscript of a tensor of shape: index tensors (some 0-d,
    negative values too), ints, None and slices; and its ATen index list
    where it has one (index tensors and whole dims only), else None."""
    items, aten_list, d = [], [], 0
    while d < len(shape):
        r = rng.random()
        if r < 0.45:
            dims = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
            items.append(torch.randint(-shape[d], shape[d], dims, generator=torch.Generator().manual_seed(rng.randint(0, 999))))
            if aten_list is not None:
                aten_list.append(items[-1])
        elif r < 0.6:
            items.append(rng.randint(-shape[d], shape[d] - 1))
            aten_list = None
        elif r < 0.7:
            items.append(None)
            aten_list = None
            continue
        elif r < 0.9:
            lo = rng.randint(0, shape[d] - 1)
            items.append(slice(lo, None))
            if lo == 0 and aten_list is not None:
                aten_list.append(None)
            else:
                aten_list = None
        else:
            break
        d += 1
    return items, aten_list


def test_random_subscripts_match_eager():
    """x[...] for random mixes of index tensors, ints, None and slices, and
    index_put at the same indices (where they form an ATen index list),
    bit for bit against eager."""
    import random
    rng = random.Random(7)
    ran = 0
    for _ in range(40):
        shape = [rng.randint(1, 5) for _ in range(rng.randint(2, 4))]
        x = torch.randn(*shape)
        items, aten_list = random_index(rng, shape)
        tensors = [t for t in items if isinstance(t, torch.Tensor)]
        if not tensors:
            continue
        slots = [k for k, t in enumerate(items) if isinstance(t, torch.Tensor)]

        def key(ts):
            out = list(items)
            for k, t in zip(slots, ts):
                out[k] = t
            return tuple(out)

        def read(x, *ts):
            return x[key(ts)] * 2

        try:
            want = read(x, *tensors)
        except (IndexError, RuntimeError):  # index tensors that do not broadcast
            continue
        torch._dynamo.reset()
        got = torch.compile(read, backend="coil")(x, *tensors)
        assert got.shape == want.shape and torch.equal(got, want), (shape, items)
        ran += 1
        if aten_list is not None:
            def put(x, v, *ts):
                return torch.ops.aten.index_put.default(x, [t if isinstance(t, torch.Tensor) else None for t in key(ts)], v)

            v = torch.randn(want.shape)
            torch._dynamo.reset()
            torch.testing.assert_close(torch.compile(put, backend="coil")(x, v, *tensors), put(x, v, *tensors), rtol=0, atol=0)
    assert ran >= 20
