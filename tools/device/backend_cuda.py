# torch.compile(backend="coil") on CUDA tensors, on the lent H200: models forward and backward against eager, and times beside Inductor.
"""Run by tools/device/backend_cuda.sh (it builds the package first).

Checks, on CUDA tensors: the RMSNorm + MLP and LayerNorm + softmax blocks of
tests/python/test_backend.py for three training steps (loss and every
gradient against eager); transformers' Llama from a config, forward and
backward; the seed case (the weight gradient of RMSNorm, a backward) against
eager; an embedding and a cross_entropy for three training steps; a
conv + batch norm + max pool + linear net for three training steps; that a
graph's kernels compile ahead (no coil kernel compiles at its first launch),
also with autotune on (every candidate compiles ahead). TIMES=0 skips the
times.
Times (triton.testing.do_bench medians, same process): the seed's backward, a
softmax, the RMSNorm + MLP block's and Llama's training steps under
backend="coil", Inductor and eager, with each first call (the models' from an
empty Triton cache, coil's also with its Triton compiles one at a time:
config.compile_threads = 1; and aot_eager's, Dynamo and aot_autograd alone,
the floor under both), and the models' steps again with the backends
taking turns (the ratio of coil's to Inductor's, round by round).
Prints one line per result; the caller saves the output."""
import copy
import os
import statistics
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import torch  # noqa: E402
import triton.testing  # noqa: E402

import coil  # noqa: E402
import coil.backend  # noqa: E402,F401
from test_backend import LayerNormSoftmaxBlock, RMSMLPBlock, train  # noqa: E402

dev = torch.device("cuda")
failures = 0


def check(name, fn):
    global failures
    try:
        fn()
        print(f"ok {name}", flush=True)
    except Exception as e:  # noqa: BLE001 - reported
        failures += 1
        print(f"FAIL {name}: {type(e).__name__}: {str(e)[:400]}", flush=True)


def training(make, shape):
    def run():
        torch.manual_seed(0)
        eager = make().to(dev)
        model = copy.deepcopy(eager)
        compiled = torch.compile(model, backend="coil")
        out_shape = eager(torch.randn(shape, device=dev)).shape
        batches = [(torch.randn(shape, device=dev), torch.randn(out_shape, device=dev)) for _ in range(3)]
        wl, wg = train(eager, batches)
        gl, gg = train(compiled, batches)
        for w, g in zip(wl, gl):
            torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
        for ws, gs in zip(wg, gg):
            for w, g in zip(ws, gs):
                torch.testing.assert_close(g, w, rtol=1e-3, atol=1e-4)
        report = coil.explain(make().to(dev), torch.randn(shape, device=dev, requires_grad=True), backward=True)
        assert report.kernels, report
        print(str(report).splitlines()[0], flush=True)
    return run


def llama():
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1000, max_position_embeddings=256)
    torch.manual_seed(0)
    eager = transformers.LlamaForCausalLM(cfg).to(dev).eval()
    model = copy.deepcopy(eager)
    ids = torch.randint(0, 1000, (2, 64), device=dev)
    want = eager(ids).logits
    want.float().pow(2).mean().backward()
    got = torch.compile(model, backend="coil")(ids).logits
    got.float().pow(2).mean().backward()
    torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-3)
    for (n, w), g in zip(eager.named_parameters(), model.parameters()):
        if w.grad is not None:
            torch.testing.assert_close(g.grad, w.grad, rtol=1e-2, atol=1e-4, msg=n)


