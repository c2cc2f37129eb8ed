"""torch.compile(backend="coil"): small models forward and backward for
several training steps against eager, strided and broadcast inputs,
dtypes, zero-size dims, dynamic shapes, strict mode, explain, emit, the
NPU dialect through coil's executor, and logging."""
import contextlib
import copy
import logging
import operator
import re

import pytest
import torch
import torch.nn.functional as F

import coil


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(d) + 0.5)
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


class RMSMLPBlock(torch.nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = RMSNorm(d)
        self.gate = torch.nn.Linear(d, 2 * d, bias=False)
        self.up = torch.nn.Linear(d, 2 * d, bias=False)
        self.down = torch.nn.Linear(2 * d, d, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class LayerNormSoftmaxBlock(torch.nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.q = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, d)

    def forward(self, x):
        h = self.ln(x)
        q = self.q(h)
        att = torch.softmax(q @ h.transpose(-1, -2) / h.shape[-1] ** 0.5, dim=-1)
        return x + self.out(F.gelu(att @ h))


class ConvBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.head(h.mean(dim=(2, 3)))


def train(model, batches, steps=3, lr=0.05):
    """Losses and, per step, every parameter's gradient."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses, grads = [], []
    for x, y in batches[:steps]:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        losses.append(loss.detach())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    return losses, grads


@pytest.mark.parametrize("make,shape", [(RMSMLPBlock, (2, 16, 64)), (LayerNormSoftmaxBlock, (2, 12, 48)),
                                        (ConvBlock, (4, 3, 8, 8))], ids=["rms_mlp", "layernorm_softmax", "conv"])
def test_training_steps_match_eager(make, shape):
    torch.manual_seed(0)
    eager = make()
    compiled_model = copy.deepcopy(eager)
    compiled = torch.compile(compiled_model, backend="coil")
    out_shape = eager(torch.randn(shape)).shape
    batches = [(torch.randn(shape), torch.randn(out_shape)) for _ in range(3)]
    want_losses, want_grads = train(eager, batches)
    got_losses, got_grads = train(compiled, batches)
    for step, (w, g) in enumerate(zip(want_losses, got_losses)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"loss of step {step}")
    for step, (ws, gs) in enumerate(zip(want_grads, got_grads)):
        for (name, _), w, g in zip(eager.named_parameters(), ws, gs):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"grad of {name}, step {step}")


def test_models_run_in_coil_programs():
    """The norms, activations and softmax run in coil; matmul and
    convolution stay ATen by design, and nothing else falls back."""
    report = coil.explain(RMSMLPBlock(), torch.randn(2, 8, 64, requires_grad=True), backward=True)
    ops = {op for k in report.kernels for op in k.ops}
    assert {"aten.rsqrt.default", "aten.mean.dim", "aten.sigmoid.default"} & ops, report
    assert any(k.graph.startswith("backward") for k in report.kernels), report
    assert all(f.by_design for f in report.fallbacks), report
    report = coil.explain(ConvBlock(), torch.randn(2, 3, 8, 8, requires_grad=True), backward=True)
    assert any(f.op == "aten.convolution.default" and f.by_design for f in report.fallbacks), report
    # max pooling reaches coil whole, not Inductor's decomposition into its
    # own prims (its backward over windows that do not overlap is
    # Inductor's scatter_add; tests/python/test_more_ops.py has overlapping ones)
    ops = {op for k in report.kernels for op in k.ops}
    assert "aten.max_pool2d_with_indices.default" in ops, report
    assert all(f.by_design for f in report.fallbacks), report
    text = str(report)
    assert "coil program" in text and "aten.convolution.default" in text


def rms_norm_weight(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def test_seed_weight_gradient_is_a_coil_program():
    """The weight gradient of RMSNorm (the seed case) is a sum over three
    axes of the backward graph, and it runs in coil."""
    x = torch.randn(2, 32, 4, 16)
    w = torch.rand(16, requires_grad=True)
    g = torch.randn(2, 32, 4, 16)
    f = torch.compile(rms_norm_weight, backend="coil")
    f(x, w).backward(g)
    got = w.grad.clone()
    w.grad = None
    rms_norm_weight(x, w).backward(g)
    torch.testing.assert_close(got, w.grad, rtol=1e-5, atol=1e-5)
    report = coil.explain(rms_norm_weight, x, w, backward=True)
    assert any("aten.sum.dim_IntList" in k.ops for k in report.kernels if k.graph.startswith("backward")), report


def test_forward_saves_row_statistics_not_products():
    """The forward saves for the backward what Inductor's partitioner saves:
    the input and a row's rsqrt, not x * rsqrt (a tensor of x's size that
    the forward would write and the backward read again)."""
    x = torch.randn(2, 32, 4, 16)
    w = torch.rand(16, requires_grad=True)
    saved = []

    def pack(t):
        saved.append(t)
        return t
    torch._dynamo.reset()
    f = torch.compile(rms_norm_weight, backend="coil")
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = f(x, w)
    assert saved, "nothing saved for the backward: the test no longer sees what it checks"
    full = [tuple(t.shape) for t in saved if t.numel() == x.numel() and t.data_ptr() != x.data_ptr()]
    assert not full, f"the forward saved tensors of the input's size besides the input: {full}"
    out.backward(torch.ones_like(out))
    w.grad, got = None, w.grad
    rms_norm_weight(x, w).backward(torch.ones_like(out))
    torch.testing.assert_close(got, w.grad, rtol=1e-5, atol=1e-5)


def pointwise_and_rows(x, y):
    return torch.sigmoid(x) * y + x.sum(-1, keepdim=True), (x * y).amax(0)


@pytest.mark.parametrize("layout", ["transposed", "expanded", "sliced", "contiguous"])
def test_strided_and_broadcast_inputs(layout):
    base = torch.randn(24, 16)
    x = {"transposed": torch.randn(16, 24).t(), "expanded": torch.randn(1, 16).expand(24, 16),
         "sliced": base[::2].repeat(2, 1)[:, :], "contiguous": base}[layout]
    if layout == "sliced":
        x = torch.randn(48, 16)[::2]
    y = torch.randn(24, 16)
    f = torch.compile(pointwise_and_rows, backend="coil")
    for g, w in zip(f(x, y), pointwise_and_rows(x, y)):
        torch.testing.assert_close(g, w)


def mixed(x, i, m):
    s = (x.float() * 2).sum(-1)
    return s.to(x.dtype), (i * 3 + 1).amax(-1), (m & (i > 0)).any(-1), torch.where(m, x, -x)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize("itype", [torch.int32, torch.int64])
def test_dtypes(dtype, itype):
    x = torch.randn(5, 33).to(dtype)
    i = torch.randint(-9, 9, (5, 33), dtype=itype)
    m = torch.rand(5, 33) > 0.5
    f = torch.compile(mixed, backend="coil")
    got, want = f(x, i, m), mixed(x, i, m)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, rtol=1e-2, atol=1e-2)


def rows_only(x, y):
    return torch.sigmoid(x) * y + x.sum(-1, keepdim=True)


@pytest.mark.parametrize("shape", [(0, 16), (4, 0)])
def test_zero_size_dims(shape):
    f = torch.compile(rows_only, backend="coil")
    x, y = torch.randn(shape), torch.randn(shape)
    got, want = f(x, y), rows_only(x, y)
    assert got.shape == want.shape and torch.equal(got, want)


def softmax_rows(x):
    return torch.softmax(x * 0.5, dim=-1)


def test_dynamic_shapes_specialize_per_shape_and_report_recompiles():
    f = torch.compile(softmax_rows, backend="coil", dynamic=True)
    with coil.recording() as report:
        for rows in (3, 5, 7, 3, 7, 5):  # back to a shape compiled before: no recompile
            x = torch.randn(rows, 10)
            torch.testing.assert_close(f(x), softmax_rows(x))
    assert report.kernels and len(report.recompiles) == 2, report
    assert "recompile" in str(report)


def rope_attention(x, cos):
    """Llama's attention in small: a pointwise op of a transposed view keeps
    the transpose's layout, attention's result follows its query's, and
    the last view relies on both (the graph elides the contiguous())."""
    b, n, _ = x.shape
    q = x.view(b, n, 4, 16).transpose(1, 2)
    q = q * cos + q.flip(-1)
    o = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    return o.transpose(1, 2).contiguous().view(b, n, 64)


def test_dynamic_shapes_give_results_the_traced_layout():
    """With symbolic sizes, a group's result still has the layout traced
    (its strides taken at the call's sizes): it came back contiguous, and
    the view after attention failed, as in transformers' Llama with
    dynamic=True."""
    f = torch.compile(rope_attention, backend="coil", dynamic=True)
    for n in (8, 13):
        x, cos = torch.randn(2, n, 64), torch.randn(n, 16)
        torch.testing.assert_close(f(x, cos), rope_attention(x, cos))


def sorted_rows(x):
    return torch.sort(x, dim=-1).values * 2  # sort is not in coil's vocabulary


def test_strict_mode_raises_naming_op_and_line(monkeypatch):
    monkeypatch.setattr(coil.config, "strict", True)
    f = torch.compile(sorted_rows, backend="coil")
    with pytest.raises(Exception, match=r"(?s)aten\.sort.*test_backend\.py:\d+ in sorted_rows"):
        f(torch.randn(4, 8))


def test_fallback_is_logged_not_printed(caplog, capsys):
    caplog.set_level(logging.INFO, logger="coil")
    f = torch.compile(sorted_rows, backend="coil")
    x = torch.randn(4, 8)
    torch.testing.assert_close(f(x), sorted_rows(x))
    assert any("aten.sort" in r.getMessage() for r in caplog.records if r.name == "coil")
    assert capsys.readouterr().out == ""


def test_emit_gives_npu_kernels():
    text = coil.emit(RMSNorm(32), torch.randn(4, 32), target="triton-npu")
    assert "@triton.jit" in text and "tl.program_id" in text
    assert "coil program" in text


def test_triton_npu_target_through_the_executor():
    model = RMSNorm(32)
    x = torch.randn(3, 32)
    f = torch.compile(model, backend="coil", options={"target": "triton-npu"})
    torch.testing.assert_close(f(x), model(x))


def test_other_dtype_after_compile_is_handled():
    f = torch.compile(softmax_rows, backend="coil")
    f(torch.randn(3, 10))
    x = torch.randn(3, 10, dtype=torch.float64)
    torch.testing.assert_close(f(x), softmax_rows(x))


def scaled_transpose(x):
    return (x * 2.0).t(), (x + 1.0).permute(1, 0)[::2]


def test_results_have_eager_strides():
    """A result eager returns as a view (a transpose; a strided slice of
    one) comes back with eager's strides: computed permuted where the
    layout is a permutation of a dense one, copied into otherwise."""
    f = torch.compile(scaled_transpose, backend="coil")
    for _ in range(2):
        x = torch.randn(6, 10)
        got, want = f(x), scaled_transpose(x)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.stride() == w.stride()
            torch.testing.assert_close(g, w)


def test_views_of_inputs_that_leave_a_group_stay_aten():
    """A group's result that is only a view of its inputs (a weight's
    gradient returned as permute(permute(mm))) is left to ATen, with the
    views it is made of; a view feeding the group's own nodes stays."""
    from coil.backend import _views_of_inputs
    aten = torch.ops.aten
    g = torch.fx.Graph()
    x, w = g.placeholder("x"), g.placeholder("w")
    p1 = g.call_function(aten.permute.default, (w, [1, 0]))
    p2 = g.call_function(aten.permute.default, (p1, [1, 0]))
    m = g.call_function(aten.mul.Tensor, (x, 2.0))
    v = g.call_function(aten.view.default, (x, [-1]))
    s = g.call_function(aten.add.Tensor, (v, 1.0))
    t = g.call_function(aten.t.default, (m,))  # a view of a computed value: coil's
    g.output((p2, s, t))
    assert _views_of_inputs([p1, p2, m, v, s, t]) == {p1, p2}


def mm_views(a, b):
    m = torch.mm(a, b)
    return m.t().t(), m.view(-1)[2:7], a.t()


def test_graph_code_makes_views_from_the_traced_layout():
    """The graph's code makes each view (a chain of views where each feeds
    only the next: a weight's gradient permute(permute(mm))) as one
    _C.View, with no OpOverload call; a tensor whose layout is not the
    traced one gets the ops' own result."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from coil import _C
    from coil.backend import _flat_code
    a, b = torch.randn(4, 3), torch.randn(3, 5)
    gm = make_fx(mm_views, tracing_mode="fake")(a, b)
    code = _flat_code(gm, {}, "g")
    calls = [line.split("= ", 1)[1] for line in code.source.splitlines() if "(" in line and "= _k" in line]
    views = [c for c in calls if isinstance(code.__globals__[c.split("(")[0]], _C.View)]
    assert len(views) == len(calls) - 1 and any(c.count("aten.t.default") == 2 for c in views), code.source
    for x in (a, torch.randn(3, 4).t()):  # the traced layout, then another
        got, want = code([x, b]), mm_views(x, b)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.stride() == w.stride() and g.storage_offset() == w.storage_offset()
            assert torch.equal(g, w)
    counts = [code.__globals__[c.split("(")[0]].counts for c in views]
    assert sum(f for f, _ in counts) == len(views) + len(views) - 1 and sum(s for _, s in counts) == 1


def scaled_rows_to_two_mms(x, w1, w2):
    h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return torch.mm(h.view(-1, 8), w1), torch.mm(h.view(-1, 8), w2)


def test_views_of_a_groups_value_that_leave_it_are_views_not_results():
    """Views of a value a group computes, read only outside the group (the
    [128, 256] views of an RMSNorm's result for q_proj, k_proj and
    v_proj), are made by the graph's code from the group's one result:
    not written by coil as results of their own, each a copy."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from coil.backend import _views_that_leave

    def f(x):
        m = x * 2.0
        v2 = m.permute(1, 0)
        return m.view(-1), v2.t(), v2 + 1.0, m.sum(0).view(1, -1)
    g = make_fx(f, tracing_mode="fake")(torch.randn(64, 32)).graph
    nodes = [n for n in g.nodes if n.op == "call_function"]
    m, v2, v1, v3, s, r, v4 = nodes  # mul, permute, view, t, add, sum, view
    # v2 is read in the group too, and v4's 32 elements cost less to copy than to view: both stay
    assert _views_that_leave(nodes) == {v1, v3}
    x, w1, w2 = torch.randn(2, 64, 8), torch.randn(8, 3), torch.randn(8, 5)
    report = coil.explain(scaled_rows_to_two_mms, x, w1, w2)
    assert report.kernels and all("aten.view.default" not in k.ops for k in report.kernels), report
    f = torch.compile(scaled_rows_to_two_mms, backend="coil")
    for got, want in zip(f(x, w1, w2), scaled_rows_to_two_mms(x, w1, w2)):
        torch.testing.assert_close(got, want)


class _Launches:
    """Stands for a module's Triton kernel: records what it is asked to
    compile ahead (warmup) and what a call launches."""

    def __init__(self, log):
        self.log = log

    def warmup(self, *args, grid, **options):
        self.log.append(("warm", args, grid, options))

    def __getitem__(self, grid):
        return lambda *args, **options: self.log.append(("call", args, grid, options))


def _specialization(arg):
    """What Triton's JIT specializes an argument on: a pointer's dtype and
    whether its address is a multiple of 16; any other value itself."""
    return (arg.dtype, arg.data_ptr() % 16 == 0) if hasattr(arg, "data_ptr") else arg


def test_cuda_modules_are_compiled_ahead_for_the_specialization_of_their_first_call(monkeypatch):
    """A graph's GPU modules are compiled ahead, in parallel, each launch
    asked of Triton with what the first call then binds: the same dtypes,
    pointer alignments (an input read in place at an offset of 4 bytes is
    not aligned; one coil lays out again, and every buffer coil allocates,
    are), constexprs, grid, warps and options.  CPU tensors stand for CUDA
    ones here; tools/device/backend_cuda.py checks on the GPU that a first
    call compiles nothing."""
    from coil import _C, backend
    x = torch.randn(4, 34)[:, 1:]                # read in place, 4 bytes into its storage
    w = torch.randn(33, 4, dtype=torch.bfloat16).t()  # laid out again by coil_alloc
    g = _C.Graph("warm")
    xi = g.input("x", "float32", tuple(x.shape), x.stride())
    wi = g.input("w", "bfloat16", tuple(w.shape), (33, 1))
    sm = g.call("F.softmax", [("v", xi)], {"dim": ("i", -1)})
    g.output([g.call("torch.mul", [("v", sm), ("v", wi)], {})])
    module = backend._load_module(g.compile(target="triton-gpu").code)
    log = []
    for launch in module.COIL_LAUNCHES:
        monkeypatch.setattr(module, launch["kernel"], _Launches(log))
    monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())
    token = backend._ahead.set(True)
    try:
        backend._warm(module, [x, 3, w], torch.device("cuda", 0))
    finally:
        backend._ahead.reset(token)
    for kernel, args, num_warps in module.coil_bind(module.coil_alloc([x, w])):
        kernel(*args, num_warps=num_warps, **module.COIL_LAUNCH_OPTIONS)
    n = len(module.COIL_LAUNCHES)
    assert [k for k, *_ in log] == ["warm"] * n + ["call"] * n
    pointers = {_specialization(a) for _, args, _, _ in log[:n] for a in args if hasattr(a, "data_ptr")}
    assert {(torch.float32, False), (torch.bfloat16, True), (torch.float32, True)} <= pointers
    for (_, warm_args, warm_grid, warm_options), (_, args, grid, options) in zip(log[:n], log[n:]):
        assert [_specialization(a) for a in warm_args] == [_specialization(a) for a in args]
        assert (warm_grid, warm_options) == (grid, options)
    log.clear()
    backend._warm(module, [x, 3, w], torch.device("cuda", 0))  # outside _compiling_ahead: nothing asked
    assert log == []


