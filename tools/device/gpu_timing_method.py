#!/usr/bin/env python3
# How do_bench's flush weighs on a 405 MB kernel, on a GPU (the lent H200): OUT=DIR python3 tools/device/gpu_timing_method.py MODULE.py...
"""Where the time of a 405 MB streaming kernel goes under do_bench.

triton.testing.do_bench zeroes a 256 MB buffer before every timed call, so
each call starts with the L2 cache full of dirty lines that must be written
back while the kernel reads.  On a 2 GiB torch.sum that costs little; on the
seed's 405 MB it is a fixed cost of the same size as the gap between 87% and
90% of the read bandwidth.  This script times the same callables four ways,
in one process:

  do_bench      triton.testing.do_bench, median (the issue's method)
  clean flush   events around each call, after *reading* a 256 MB buffer
                (the L2 then holds clean lines: nothing to write back)
  no flush      events around each call, nothing in between (the inputs'
                last 50 MB may still be in L2 from the call before)
  graph         the callable captured in a CUDA graph, replayed after a clean
                flush (no launch gaps between a module's kernels)

for: torch.sum over 2 GiB and over the seed's 405 MB, a read-only Triton
kernel of 405 MB, and coil's emitted modules given on the command line.

    build/coil emit --target triton-gpu --harness examples/rms_norm_weight_grad.py > /tmp/seed.py
    OUT=results python3 tools/device/gpu_timing_method.py /tmp/seed.py
"""
import importlib.util
import os
import statistics
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

REPS = 60


@triton.jit
def read_sum(a_ptr, ws_ptr, N: tl.constexpr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    # each program sums ITERS contiguous blocks; one partial per program
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(ITERS):
        offs = (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(a_ptr + offs, mask=offs < N, other=0.0)
    tl.store(ws_ptr + pid, tl.sum(acc, 0))


def events(fn, before):
    times = []
    for _ in range(REPS):
        before()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return statistics.median(times)


def graphed(fn, before):
    fn()
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return events(g.replay, before)


def load_module(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    paths = sys.argv[1:]
    dev = "cuda"
    big = torch.ones(2**29, dtype=torch.float32, device=dev)  # 2 GiB
    flush_buf = torch.ones(2**26, dtype=torch.float32, device=dev)  # 256 MB

    def clean_flush():
        flush_buf.sum()

    rows = []
    cases = [("torch.sum 2 GiB", lambda: big.sum(), big.numel() * 4)]
    seed_bytes = None
    for p in paths:
        m = load_module(p)
        inputs = m.coil_make_inputs(dev)
        bufs = m.coil_alloc(inputs)
        calls = m.coil_bind(bufs)

        def run(calls=calls, opts=getattr(m, "COIL_LAUNCH_OPTIONS", {})):
            for kernel, args, nw in calls:
                kernel(*args, num_warps=nw, **opts)
        nbytes = sum(t.numel() * t.element_size() for t in inputs)
        seed_bytes = seed_bytes or nbytes
        cases.append((f"coil module {os.path.basename(p)}", run, nbytes))
    n = (seed_bytes or 404_750_336) // 4
    flat = torch.ones(n, dtype=torch.float32, device=dev)
    cases.insert(1, ("torch.sum, the seed's bytes", lambda: flat.sum(), n * 4))
    block, iters = 4096, 32
    nprog = triton.cdiv(n, block * iters)
    ws = torch.empty(nprog, device=dev)
    cases.insert(2, ("read-only Triton kernel, the seed's bytes",
                     lambda: read_sum[(nprog,)](flat, ws, n, BLOCK=block, ITERS=iters, num_warps=8), n * 4))

    bw = None
    for name, fn, nbytes in cases:
        fn()
        torch.cuda.synchronize()
        t = [do_bench(fn, rep=200, return_mode="median") * 1e3, events(fn, clean_flush), events(fn, lambda: None),
             graphed(fn, clean_flush)]
        if bw is None:
            bw = nbytes / (t[0] * 1e-6) / 1e9  # the reference: 2 GiB torch.sum under do_bench
        rows.append((name, nbytes, t))
        print(name, nbytes, ["%.1f" % x for x in t], flush=True)

    lines = [f"# Timing method: {torch.cuda.get_device_name()}, torch {torch.__version__}, Triton {triton.__version__}",
             "",
             f"read bandwidth (2 GiB torch.sum, do_bench): {bw:.0f} GB/s; columns are us (and % of that bandwidth)",
             "",
             "| callable | MB | do_bench | clean flush | no flush | CUDA graph, clean flush |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, nbytes, t in rows:
        cells = [f"{x:.1f} ({nbytes / (x * 1e-6) / 1e9 / bw * 100:.1f}%)" for x in t]
        lines.append(f"| {name} | {nbytes / 1e6:.0f} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if os.environ.get("OUT"):
        os.makedirs(os.environ["OUT"], exist_ok=True)
        open(os.path.join(os.environ["OUT"], "timing_method.md"), "w").write(text)


if __name__ == "__main__":
    main()