def rms_norm_weight(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def seed_case():
    x = torch.randn(2, 4096, 64, 128, device=dev)
    w = torch.rand(128, device=dev, requires_grad=True)
    g = torch.randn_like(x)
    f = torch.compile(rms_norm_weight, backend="coil")
    f(x, w).backward(g)
    got = w.grad.clone()
    w.grad = None
    rms_norm_weight(x, w).backward(g)
    torch.testing.assert_close(got, w.grad, rtol=1e-4, atol=1e-2)


def tiny_lm():
    """An embedding and a cross_entropy (tests/python/test_indexing.py's TinyLM) for three SGD steps on CUDA
    against eager: the indexed reads, the embedding's backward (a sum at indices) and cross_entropy's scatter."""
    from test_indexing import TinyLM, steps
    torch.manual_seed(0)
    eager = TinyLM().to(dev)
    compiled = torch.compile(copy.deepcopy(eager), backend="coil")
    batches = [(torch.randint(0, 40, (3, 9), device=dev), torch.randint(0, 40, (3, 9), device=dev)) for _ in range(3)]
    for (wl, wg), (gl, gg) in zip(steps(eager, batches), steps(compiled, batches)):
        torch.testing.assert_close(gl, wl, rtol=1e-5, atol=1e-6)
        for w, g in zip(wg, gg):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6)


def bad_ids():
    """An embedding whose ids are out of range raises coil.IndexOutOfRange on CUDA, as on the CPU
    (the kernels' status: Triton's device_assert is compiled out without its debug mode).  The Plan
    reuses a status buffer it read back clean, never one read back flagged: good, bad, good, good,
    bad calls each give what eager gives or raise."""
    emb = torch.nn.Embedding(10, 8).to(dev)
    f = torch.compile(lambda i: emb(i).sum(-1), backend="coil")
    ids = torch.randint(0, 10, (4, 5), device=dev)
    bad = torch.full((4, 5), 12, device=dev)
    with torch.no_grad():
        for call in ("good", "good", "bad", "good", "good", "bad", "good"):
            if call == "good":  # the first call runs Triton's JIT; later ones the group's Plan
                torch.testing.assert_close(f(ids), emb(ids).sum(-1))
                continue
            try:
                f(bad)
            except coil.IndexOutOfRange as e:
                if "index out of range" not in str(e):
                    raise AssertionError(f"the message does not say so: {e}") from None
                continue
            raise AssertionError("no coil.IndexOutOfRange for ids out of range")


def _rms_block():
    return (RMSMLPBlock(1024).to(dev), (torch.randn(16, 512, 1024, device=dev),), lambda out: out.pow(2).mean())


def _llama(batch=8, seq=256, layers=2):
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=layers, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1000, max_position_embeddings=256)
    model = transformers.LlamaForCausalLM(cfg).to(dev)
    return model, (torch.randint(0, 1000, (batch, seq), device=dev),), lambda out: out.logits.float().pow(2).mean()


def ahead_compile(options=None):
    """A graph's CUDA kernels compile when the graph does, together in
    threads: Llama's first training step (a shape no other check uses) then
    launches no coil kernel that Triton must compile first.  Triton's
    post-compile hook sees every compile: is_manual_warmup, ahead; else at a
    launch.  With options={"autotune": True} every candidate the first call
    times is among those compiled ahead."""
    import triton
    seen = []

    def hook(*, fn, is_manual_warmup, **_):
        if fn.module.startswith("coil_triton_"):
            seen.append(is_manual_warmup)
    before = triton.knobs.runtime.jit_post_compile_hook
    triton.knobs.runtime.jit_post_compile_hook = hook
    try:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model, args, loss_of = _llama(2, 96 if options is None else 80)
        f = torch.compile(model, backend="coil", options=options)
        loss_of(f(*args)).backward()
        torch.cuda.synchronize()
    finally:
        triton.knobs.runtime.jit_post_compile_hook = before
    print(f"coil's Triton compiles in Llama's first step (options {options}): {seen.count(True)} ahead, "
          f"{seen.count(False)} at a launch", flush=True)
    assert seen and not seen.count(False), seen