def test_a_tuning_module_compiles_every_candidate_ahead(monkeypatch):
    """Under --autotune the first call times each candidate in turn; _warm
    asks Triton for all of them ahead (each distinct compile once, with
    its warps and stages), so they compile in parallel before that call
    rather than one after another during it.  COIL_AUTOTUNE=0 runs the
    model's launches only, and only those are asked for."""
    from coil import _C, backend
    g = _C.Graph("warm_tuned")
    xi = g.input("x", "float32", (40, 20011))
    g.output([g.call("torch.sum", [("v", xi)], {"dim": ("i", 0)})])
    module = backend._load_module(g.compile(target="triton-gpu", autotune=True).code)
    assert module.COIL_TUNE
    log = []
    names = {launch["kernel"] for entry in module.COIL_TUNE for cand in entry["candidates"] for launch in cand["launches"]}
    for name in names | {launch["kernel"] for launch in module.COIL_LAUNCHES}:
        monkeypatch.setattr(module, name, _Launches(log))
    monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())

    def compile_key(launch):
        consts = tuple(v for _, kind, v in launch["args"] if kind == "constexpr")
        return (consts, launch["num_warps"], launch.get("num_stages") or None)

    def warmed():
        log.clear()
        token = backend._ahead.set(True)
        try:
            backend._warm(module, [torch.randn(40, 20011)], torch.device("cuda", 0))
        finally:
            backend._ahead.reset(token)
        return [(tuple(v for v in args if not hasattr(v, "data_ptr")), options["num_warps"], options.get("num_stages"))
                for _, args, _, options in log]

    candidates = {compile_key(launch) for entry in module.COIL_TUNE for cand in entry["candidates"]
                  for launch in cand["launches"]}
    got = warmed()
    assert len(got) == len(set(got)), "a compile asked for twice"
    assert set(got) == candidates | {compile_key(launch) for launch in module.COIL_LAUNCHES}
    assert len(candidates) > len(module.COIL_LAUNCHES)
    monkeypatch.setenv("COIL_AUTOTUNE", "0")
    assert sorted(warmed(), key=repr) == sorted({compile_key(launch) for launch in module.COIL_LAUNCHES}, key=repr)


