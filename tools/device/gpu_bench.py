#!/usr/bin/env python3
# The bench suite on a GPU, every case in one process: OUT=DIR python3 tools/device/gpu_bench.py LABEL=MODULE.py...
"""coil's GPU modules against torch.compile and a pure read of the same bytes.

Each argument is LABEL=PATH of a module that `coil emit --target triton-gpu
--harness` printed; modules of the same function (COIL_SOURCE_FILE and
COIL_FUNCTION) are one case, timed together in this process on the same
inputs.  For every case:

  check       every module's outputs (poisoned first) against eager PyTorch,
              with the harness's tolerances (coil_check's)
  coil        each module's launches
  compile     torch.compile of the function (default mode), compiled once
  read        a read-only Triton kernel over as many bytes as the case's
              inputs and outputs (the ceiling of a memory-bound case)

With ERR=1, also "err": each float output's largest |out - ref| / max|ref|
against the function run in f64 (eager's own, labelled eager, beside it).
Each is timed two ways: triton.testing.do_bench (median; it zeroes 256 MB
before every call, so the L2 is full of dirty lines) and "flush": CUDA
events around each call after *reading* a 256 MB buffer (cold, clean L2),
the median of REPS calls.  Prints one JSON line per case as it ends
(`GPU_BENCH {...}`), appends it to $OUT/bench.jsonl, and at the end writes
$OUT/bench.md, the table of every case and a line per variant against the
bars (median over torch.compile, the cases slower, the lowest read).

    for f in bench/cases/*.py; do build/coil emit --target triton-gpu --harness $f > m/$(basename $f); done
    OUT=results python3 tools/device/gpu_bench.py $(for f in m/*.py; do echo new=$f; done)
"""
import importlib.util
import json
import os
import statistics
import sys
import time

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

REPS = int(os.environ.get("REPS", "30"))
REP_MS = int(os.environ.get("REP_MS", "100"))
DEV = os.environ.get("DEVICE", "cuda")  # cpu: a dry run under TRITON_INTERPRET=1 (checks, no timing)