class PoolNet(torch.nn.Module):
    """ResNet's stem in small: conv, batch norm, relu, a 3x3 max pool of stride 2 (padded), a linear head.
    The pool's forward (values and indices) and its backward (a sum at the indices) are coil's."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(3, 2, 1)
        self.head = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.head(self.pool(torch.relu(self.bn(self.conv(x)))).flatten(1))


def _fresh_triton_cache():
    """A first call that compiles: Triton's disk cache empty (Triton reads
    TRITON_CACHE_DIR when it looks), and none of the Triton modules coil
    loaded before (they keep their compiled kernels) shared."""
    import tempfile
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-")
    coil.backend._modules.clear()


def times(kernels=True):
    """The tables; kernels=False: the models' rows only."""
    rows = []
    if kernels:
        kernel_times(rows)
    turns = []
    for label, make in (("RMSNorm + MLP block [16,512,1024] fw+bw", _rms_block), ("Llama 2 layers [8,256] fw+bw", _llama)):
        steps = {}
        for name in ("eager", "aot_eager", "inductor", "coil, compile_threads=1", "coil"):
            torch._dynamo.reset()
            torch.manual_seed(0)
            _fresh_triton_cache()
            coil.config.compile_threads = 1 if name.endswith("=1") else 32
            model, args, loss_of = make()
            f = model if name == "eager" else torch.compile(model, backend=name.split(",")[0])
            step = _training_step(model, f, args, loss_of)  # bound now: in_turn runs them later
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            ms = triton.testing.do_bench(step, warmup=20, rep=300)
            rows.append((label, name, ms, first))
            steps[name] = step
        turns.append((label, in_turn({k: steps[k] for k in ("eager", "inductor", "coil")})))
    print("| case | backend | ms (do_bench median) | first call s |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.2f} |", flush=True)
    print("\nThe models' steps in turn (rounds of 10 steps a backend; ms a step, medians of the rounds, and the median "
          "of the per-round ratios):\n")
    print("| case | eager ms | Inductor ms | coil ms | coil / Inductor |")
    print("|---|---:|---:|---:|---:|")
    for label, t in turns:
        ratio = statistics.median(c / i for c, i in zip(t["coil"], t["inductor"]))
        e, i, c = (statistics.median(t[k]) * 1e3 for k in ("eager", "inductor", "coil"))
        print(f"| {label} | {e:.3f} | {i:.3f} | {c:.3f} | {ratio:.3f} |", flush=True)


def kernel_times(rows):
    """Rows of the RMSNorm weight's forward + backward and a softmax."""
    x = torch.randn(2, 4096, 64, 128, device=dev)
    w = torch.rand(128, device=dev, requires_grad=True)
    g = torch.randn_like(x)
    for name in ("eager", "inductor", "coil"):
        torch._dynamo.reset()
        f = rms_norm_weight if name == "eager" else torch.compile(rms_norm_weight, backend=name)
        t0 = time.perf_counter()
        f(x, w).backward(g)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0

        def step():
            w.grad = None
            f(x, w).backward(g)
        ms = triton.testing.do_bench(step, warmup=50, rep=300)
        rows.append(("rms_norm fw+bw [2,4096,64,128] f32", name, ms, first))
    s = torch.randn(8192, 4096, device=dev)
    for name in ("eager", "inductor", "coil"):
        torch._dynamo.reset()
        sm = (lambda t: torch.softmax(t, -1))
        f = sm if name == "eager" else torch.compile(sm, backend=name)
        t0 = time.perf_counter()
        f(s)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        ms = triton.testing.do_bench(lambda: f(s), warmup=50, rep=300)
        rows.append(("softmax [8192,4096] f32", name, ms, first))


def _training_step(model, f, args, loss_of):
    def step():
        model.zero_grad(set_to_none=True)
        loss_of(f(*args)).backward()
    return step


def in_turn(steps, rounds=21, n=10):
    """Seconds a step of each backend, one entry per round, the backends
    taking turns within each round: a shared host's load falls on all of
    them alike (do_bench times each alone, minutes apart).  Two rounds of
    warm-up first: a later torch._dynamo.reset() made the others compile
    again.  Every other round takes them in reverse order, so that the
    first of a round has no advantage."""
    out = {k: [] for k in steps}
    for r in range(rounds + 2):
        for name, step in list(steps.items())[::1 if r % 2 else -1]:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                step()
            torch.cuda.synchronize()
            if r >= 2:
                out[name].append((time.perf_counter() - t0) / n)
    return out