def test_cuda_modules_that_differ_only_in_their_names_are_one_module():
    """Groups whose triton-gpu modules differ only in the program's name (a
    model's repeated layers) share one loaded module, so Triton compiles
    their kernels once; a module of other code is its own."""
    from coil import _C, backend

    def code(name, scale):
        g = _C.Graph(name)
        x = g.input("x", "float32", (6, 37))
        y = g.call("torch.mul", [("v", x), ("f", scale)], {})
        g.output([g.call("F.softmax", [("v", y)], {"dim": ("i", -1)})])
        return g.compile(target="triton-gpu").code

    first, twin, other = code("layer0_norm", 2.0), code("layer1_norm", 2.0), code("layer2_norm", 3.0)
    assert first != twin and "coil_layer1_norm_k" in twin
    a, b, c = (backend._load_module(m) for m in (first, twin, other))
    assert a is b and a is not c
    assert a.COIL_FUNCTION == "layer0_norm" and c.COIL_FUNCTION == "layer2_norm"


def test_index_status_buffers_are_taken_again_only_when_read_back_clean():
    """A CUDA Plan's status buffer goes back to its pool when the check read
    it as zero (no kernel flagged it: still zero for the next call), and
    not when it was flagged; an empty pool allocates (on CUDA: not here)."""
    from coil import backend
    pool = backend._StatusBuffers({3: "index 12 is out of bounds for dimension 0 with size 10"})
    clean = torch.zeros(1, dtype=torch.int32)
    pool.check(clean)
    assert pool.take((1,), (1,), torch.int32) is clean and pool.pool == []
    pool.check(clean)
    with pytest.raises(coil.IndexOutOfRange, match="index 12 is out of bounds"):
        pool.check(torch.tensor([3], dtype=torch.int32))
    assert pool.pool == [clean]
    assert pool.take((1,), (1,), torch.int32) is clean and pool.pool == []