@triton.jit
def read_sum(a_ptr, ws_ptr, N: tl.constexpr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    # each program sums ITERS contiguous blocks; one partial per program
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(ITERS):
        offs = (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(a_ptr + offs, mask=offs < N, other=0.0)
    tl.store(ws_ptr + pid, tl.sum(acc, 0))


FLUSH = None


def flushed(fn):
    times = []
    for _ in range(REPS):
        FLUSH.sum()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return statistics.median(times)


def timed(fn):
    if DEV == "cpu":
        return {"do_bench": 1.0, "flush": 1.0}
    fn()
    torch.cuda.synchronize()
    return {"do_bench": do_bench(fn, warmup=25, rep=REP_MS, return_mode="median") * 1e3, "flush": flushed(fn)}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def source_function(m, case):
    """The function from the module's embedded source, defined in a module that
    sys.modules holds (dynamo looks a function's module up by name)."""
    import types
    name = "coil_src_" + case
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec(compile(m.COIL_SOURCE, m.COIL_SOURCE_FILE, "exec"), mod.__dict__)
    return getattr(mod, m.COIL_FUNCTION)


def compare(m, got, want, inputs):
    """The harness's check (its coil_compare) on given outputs: dtype tolerances,
    f32 and f64 grown with the square root of the reduction length."""
    max_in = max([t.numel() for t in inputs] + [1])
    return list(m.coil_compare(got, want, max_in).values())


def rel_err(got, ref):
    """The largest |got - ref| / max|ref| over the float outputs."""
    worst = 0.0
    for g, r in zip(got, ref):
        if g.is_floating_point() and r.is_floating_point() and r.numel():
            d = (g.double() - r.double()).abs().max().item()
            worst = max(worst, d / max(r.double().abs().max().item(), 1e-300))
    return worst


def best_read(nbytes):
    """The faster of two read kernels over nbytes (f32), per method."""
    n = max(1, nbytes // 4)
    flat = torch.ones(n, dtype=torch.float32, device=DEV)
    best = None
    for block, iters, warps in ((4096, 16, 8), (2048, 8, 4)):
        nprog = triton.cdiv(n, block * iters)
        ws = torch.empty(nprog, device=DEV)
        t = timed(lambda: read_sum[(nprog,)](flat, ws, n, BLOCK=block, ITERS=iters, num_warps=warps))
        best = t if best is None else {k: min(best[k], t[k]) for k in t}
    del flat
    return best


def main():
    global FLUSH
    out = os.environ.get("OUT", ".")
    os.makedirs(out, exist_ok=True)
    FLUSH = torch.ones(2**26 if DEV == "cuda" else 1, dtype=torch.float32, device=DEV)
    cases = {}
    order = []
    for arg in sys.argv[1:]:
        label, path = arg.split("=", 1)
        m = load_module(path, f"m{len(order)}_{label}".replace("-", "_").replace(".", "_"))
        key = (m.COIL_SOURCE_FILE, m.COIL_FUNCTION)
        if key not in cases:
            cases[key] = []
            order.append(key)
        cases[key].append((label, path, m))
    results = []
    for key in order:
        mods = cases[key]
        t0 = time.time()
        case = os.path.basename(key[0])[:-3]
        res = {"case": case, "function": key[1], "variants": {}}
        m0 = mods[0][2]
        inputs = m0.coil_make_inputs(DEV, 0)
        nbytes = sum(t.numel() * t.element_size() for t in inputs)
        b0 = m0.coil_alloc(inputs)
        nbytes += sum(b0[i].numel() * b0[i].element_size() for i in m0.COIL_OUTPUTS)
        del b0
        res["bytes"] = nbytes
        fn = source_function(m0, case)
        with torch.no_grad():
            want = fn(*inputs)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        ref64 = None
        if os.environ.get("ERR"):
            with torch.no_grad():
                r = fn(*[t.double() if t.is_floating_point() else t for t in inputs])
            ref64 = list(r) if isinstance(r, (tuple, list)) else [r]
            res["eager_err"] = rel_err(want, ref64)
        for label, path, m in mods:
            v = {"path": path}
            try:
                bufs = m.coil_alloc(inputs)
                for i in m.COIL_OUTPUTS:  # poisoned: every element must be written
                    bufs[i].fill_(float("nan") if bufs[i].dtype.is_floating_point else 7)
                calls = m.coil_bind(bufs)
                opts = getattr(m, "COIL_LAUNCH_OPTIONS", {})
                for kernel, args, nw in calls:
                    kernel(*args, num_warps=nw, **opts)
                problems = compare(m, [bufs[i] for i in m.COIL_OUTPUTS], want, inputs)
                v["check"] = "ok" if not problems else "FAIL"
                if ref64 is not None:
                    v["err"] = rel_err([bufs[i] for i in m.COIL_OUTPUTS], ref64)
                if problems:
                    v["problems"] = problems[:3]

                def run(calls=calls, opts=opts):
                    for kernel, args, nw in calls:
                        kernel(*args, num_warps=nw, **opts)
                v.update(timed(run))
                del bufs, calls
            except Exception as e:  # report, keep the table going
                v["check"] = "ERROR"
                v["problems"] = [f"{type(e).__name__}: {str(e)[:300]}"]
            res["variants"][label] = v
        del want
        with torch.no_grad():
            try:
                if DEV != "cuda" or os.environ.get("NO_COMPILE"):
                    raise RuntimeError("not timed")
                compiled = torch.compile(fn)
                compiled(*inputs)
                res["compile"] = timed(lambda: compiled(*inputs))
            except Exception as e:
                res["compile_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        res["read"] = best_read(nbytes)
        res["seconds"] = time.time() - t0
        del inputs
        torch._dynamo.reset()
        if DEV == "cuda":
            torch.cuda.empty_cache()
        results.append(res)
        line = json.dumps(res)
        print("GPU_BENCH " + line, flush=True)
        with open(os.path.join(out, "bench.jsonl"), "a") as f:
            f.write(line + "\n")
    write_table(results, out)


def write_table(results, out):
    labels = []
    for r in results:
        for l in r["variants"]:
            if l not in labels:
                labels.append(l)
    lines = [f"{torch.cuda.get_device_name() if DEV == 'cuda' else 'cpu'}, torch {torch.__version__}, Triton {triton.__version__}; "
             f"us: do_bench median / flushed-by-reading median; x: torch.compile time over coil's (do_bench); "
             f"read: the pure read's time over coil's (flush)", ""]
    head = "| case | MB | read us | compile us |"
    sep = "|---|---:|---:|---:|"
    for l in labels:
        head += f" {l} us | {l} x | {l} read |"
        sep += "---:|---:|---:|"
    lines += [head, sep]
    for r in results:
        rd, cp = r["read"], r.get("compile")
        row = f"| {r['case']} | {r['bytes'] / 1e6:.0f} | {rd['do_bench']:.1f} / {rd['flush']:.1f} | "
        row += f"{cp['do_bench']:.1f} / {cp['flush']:.1f} |" if cp else "failed |"
        if "eager_err" in r:
            row = row[:-1] + f" (eager err {r['eager_err']:.1e}) |"
        for l in labels:
            v = r["variants"].get(l)
            if not v or "do_bench" not in v:
                row += f" {v['check'] if v else '-'} | | |"
                continue
            ok = "" if v["check"] == "ok" else f" {v['check']}"
            x = f"{cp['do_bench'] / v['do_bench']:.2f}x" if cp else "-"
            err = f" err {v['err']:.1e}" if "err" in v else ""
            row += f" {v['do_bench']:.1f} / {v['flush']:.1f}{ok}{err} | {x} | {rd['flush'] / v['flush'] * 100:.0f}% |"
        lines.append(row)
    lines += [""] + summary(results, labels)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(text)


def summary(results, labels):
    """Per variant, what the bars of issue 23 ask: the median of torch.compile's
    time over coil's (do_bench), the cases slower than torch.compile, the lowest
    fraction of the read (flush), and every check that failed."""
    out = []
    for l in labels:
        xs, slower, reads, failed = [], [], [], []
        for r in results:
            v, cp = r["variants"].get(l), r.get("compile")
            if not v or "do_bench" not in v:
                failed.append(r["case"])
                continue
            if v["check"] != "ok":
                failed.append(r["case"])
            if cp:
                x = cp["do_bench"] / v["do_bench"]
                xs.append(x)
                if x < 1.0:
                    slower.append(f"{r['case']} {x:.3f}x")
            reads.append((r["read"]["flush"] / v["flush"], r["case"]))
        line = f"{l}: "
        line += f"median {statistics.median(xs):.2f}x torch.compile" if xs else "no torch.compile times"
        line += f"; slower than torch.compile: {', '.join(slower) if slower else 'none'}"
        if reads:
            low = min(reads)
            line += f"; lowest read {low[0] * 100:.0f}% ({low[1]})"
        line += f"; checks failed: {', '.join(failed) if failed else 'none'}"
        out.append(line)
    return out


if __name__ == "__main__":
    main()
