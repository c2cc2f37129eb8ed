"""coil._C, the CPython binding over include/coil.h: programs from source
text and from graphs built node by node, runs on DLPack tensors (torch and
numpy), errors as Python exceptions, threads."""
import ctypes
import threading

import numpy as np
import pytest
import torch

import coil
from coil import _C

SRC = '''import torch

def f(x: "f32[3, 5]", y: "f32[5]"):
    return (x * y).sum(1), torch.amax(x, 0)
'''


def test_source_program_runs_on_torch_and_numpy():
    p = _C.compile_source("f.py", SRC)
    assert [i[:3] for i in p.inputs] == [("x", "float32", (3, 5)), ("y", "float32", (5,))]
    assert [o[1:3] for o in p.outputs] == [("float32", (3,)), ("float32", (5,))]
    x, y = torch.randn(3, 5), torch.randn(5)
    a, b = torch.empty(3), torch.empty(5)
    p.run([x, y], [a, b])
    torch.testing.assert_close(a, (x * y).sum(1))
    assert torch.equal(b, x.amax(0))
    xn, yn = x.numpy().copy(), y.numpy().copy()
    an, bn = np.empty(3, np.float32), np.empty(5, np.float32)
    p.run([xn, yn], [an, bn])
    np.testing.assert_allclose(an, a.numpy(), rtol=1e-6)


def test_args_override_annotations():
    p = _C.compile_source("f.py", SRC, args=["x=f64[2, 7]", "y=f64[7]"])
    assert [i[1:3] for i in p.inputs] == [("float64", (2, 7)), ("float64", (7,))]


def test_program_error_has_position():
    with pytest.raises(coil.ProgramError, match=r"bad\.py:2:\d+: error: .*frobnicate"):
        _C.compile_source("bad.py", 'def f(x: "f32[4]"):\n    return x.frobnicate()\n')


@pytest.mark.parametrize("case", ["shape", "dtype", "count", "strides", "not_a_tensor"])
def test_tensor_errors(case):
    p = _C.compile_source("f.py", SRC)
    x, y, a, b = torch.randn(3, 5), torch.randn(5), torch.empty(3), torch.empty(5)
    bad = {"shape": ([torch.randn(5, 3), y], [a, b], "shape"),
           "dtype": ([x.double(), y], [a, b], "dtype float64"),
           "count": ([x], [a, b], "takes 2 inputs"),
           "strides": ([torch.randn(5, 3).t(), y], [a, b], "stride"),
           "not_a_tensor": ([x, 3.0], [a, b], "DLPack")}[case]
    with pytest.raises(coil.TensorError, match=bad[2]):
        p.run(bad[0], bad[1])
    assert issubclass(coil.TensorError, ValueError)


def test_graph_node_by_node():
    g = _C.Graph("scaled_softmax")
    x = g.input("x", "bfloat16", (4, 33))
    s = g.call("aten.mul.Tensor" if _C.has_op("aten.mul.Tensor") else "torch.mul", [("v", x), ("f", 0.5)], {})
    sm = g.call("F.softmax", [("v", s)], {"dim": ("i", -1), "dtype": ("d", "float32")}, "model.py:7")
    g.output([sm])
    assert "# model.py:7" in g.source()
    p = g.compile()
    xt = torch.randn(4, 33, dtype=torch.bfloat16)
    out = torch.empty(4, 33)
    p.run([xt], [out])
    torch.testing.assert_close(out, torch.softmax(xt * 0.5, -1, dtype=torch.float32))


def test_graph_errors():
    g = _C.Graph("g")
    x = g.input("x", "float32", (3,))
    with pytest.raises(coil.ProgramError, match="not in coil's subset"):
        g.call("torch.frobnicate", [("v", x)], {})
    with pytest.raises(TypeError):
        g.call("torch.exp", [x], {})
    with pytest.raises(ValueError):
        _C.Graph("not a name")
    y = g.input("y", "float32", (4,))
    z = g.call("torch.add", [("v", x), ("v", y)], {}, "net.py:3 in forward")
    g.output([z])
    with pytest.raises(coil.ProgramError, match=r"(?s)<graph g>:\d+:\d+: error: .*net.py:3 in forward"):
        g.compile()