def test_zeroed_buffers_are_one_per_stream_and_new_under_graph_capture(monkeypatch):
    """A CUDA Plan's zeroed scratch (the counters of a split that its last
    part's block combines, which the launches leave zero): calls in one
    stream's order share one buffer, a call on another stream gets its own,
    and a call under CUDA graph capture a new one (streams faked here)."""
    from coil import backend
    state = {"stream": 7, "capturing": False}
    monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", lambda index: state["stream"], raising=False)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: state["capturing"])
    made = []

    def zeros(shape, dtype):
        made.append(torch.zeros(shape, dtype=dtype))
        return made[-1]
    pool = backend._ZeroedBuffers(0, zeros=zeros)
    first = pool.take((64,), (1,), torch.int32)
    assert first.dtype == torch.int32 and first.shape == (64,) and not first.any()
    assert pool.take((64,), (1,), torch.int32) is first and len(made) == 1
    state["stream"] = 9
    other = pool.take((64,), (1,), torch.int32)
    assert other is not first and len(made) == 2
    state["stream"] = 7
    assert pool.take((64,), (1,), torch.int32) is first
    state["capturing"] = True
    captured = pool.take((64,), (1,), torch.int32)
    assert captured is not first and captured is not other and len(made) == 3


def test_a_group_whose_first_call_fails_an_index_check_runs_its_plan_after():
    """A first call that raises coil.IndexOutOfRange (a shape compiled at
    call time, dynamic=True) still leaves the group's plan in its runner:
    later calls do not take the slow path for good."""
    import gc
    from coil import backend
    before = backend._graph_count  # the groups of graphs compiled here, not other tests' still alive
    emb = torch.nn.Embedding(10, 4)
    f = torch.compile(lambda i: emb(i).sum(-1), backend="coil", dynamic=True)
    with torch.no_grad():
        with pytest.raises(coil.IndexOutOfRange):
            f(torch.full((3, 5), 12))
        ids = torch.randint(0, 10, (3, 5))
        for _ in range(2):
            torch.testing.assert_close(f(ids), emb(ids).sum(-1))
    groups = [o for o in gc.get_objects() if type(o) is backend.CoilGroup and o.cache
              and int(re.search(r"\d+$", o.graph_name).group()) > before]
    assert groups and all(g.runner.counts == (2, 1) for g in groups), [g.runner.counts for g in groups]


