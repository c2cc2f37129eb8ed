# Where a step of torch.compile(backend="coil") on CUDA spends its time, beside Inductor's.
"""Run on the lent H200 after building the package (tools/device/backend_cuda.sh builds it):

    COIL_CACHE_DIR=/tmp/coil-cache python3 tools/device/backend_profile.py

For each case and backend: the do_bench median of a step (GPU time with the host
keeping up), the host's time to issue one step (perf_counter over N steps with one
synchronisation at the end: where it exceeds the GPU's, the step is bound by the host),
and the kernels' own time per step from torch.profiler, kernel by kernel.  Backends:
eager, Inductor, coil, coil whose Plans call Triton's launchers instead of
cuLaunchKernel (coil.config.native_launch off), coil with aot_autograd's default
partitioner, coil without the CUDA Plans (every launch through Triton's JIT).
Cases: the RMSNorm weight's forward + backward (the seed), a softmax, a tiny graph
whose time is all overhead, and Llama's training step
(tools/device/backend_cuda.py's; the first four backends).  Prints markdown tables.
Each backend is timed alone, minutes apart from the others, on a shared host:
for host-bound steps, tools/device/backend_turns.py's turns are the measure."""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import torch  # noqa: E402
import triton.testing  # noqa: E402

import coil  # noqa: E402,F401
import coil.backend  # noqa: E402,F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_cuda import _llama, _training_step, dev, rms_norm_weight  # noqa: E402