def test_threads_run_one_program_and_compile_others():
    p = _C.compile_source("f.py", SRC)
    errors = []

    def work(seed):
        try:
            gen = torch.Generator().manual_seed(seed)
            q = _C.compile_source("f.py", SRC, args=[f"x=f32[{seed + 2}, 5]"])
            for prog, rows in ((p, 3), (q, seed + 2)):
                x, y = torch.randn(rows, 5, generator=gen), torch.randn(5, generator=gen)
                a, b = torch.empty(rows), torch.empty(5)
                prog.run([x, y], [a, b])
                torch.testing.assert_close(a, (x * y).sum(1))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_triton_npu_target_runs_through_the_executor():
    p = _C.compile_source("f.py", SRC, target="triton-npu")
    assert "@triton.jit" in p.code
    x, y = torch.randn(3, 5), torch.randn(5)
    a, b = torch.empty(3), torch.empty(5)
    p.run([x, y], [a, b])
    torch.testing.assert_close(a, (x * y).sum(1))


def _empty(shape, strides, dtype):
    return torch.empty_strided(shape, strides, dtype=dtype)


def _runner(args=(None, None)):
    """A Runner over SRC's program, its plan taking args (None: a tensor;
    an int: a size that must match), and the calls its fallback got."""
    p = _C.compile_source("f.py", SRC)
    fallen = []
    r = _C.Runner(lambda *a, **k: fallen.append(a + tuple(k.values())) or "fallback", torch.utils.dlpack.to_dlpack, torch.get_num_threads)
    r.plan = _C.Plan(p, list(args), [(_empty, ((3,), (1,), torch.float32)), (_empty, ((5,), (1,), torch.float32))])
    return r, fallen


def test_runner_runs_its_plan_on_matching_arguments():
    r, fallen = _runner()
    x, y = torch.randn(3, 5), torch.randn(5, requires_grad=True)
    a, b = r(x, y)
    torch.testing.assert_close(a, (x * y).sum(1).detach())
    assert torch.equal(b, x.amax(0))
    a2, _ = r(x, y)
    assert a2.data_ptr() != a.data_ptr()  # a new result per call
    assert r.counts == (2, 0) and not fallen


@pytest.mark.parametrize("case", ["shape", "dtype", "count", "strides", "not_a_tensor", "device", "keyword"])
def test_runner_hands_what_its_plan_does_not_match_to_the_fallback(case):
    r, fallen = _runner()
    x, y = torch.randn(3, 5), torch.randn(5)
    args, kwargs = {"shape": ((torch.randn(5, 3), y), {}), "dtype": ((x.double(), y), {}), "count": ((x,), {}),
                    "strides": ((torch.randn(5, 3).t(), y), {}), "not_a_tensor": ((x, 3.0), {}),
                    "device": ((x.to("meta"), y), {}), "keyword": ((x,), {"y": y})}[case]
    assert r(*args, **kwargs) == "fallback"
    assert len(fallen) == 1 and len(fallen[0]) == len(args) + len(kwargs) and r.counts == (0, 1)


def test_runner_checks_ints_and_takes_strides_of_single_element_dims_as_any():
    r, fallen = _runner((None, 7, None))
    x, y = torch.randn(3, 5), torch.randn(5)
    assert r(x, 8, y) == "fallback" and r(x, "7", y) == "fallback"
    a, _ = r(torch.randn(3, 1, 5)[:, 0], 7, y)  # [3, 5] with strides (5, 1) read from a [3, 1, 5]
    assert a.shape == (3,) and r.counts == (1, 2)
    r.plan = None
    assert r(x, 7, y) == "fallback"


def test_plan_is_checked_when_made():
    p = _C.compile_source("f.py", SRC)
    alloc = (_empty, ((3,), (1,), torch.float32))
    with pytest.raises(ValueError, match="2 inputs"):
        _C.Plan(p, [None], [alloc, alloc])
    with pytest.raises(ValueError, match="allocators"):
        _C.Plan(p, [None, None], [alloc])
    with pytest.raises(TypeError):
        _C.Plan(p, [None, 2.5, None], [alloc, alloc])
    with pytest.raises(TypeError):
        _C.Runner(None, torch.utils.dlpack.to_dlpack).plan = "not a plan"