class DeepBlocks(torch.nn.Module):
    """RMSNorm + MLP blocks, enough of them that the graphs pass a small
    partition window."""

    def __init__(self, blocks=3, d=32):
        super().__init__()
        self.blocks = torch.nn.ModuleList(RMSMLPBlock(d) for _ in range(blocks))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


DEEP_SHIFT = torch.linspace(-1, 1, 16)


def deep_blocks_graph(x, w1, w2, v):
    """An ATen graph's worth of blocks: rows normalised, a matmul, pointwise,
    a var_mean (a result taken apart by getitems) and a constant tensor (a
    get_attr node in make_fx's graph)."""
    for _ in range(3):
        var, mean = torch.var_mean(x, -1, keepdim=True)
        x = (x - mean) * torch.rsqrt(var + 1e-5) * w1
        x = torch.sigmoid(x @ v) * w2 + x.sum(-1, keepdim=True) + DEEP_SHIFT
    return x


def test_large_graphs_are_partitioned_in_windows_cut_at_aten_calls():
    """With a window smaller than the graph, the partitioner runs over runs
    of consecutive nodes, each cut before an ATen call: every group lies in
    one run, a getitem stays in its producer's run, the groups together
    hold every supported node the whole graph's groups hold, and the fused
    graph (no cycles, or fuse_by_partitions raises) computes what the graph
    does."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.passes.utils.fuser_utils import fuse_by_partitions
    from coil import backend
    args = (torch.randn(4, 16), torch.rand(16), torch.rand(16), torch.randn(16, 16))
    gm = make_fx(deep_blocks_graph)(*args)
    support = backend._Support({"cpu"}, {})
    nodes = list(gm.graph.nodes)
    assert any(n.op == "get_attr" for n in nodes), "no constant in the graph: the test no longer covers one"
    supported = {n for n in nodes if support.is_node_supported(None, n)}
    runs = list(backend._windows(nodes, supported, 6))
    assert len(runs) >= 3, "the graph no longer passes the window: the test checks nothing"
    assert [n for r in runs for n in r] == nodes
    run_of = {n: i for i, r in enumerate(runs) for n in r}
    for i, r in enumerate(runs[1:], 1):
        first = r[0]
        assert first.target is not operator.getitem, first
        assert first.op == "call_function" and first not in supported or len(runs[i - 1]) >= 12, (first, len(runs[i - 1]))
    for n in nodes:
        if n.target is operator.getitem:
            assert run_of[n] == run_of[n.args[0]], n
    whole = backend._propose_partitions(gm, support, 0)
    windowed = backend._propose_partitions(gm, support, 6)
    assert len(windowed) > len(whole), "no merge was lost to a cut: the windows did not apply"
    for p in windowed:
        assert len({run_of[n] for n in p.nodes}) == 1, p.nodes
    assert {n for p in windowed for n in p.nodes} == {n for p in whole for n in p.nodes}
    want = gm(*args)
    fused = fuse_by_partitions(gm, [dict.fromkeys(n for n in nodes if n in p.nodes) for p in windowed])
    torch.testing.assert_close(fused(*args), want)


def test_training_steps_match_eager_with_a_small_partition_window(monkeypatch):
    from coil import backend
    monkeypatch.setattr(coil.config, "partition_window", 24)
    runs = []
    windows = backend._windows
    monkeypatch.setattr(backend, "_windows", lambda *a: runs.append(list(windows(*a))) or runs[-1])
    torch.manual_seed(0)
    eager = DeepBlocks()
    compiled = torch.compile(copy.deepcopy(eager), backend="coil")
    batches = [(torch.randn(2, 8, 32), torch.randn(2, 8, 32)) for _ in range(2)]
    want_losses, want_grads = train(eager, batches, steps=2)
    got_losses, got_grads = train(compiled, batches, steps=2)
    assert runs and max(len(r) for r in runs) >= 3, "no graph was partitioned in windows: the test checks nothing"
    torch.testing.assert_close(got_losses, want_losses, rtol=1e-4, atol=1e-5)
    for ws, gs in zip(want_grads, got_grads):
        for (name, _), w, g in zip(eager.named_parameters(), ws, gs):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"grad of {name}")