def cuda_plans():
    """After its first call a CUDA group runs through its Plan (the compiled kernels' launchers called from C),
    not the Python fallback: three calls of a softmax and an RMSNorm weight's backward, checked against eager,
    and the runners' counts."""
    import gc
    torch._dynamo.reset()
    s = torch.randn(64, 1000, device=dev)
    f = torch.compile(lambda t: torch.softmax(t, -1) * 2, backend="coil")
    x = torch.randn(4, 8, 32, device=dev)
    w = torch.rand(32, device=dev, requires_grad=True)
    rms = torch.compile(rms_norm_weight, backend="coil")
    for _ in range(3):
        torch.testing.assert_close(f(s), torch.softmax(s, -1) * 2)
        w.grad = None
        rms(x, w).backward(torch.ones_like(x))
        got = w.grad.clone()
        w.grad = None
        rms_norm_weight(x, w).backward(torch.ones_like(x))
        torch.testing.assert_close(got, w.grad, rtol=1e-5, atol=1e-5)
    groups = [o for o in gc.get_objects() if type(o) is coil.backend.CoilGroup]  # not isinstance: a dead weakproxy raises
    counts = [g.runner.counts for g in groups]
    print(f"runner counts (plan runs, fallbacks) of {len(groups)} groups: {counts}", flush=True)
    assert groups and all(runs >= 2 for runs, _ in counts), counts
    # Each plan launches every kernel through cuLaunchKernel (coil.config.native_launch), and so
    # does a thread that has not touched CUDA before (with no current context: Triton's launchers).
    natives = [(e.plan.native, len(e.module.COIL_LAUNCHES)) for g in groups for e in g.cache.values()
               if e is not None and e.plan is not None]
    print(f"native launches of the plans (native, launches): {natives}", flush=True)
    assert natives and all(n == k for n, k in natives), natives
    got = []
    t = threading.Thread(target=lambda: got.append(f(s)))
    t.start()
    t.join()
    torch.testing.assert_close(got[0], torch.softmax(s, -1) * 2)


def deep_first_calls(layers=8):
    """The first training step of a deeper Llama (its layers repeat their
    groups: one Triton module, compiled once, for each distinct group), each
    backend with an empty Triton cache, beside aot_eager's (the floor)."""
    print(f"| Llama {layers} layers [8,256] fw+bw | first call s |")
    print("|---|---:|")
    for name in ("aot_eager", "inductor", "coil"):
        torch._dynamo.reset()
        torch.manual_seed(0)
        _fresh_triton_cache()
        model, args, loss_of = _llama(layers=layers)
        step = _training_step(model, torch.compile(model, backend=name), args, loss_of)
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        print(f"| {name} | {time.perf_counter() - t0:.2f} |", flush=True)


if __name__ == "__main__":
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    check("cuda_plans", cuda_plans)
    check("ahead_compile", ahead_compile)
    check("rms_mlp_block_training_cuda", training(RMSMLPBlock, (4, 64, 64)))
    check("layernorm_softmax_block_training_cuda", training(LayerNormSoftmaxBlock, (4, 32, 48)))
    check("llama_forward_backward_cuda", llama)
    check("seed_backward_cuda", seed_case)
    check("embedding_cross_entropy_training_cuda", tiny_lm)
    check("index_out_of_range_cuda", bad_ids)
    check("max_pool_training_cuda", training(PoolNet, (4, 3, 16, 16)))
    check("ahead_compile_autotune", lambda: ahead_compile({"autotune": True}))
    if os.environ.get("TIMES", "1") != "0":
        check("times", times)
    if os.environ.get("DEEP"):
        check("deep_first_calls", deep_first_calls)
    print(f"{failures} failed")