def _launching_plan(current=0, check=None, native=()):
    """A Plan with launches over SRC's program, on CPU tensors (device
    (kDLCPU, 0)), whose launchers stand for Triton's: the first writes
    x * y into a scratch buffer, the second sums it into the first result
    and takes the amax into the second, through the addresses it gets.
    native is appended to each launch.  Returns the plan and the
    launchers' calls."""
    p = _C.compile_source("f.py", SRC)
    calls = []

    def floats(address, n):
        return (ctypes.c_float * n).from_address(address)

    def products(gx, gy, gz, stream, function, meta, launch_meta, enter, exit_, x, y, prod, n):
        calls.append(("products", gx, gy, gz, stream, function, meta, launch_meta, enter, exit_, n))
        xs, ys, ps = floats(x, 15), floats(y, 5), floats(prod, 15)
        for i in range(15):
            ps[i] = xs[i] * ys[i % 5]

    def sums(gx, gy, gz, stream, function, meta, launch_meta, enter, exit_, prod, x, a, b):
        calls.append(("sums", gx, gy, gz, stream, function))
        ps, xs, out_a, out_b = floats(prod, 15), floats(x, 15), floats(a, 3), floats(b, 5)
        for r in range(3):
            out_a[r] = sum(ps[5 * r:5 * r + 5])
        for c in range(5):
            out_b[c] = max(xs[c], xs[5 + c], xs[10 + c])

    outs = [(_empty, ((3,), (1,), torch.float32)), (_empty, ((5,), (1,), torch.float32))]
    launches = [(products, (15, 1, 1), ("fn0", "meta0", None, None, None), (0, 1, 4, -1), (None, None, None, 15)) + native,
                (sums, (1, 2, 3), ("fn1", "meta1", None, None, None), (4, 0, 2, 3), (None,) * 4) + native]
    plan = _C.Plan(p, [None, None], outs, device=(1, 0), scratch=[(_empty, ((3, 5), (5, 1), torch.float32))],
                   launches=launches, stream=lambda: 77, current_device=lambda: current, check=check)
    return plan, calls


def test_plan_with_launches_calls_each_launcher_on_the_buffers_in_order():
    plan, calls = _launching_plan()
    r = _C.Runner(lambda *a: "fallback", torch.utils.dlpack.to_dlpack)
    r.plan = plan
    x, y = torch.randn(3, 5), torch.randn(5)
    a, b = r(x, y)
    torch.testing.assert_close(a, (x * y).sum(1))
    assert torch.equal(b, x.amax(0))
    assert calls == [("products", 15, 1, 1, 77, "fn0", "meta0", None, None, None, 15),
                     ("sums", 1, 2, 3, 77, "fn1")]
    assert r.counts == (1, 0)


def test_plan_launches_natively_only_what_the_driver_vouches_for():
    """A launch's native=(CUfunction, threads, shared) asks the Plan to call
    cuLaunchKernel itself; it does so only where the driver is there and
    its cuFuncGetParamInfo lists the kernel's pointers (a null handle lists
    none, with or without a GPU), else the launcher runs it, as before."""
    for native in [(0, 64, 0), "not a spec", None]:
        plan, calls = _launching_plan(native=(native,))
        assert plan.native == 0
        r = _C.Runner(lambda *a: "fallback", torch.utils.dlpack.to_dlpack)
        r.plan = plan
        x, y = torch.randn(3, 5), torch.randn(5)
        a, b = r(x, y)
        torch.testing.assert_close(a, (x * y).sum(1))
        assert [c[0] for c in calls] == ["products", "sums"] and r.counts == (1, 0)
    with pytest.raises(TypeError, match="launches holds"):
        _launching_plan(native=(None, None))


def test_plan_with_launches_checks_a_scratch_buffer_after_them():
    """check=(k, fn): fn gets scratch buffer k once every launch is queued
    (the backend reads an index status back there); what it raises, the
    call raises."""
    seen = []
    r = _C.Runner(lambda *a: "fallback", torch.utils.dlpack.to_dlpack)
    r.plan, calls = _launching_plan(check=(0, lambda t: seen.append((len(calls), t.clone()))))
    x, y = torch.randn(3, 5), torch.randn(5)
    r(x, y)
    assert len(seen) == 1 and seen[0][0] == 2
    torch.testing.assert_close(seen[0][1], x * y)  # the products the first launch wrote there

    def flagged(t):
        raise coil.IndexOutOfRange("index 7 is out of bounds for dimension 0 with size 5")
    r.plan, calls = _launching_plan(check=(0, flagged))
    with pytest.raises(coil.IndexOutOfRange, match="index 7"):
        r(x, y)
    assert len(calls) == 2
    for bad in ((1, print), (0, "not callable"), ("0", print), (0,)):
        with pytest.raises(TypeError, match="check is"):
            _launching_plan(check=bad)
    with pytest.raises(TypeError, match="check is"):
        _C.Plan(_C.compile_source("f.py", SRC), [None, None], [(_empty, ((3,), (1,), torch.float32))] * 2,
                check=(0, print))


def test_plan_with_launches_runs_only_on_its_device():
    plan, calls = _launching_plan(current=1)  # another device is current: its launches would go there
    r = _C.Runner(lambda *a: "fallback", torch.utils.dlpack.to_dlpack)
    r.plan = plan
    assert r(torch.randn(3, 5), torch.randn(5)) == "fallback" and not calls
    r.plan, calls = _launching_plan()
    assert r(torch.randn(3, 5).to("meta"), torch.randn(5)) == "fallback" and not calls