def _coil_default_partition(gm, example_inputs, options=None, **kwargs):
    """backend="coil" with aot_autograd's default partitioner (coil's before Inductor's min-cut), to compare."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._inductor.decomposition import select_decomp_table
    B = coil.backend
    options = dict(options or {})
    return aot_autograd(fw_compiler=lambda g, i: B.compile_graph(g, i, "forward", options),
                        bw_compiler=lambda g, i: B.compile_graph(g, i, "backward", options),
                        decompositions=B._decompositions(select_decomp_table()))(gm, example_inputs)


torch._dynamo.register_backend(name="coil_default_partition")(_coil_default_partition)
torch._dynamo.register_backend(name="coil_no_plan")(coil.backend.coil_backend)
torch._dynamo.register_backend(name="coil_triton_launcher")(coil.backend.coil_backend)


def cases():
    x = torch.randn(2, 4096, 64, 128, device=dev)
    w = torch.rand(128, device=dev, requires_grad=True)
    g = torch.randn_like(x)

    def rms(f):
        def step():
            w.grad = None
            f(x, w).backward(g)
        return step
    yield "rms_norm fw+bw [2,4096,64,128] f32", rms_norm_weight, rms
    s = torch.randn(8192, 4096, device=dev)
    yield "softmax [8192,4096] f32", (lambda t: torch.softmax(t, -1)), (lambda f: (lambda: f(s)))
    t = torch.randn(1024, device=dev)
    yield "tiny (x * 2).sum() [1024] f32", (lambda u: (u * 2).sum()), (lambda f: (lambda: f(t)))
    torch.manual_seed(0)
    model, args, loss_of = _llama()
    yield "Llama 2 layers [8,256] fw+bw", model, (lambda f: _training_step(model, f, args, loss_of))


def host_us(step, n=200):
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    issued = time.perf_counter() - t0
    torch.cuda.synchronize()
    return issued / n * 1e6, (time.perf_counter() - t0) / n * 1e6


def kernels(step, n=20):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            step()
        torch.cuda.synchronize()
    rows = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            r = rows.setdefault(e.name, [0, 0.0])
            r[0] += 1
            r[1] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
    return {k: (c / n, us / n) for k, (c, us) in rows.items()}


def runners(case):
    """Each live coil group's runner counts (plan runs, fallbacks), and for
    a group that keeps falling back, why its entries have no plan."""
    import gc
    print(f"\n### {case}: coil's groups (plan runs, fallbacks)\n")
    for g in [o for o in gc.get_objects() if type(o) is coil.backend.CoilGroup]:
        runs, falls = g.runner.counts
        why = ""
        if falls > 1:
            why = "; ".join(f"status={e.module.COIL_STATUS is not None if e.module else None} "
                            f"layouts={[l and (l.inverse, l.copy) for l in e.layouts]}"
                            for e in g.cache.values() if e)
        print(f"- {g.graph_name}/{g.name}: {runs}, {falls} {why}")
    sys.stdout.flush()


print(torch.__version__, torch.cuda.get_device_name(), flush=True)
cuda_plan = coil.backend._cuda_plan
summary = []
for name, fn, make in cases():
    variants = ("coil_default_partition", "coil_no_plan") if name.startswith(("rms", "tiny")) else ()
    for backend in ("eager", "inductor", "coil", "coil_triton_launcher") + variants:
        # coil_no_plan: CUDA groups without their Plan (every call through Triton's JIT, from Python);
        # coil_triton_launcher: Plans that call Triton's launchers, not cuLaunchKernel
        coil.backend._cuda_plan = (lambda *a: None) if backend == "coil_no_plan" else cuda_plan
        coil.config.native_launch = backend != "coil_triton_launcher"
        torch._dynamo.reset()
        f = fn if backend == "eager" else torch.compile(fn, backend=backend)
        step = make(f)
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        ms = triton.testing.do_bench(step, warmup=50, rep=300)
        issue, whole = host_us(step)
        ks = kernels(step)
        ksum = sum(us for _, us in ks.values())
        summary.append((name, backend, ms * 1e3, issue, whole, ksum, len(ks), first))
        if backend == "coil":
            runners(name)
        print(f"\n### {name}: {backend}\n\n| kernel | launches a step | us a step |\n|---|---:|---:|")
        for k, (c, us) in sorted(ks.items(), key=lambda kv: -kv[1][1]):
            print(f"| {k[:90]} | {c:.1f} | {us:.1f} |")
        sys.stdout.flush()

print("\n| case | backend | do_bench us | host us to issue a step | us a step, 200 back to back | kernels us a step | "
      "kernel names | first call s |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for r in summary:
    print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} | {r[5]:.1f} | {r[6]} | {r[7]:.2f} |")


def launch_costs():
    """Host microseconds of one launch of a small coil kernel (the first of a softmax's), three ways: the JIT
    function (kernel[grid](...), as coil_launch does), the compiled kernel's runner
    (compiled[grid], made once), and the compiled kernel's launcher with pointers as ints."""
    import subprocess
    import tempfile
    src = os.path.join(tempfile.mkdtemp(), "tiny.py")
    with open(src, "w") as f:
        f.write('import torch\n\n\ndef tiny(x: "f32[64, 1024]"):\n    return torch.softmax(x, -1)\n')
    code = subprocess.run([os.path.join(ROOT, "build", "coil"), "emit", "--target", "triton-gpu", src],
                          check=True, capture_output=True, text=True).stdout
    mod = coil.backend._load_module(code)
    x = torch.randn(64, 1024, device=dev)
    bufs = mod.coil_alloc([x])
    launch = mod.COIL_LAUNCHES[0]
    jit = getattr(mod, launch["kernel"])
    grid = launch["grid"]
    args = [bufs[v] if kind == "ptr" else v for _, kind, v in launch["args"]]
    compiled = jit[grid](*args, num_warps=launch["num_warps"], **mod.COIL_LAUNCH_OPTIONS)
    runner = compiled[grid]
    ints = [a.data_ptr() if isinstance(a, torch.Tensor) else a for a in args]
    stream = torch.cuda.current_stream().cuda_stream
    rows = []

    def timed(name, fn, n=2000):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        us = (time.perf_counter() - t0) / n * 1e6
        torch.cuda.synchronize()
        rows.append((name, us))
    timed("jit kernel[grid](...)", lambda: jit[grid](*args, num_warps=launch["num_warps"], **mod.COIL_LAUNCH_OPTIONS))
    timed("compiled[grid] runner", lambda: runner(*args))
    timed("compiled.run, ints", lambda: compiled.run(grid[0], grid[1], grid[2], stream, compiled.function,
                                                      compiled.packed_metadata, None, None, None, *ints))
    timed("torch.cuda.current_stream().cuda_stream", lambda: torch.cuda.current_stream().cuda_stream)
    timed("torch._C._cuda_getCurrentRawStream(0)", lambda: torch._C._cuda_getCurrentRawStream(0))
    timed("torch.empty((64,1024), cuda)", lambda: torch.empty((64, 1024), device=dev))
    timed("module coil_run (alloc + jit launch)", lambda: mod.coil_run([x]))
    print("\n| host cost | us |\n|---|---:|")
    for name, us in rows:
        print(f"| {name} | {us:.2f} |")
    print("first launch's args:", launch["args"])


launch_costs()