def test_plan_with_launches_is_checked_when_made():
    p = _C.compile_source("f.py", SRC)
    outs = [(_empty, ((3,), (1,), torch.float32))] * 2
    kw = {"device": (1, 0), "stream": lambda: 0, "current_device": lambda: 0}
    with pytest.raises(ValueError, match="slot 1 is not -1 or a buffer"):
        _C.Plan(p, [None, None], outs, launches=[(print, (1, 1, 1), (), (0, 4), (None, None))], **kw)
    with pytest.raises(TypeError, match="launches holds"):
        _C.Plan(p, [None, None], outs, launches=[(print, (1, 1), (), (0,), (None,))], **kw)
    with pytest.raises(TypeError, match="launches need stream"):
        _C.Plan(p, [None, None], outs, launches=[], device=(1, 0))
    with pytest.raises(TypeError, match="scratch"):
        _C.Plan(p, [None, None], outs, scratch=["not an allocator"])


def _permute_view():
    """A View of permute(x, [1, 0]) for a [3, 5] tensor traced contiguous
    (as the backend makes one from the graph's metadata), and the calls of
    its make."""
    from coil.backend import _reinterpret
    made = []

    def make(*a):
        made.append(a[1:])
        return _reinterpret(*a)
    perm = torch.ops.aten.permute.default
    return _C.View((torch.Tensor, torch.nn.Parameter), (3, 5), (5, 1), (5, 3), (1, 5), 0, make,
                   torch.is_grad_enabled, ((perm, ([1, 0],), None),)), made


def test_view_is_made_from_the_traced_layout_without_the_op():
    v, made = _permute_view()
    x = torch.randn(3, 5)
    y = v(x)
    assert made == [((5, 3), (1, 5), 0)] and v.counts == (1, 0)
    assert y.shape == (5, 3) and y.stride() == (1, 5) and y.data_ptr() == x.data_ptr() and torch.equal(y, x.t())
    w = torch.nn.Parameter(torch.randn(3, 5))
    with torch.no_grad():  # as in aot_autograd's compiled forward
        assert torch.equal(v(w), w.t()) and v.counts == (2, 0)


@pytest.mark.parametrize("case", ["strides", "shape", "subclass", "needs_grad"])
def test_view_of_another_tensor_runs_the_op(case):
    """What the traced layout does not describe runs the op, with its own
    result: another layout or shape, a tensor subclass, a tensor that
    autograd has to track."""

    class Sub(torch.Tensor):
        pass
    v, made = _permute_view()
    x = {"strides": torch.randn(5, 3).t(), "shape": torch.randn(3, 6), "subclass": torch.randn(3, 5).as_subclass(Sub),
         "needs_grad": torch.randn(3, 5, requires_grad=True)}[case]
    y = v(x)
    want = x.permute(1, 0)
    assert not made and v.counts == (0, 1)
    assert type(y) is type(want) and y.shape == want.shape and y.stride() == want.stride() and torch.equal(y, want)
    assert (y.grad_fn is not None) == (case == "needs_grad")


def test_view_chain_runs_its_ops_in_turn_and_is_checked_when_made():
    aten = torch.ops.aten
    ops = ((aten.view.default, ([2, 3, 5],), None), (aten.permute.default, ([0, 2, 1],), None),
           (aten.slice.Tensor, (1, 1, 4), None))

    def make(t, sizes, strides, offset):
        return t.as_strided(sizes, strides, t.storage_offset() + offset)
    v = _C.View((torch.Tensor,), (6, 5), (5, 1), (2, 3, 3), (15, 1, 5), 1, make, torch.is_grad_enabled, ops)
    for x in (torch.randn(6, 5), torch.randn(12, 5)[::2]):  # the traced layout, then rows 10 apart: the ops
        y, want = v(x), x.view(2, 3, 5).permute(0, 2, 1)[:, 1:4]
        assert y.stride() == want.stride() and y.storage_offset() == want.storage_offset() and torch.equal(y, want)
    assert v.counts == (1, 1)
    with pytest.raises(ValueError):
        _C.View((torch.Tensor,), (6, 5), (5, 1), (6, 5), (5, 1), 0, make, torch.is_grad_enabled, ())
    with pytest.raises(TypeError):
        _C.View((torch.Tensor,), (6, 5), (5, 1), (6, 5), (5, 1), 0, make, torch.is_grad_enabled, ((1, (), None),))
