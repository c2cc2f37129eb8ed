#!/usr/bin/env python3
# The CPU bench table, run by make bench (bench/run.sh): python3 bench/compare.py [--cases SUBSTR,...] [options below]
"""coil's benchmark table: every bench/cases/*.py timed by `coil bench --json`,
and beside it, in the same run on the same machine, PyTorch eager,
torch.compile (Inductor's C++/OpenMP CPU backend) and torch.compile with
coil's backend (backend="coil": the same kernels behind Dynamo, aot_autograd
and the partitioner) on tensors of the same shapes, dtypes and
distributions.

    python3 bench/compare.py [--coil build/coil] [--cases SUBSTR,...] [--json OUT]
                             [--no-torch] [--runs N] [--repeat N] [--huge-pages]
                             [--cache cold|warm] [--no-backend]

Times are medians of at least --runs calls after warm-up; torch.compile's
first call (the compile, cached by Inductor on disk) is made before timing.
The fraction is coil's bandwidth over the read ceiling that coil bench
measures in the same process (1.0 = at the machine's read bandwidth).

--cache cold (the default) flushes every input's cache lines before each
timed call, on every side (`coil bench --cache cold`; for PyTorch, a small
flush routine built with cc and called through ctypes), so that no side
reads inputs the previous call left in a large last-level cache; --cache
warm leaves them.

--huge-pages puts every side on transparent huge pages: `coil bench
--huge-pages`, and PyTorch's CPU allocator with THP_MEM_ALLOC_ENABLE=1 (the
name in torch 2.x from PyPI; C10_THP_MEM_ALLOC_ENABLE is set too, the name
in newer sources), so that the comparison stays on the same kind of memory."""
import argparse
import ctypes
import glob
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"f32": "float32", "f64": "float64", "bf16": "bfloat16", "f16": "float16",
          "i32": "int32", "i64": "int64", "bool": "bool"}


def parse_annotation(text):
    """'bf16[2, 3] stride(1, 2) uniform(1, 2)' -> (dtype, shape, stride, dist, lo, hi);
    stride is None without stride(...)."""
    m = re.match(r"\s*(\w+)\s*\[([^\]]*)\]\s*(.*)$", text)
    if not m:
        raise ValueError("bad annotation: %r" % text)
    dtype, dims, rest = m.group(1), m.group(2), m.group(3).strip()
    shape = [int(d) for d in dims.split(",") if d.strip()]
    stride = None
    s = re.search(r"stride\s*\(([^)]*)\)", rest)
    if s:
        stride = [int(d) for d in s.group(1).split(",") if d.strip()]
        rest = (rest[:s.start()] + rest[s.end():]).strip()
    dist, lo, hi = "randn", 0.0, 1.0
    if rest:
        d = re.match(r"(\w+)\s*(?:\(\s*([^,]+)\s*,\s*([^)]+)\))?", rest)
        dist = d.group(1)
        if d.group(2):
            lo, hi = float(d.group(2)), float(d.group(3))
    return dtype, shape, stride, dist, lo, hi


def make_input(torch, annot, gen):
    """The tensor an annotation describes; with stride(...) the view of a
    storage its strides span, as coil's kernels are given it."""
    dtype, shape, stride, dist, lo, hi = parse_annotation(annot)
    tdt = getattr(torch, DTYPES[dtype])
    if stride is None:
        n = 1
        for d in shape:
            n *= d
    else:
        n = 0 if 0 in shape else 1 + sum((d - 1) * s for d, s in zip(shape, stride))
    if dist == "uniform":
        t = torch.rand(n, generator=gen) * (hi - lo) + lo
    elif dist == "ones":
        t = torch.ones(n)
    elif dist == "arange":
        t = torch.arange(n, dtype=torch.float64)
    else:
        t = torch.randn(n, generator=gen)
    t = t.to(tdt)
    return t.reshape(shape) if stride is None else t.as_strided(shape, stride)


def load_case(path):
    """The case's one annotated function."""
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fns = [v for v in vars(mod).values()
           if callable(v) and getattr(v, "__module__", None) == mod.__name__
           and getattr(v, "__annotations__", None)]
    if len(fns) != 1:
        raise ValueError("%s: expected one annotated function, found %d" % (path, len(fns)))
    return fns[0]


# Written back and dropped from every cache level, line by line (as coil
# bench's read kernel does for --cache cold).
EVICT_C = r"""
#include <stdint.h>
#if defined(__x86_64__) && defined(__CLFLUSHOPT__)
#define FLUSH_LINE(p) __builtin_ia32_clflushopt((void *)(p))
#define FLUSH_FENCE() __builtin_ia32_mfence()
#elif defined(__x86_64__)
#define FLUSH_LINE(p) __builtin_ia32_clflush((const void *)(p))
#define FLUSH_FENCE() __builtin_ia32_mfence()
#elif defined(__aarch64__)
#define FLUSH_LINE(p) __asm__ volatile("dc civac, %0" : : "r"(p) : "memory")
#define FLUSH_FENCE() __asm__ volatile("dsb ish" : : : "memory")
#endif
int coil_evict(uintptr_t p, int64_t bytes) {
#ifdef FLUSH_LINE
  const uintptr_t lo = p & ~(uintptr_t)63;
  const int64_t lines = (int64_t)((p + (uintptr_t)bytes - lo + 63) / 64);
  #pragma omp parallel
  {
    #pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < lines; i++) FLUSH_LINE(lo + (uintptr_t)i * 64);
    FLUSH_FENCE();
  }
  return 1;
#else
  (void)p, (void)bytes;
  return 0;
#endif
}
"""


def build_evict():
    """The flush routine, built with the system compiler as coil's kernels are;
    exits with a message where it cannot be built or does nothing."""
    d = tempfile.mkdtemp(prefix="coil-evict-")
    src, lib = os.path.join(d, "evict.c"), os.path.join(d, "evict.so")
    with open(src, "w") as f:
        f.write(EVICT_C)
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "-O2", "-march=native", "-fopenmp", "-shared", "-fPIC", src, "-o", lib],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("compare.py: cannot build the cache flush for --cache cold (%s): %s\n(use --cache warm)"
                     % (cc, out.stderr.strip()[-300:]))
        fn = ctypes.CDLL(lib).coil_evict  # stays mapped once its file is gone
    finally:
        shutil.rmtree(d, ignore_errors=True)
    fn.argtypes, fn.restype = [ctypes.c_size_t, ctypes.c_int64], ctypes.c_int
    if not fn(0, 0):
        sys.exit("compare.py: --cache cold needs a cache-line flush (x86-64 and AArch64 only); use --cache warm")
    return fn


def time_calls(fn, args, runs, min_s=0.5, warm=2, before=None):
    for _ in range(warm):
        fn(*args)
    times = []
    t_end = time.perf_counter() + min_s
    while len(times) < runs or (time.perf_counter() < t_end and len(times) < 200):
        if before:
            before()
        t0 = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times)


def coil_bench(coil, path, runs, huge_pages, cache):
    out = subprocess.run([coil, "bench", "--json", "--runs", str(runs), "--cache", cache, path] +
                         (["--huge-pages"] if huge_pages else []), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("coil bench %s failed (%d): %s" % (path, out.returncode, out.stderr.strip()[-400:]))
    return json.loads(out.stdout)


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--coil", default=os.path.join(HERE, "..", "build", "coil"))
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=1, help="rounds per case; medians over rounds")
    ap.add_argument("--json", help="also write every measurement to this file")
    ap.add_argument("--no-torch", action="store_true", help="coil only")
    ap.add_argument("--no-backend", action="store_true", help="leave out torch.compile(backend='coil')")
    ap.add_argument("--huge-pages", action="store_true", help="coil and PyTorch on transparent huge pages")
    ap.add_argument("--cache", choices=["cold", "warm"], default="cold",
                    help="flush the inputs from the caches before each timed call (cold, the default) or not")
    a = ap.parse_args()
    if a.huge_pages:
        # Read by PyTorch's allocator when torch is loaded: set before the import.
        os.environ["THP_MEM_ALLOC_ENABLE"] = "1"
        os.environ["C10_THP_MEM_ALLOC_ENABLE"] = "1"

    paths = sorted(glob.glob(os.path.join(HERE, "cases", "*.py")))
    if a.cases:
        keys = a.cases.split(",")
        paths = [p for p in paths if any(k in os.path.basename(p) for k in keys)]
    torch = None
    if not a.no_torch:
        try:
            import torch
        except ImportError:
            print("torch is not installed: coil only", file=sys.stderr)

    evict = build_evict() if torch is not None and a.cache == "cold" else None
    coil_backend = None
    if torch is not None and not a.no_backend:
        sys.path.insert(0, os.path.join(os.path.dirname(a.coil), "python"))
        try:
            from coil.backend import coil_backend
        except ImportError as e:
            print("the coil package is not built (%s): no backend column" % e, file=sys.stderr)

    rows = []
    if torch is not None:
        print("torch %s, %d threads; Inductor CPU backend (C++/OpenMP)%s; inputs %s" % (
            torch.__version__, torch.get_num_threads(), "; huge pages" if a.huge_pages else "",
            "flushed from the caches before each call" if a.cache == "cold" else "left in the caches"), flush=True)
    for path in paths:
        name = os.path.basename(path)[:-3]
        row = {"case": name}
        # --repeat N: N rounds of (coil, eager, torch.compile) for this case,
        # back to back, and the median of each measurement over the rounds
        # (on a shared machine the load drifts; the rounds see the same drift).
        coils, eagers, compileds, backends = [], [], [], []
        fn = compiled = backend = args = None
        try:
            for rep in range(a.repeat):
                coils.append(coil_bench(a.coil, path, a.runs, a.huge_pages, a.cache))
                if torch is None:
                    continue
                if args is None:
                    fn = load_case(path)
                    gen = torch.Generator().manual_seed(0)
                    args = [make_input(torch, fn.__annotations__[p], gen)
                            for p in fn.__code__.co_varnames[:fn.__code__.co_argcount]]
                def flush_args():
                    for t in args:
                        evict(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes())
                before = flush_args if evict else None
                with torch.no_grad():
                    eagers.append(time_calls(fn, args, a.runs, before=before))
                    if compiled is None:
                        t0 = time.perf_counter()
                        compiled = torch.compile(fn, backend="inductor", dynamic=False)
                        compiled(*args)
                        row["compile_first_call_s"] = time.perf_counter() - t0
                    compileds.append(time_calls(compiled, args, a.runs, before=before))
                    if coil_backend is not None:
                        if backend is None:
                            t0 = time.perf_counter()
                            backend = torch.compile(fn, backend=coil_backend, dynamic=False)
                            backend(*args)
                            row["backend_first_call_s"] = time.perf_counter() - t0
                        backends.append(time_calls(backend, args, a.runs, before=before))
        except Exception as e:  # keep going: one broken case must not hide the rest
            print("%s: %s" % (name, e), file=sys.stderr)
            row["error"] = str(e)
            rows.append(row)
            continue
        del args
        # The round whose coil time is the median stands for coil; torch's
        # times are medians over the rounds.
        coils.sort(key=lambda d: d["kernel_ms"])
        row["coil"] = coils[len(coils) // 2]
        row["coil_rounds"] = coils
        if eagers:
            row["eager_ms"] = statistics.median(e[0] for e in eagers)
            row["eager_min_ms"] = min(e[1] for e in eagers)
            row["compiled_ms"] = statistics.median(e[0] for e in compileds)
            row["compiled_min_ms"] = min(e[1] for e in compileds)
        if backends:
            row["backend_ms"] = statistics.median(e[0] for e in backends)
        c = row["coil"]
        row["vs_eager"] = row["eager_ms"] / c["kernel_ms"] if "eager_ms" in row else None
        row["vs_compile"] = row["compiled_ms"] / c["kernel_ms"] if "compiled_ms" in row else None
        row["backend_over_kernel"] = row["backend_ms"] / c["kernel_ms"] if "backend_ms" in row else None
        rows.append(row)
        print("  %-28s coil %8.2f ms  %5.2f of ceiling  eager %s ms  compile %s ms" % (
            name, c["kernel_ms"], c["fraction"], fmt(row.get("eager_ms"), ".2f"), fmt(row.get("compiled_ms"), ".2f")),
            file=sys.stderr, flush=True)

    ok = [r for r in rows if "coil" in r]
    print()
    hdr = "%-28s %9s %7s %6s %9s %9s %8s %8s %9s %7s" % ("case", "coil ms", "GB/s", "frac", "eager ms", "compile",
                                                          "vs eager", "vs comp", "backend", "bk/coil")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if "coil" not in r:
            print("%-28s  ERROR: %s" % (r["case"], r["error"][:60]))
            continue
        c = r["coil"]
        print("%-28s %9.2f %7.1f %6.2f %9s %9s %8s %8s %9s %7s" % (
            r["case"], c["kernel_ms"], c["gbps"], c["fraction"], fmt(r.get("eager_ms"), ".2f"),
            fmt(r.get("compiled_ms"), ".2f"), fmt(r.get("vs_eager"), ".1f") + ("x" if r.get("vs_eager") else ""),
            fmt(r.get("vs_compile"), ".2f") + ("x" if r.get("vs_compile") else ""), fmt(r.get("backend_ms"), ".2f"),
            fmt(r.get("backend_over_kernel"), ".2f")))
    if ok:
        fr = [r["coil"]["fraction"] for r in ok]
        ceil = [r["coil"]["ceiling_gbps"] for r in ok]
        print()
        print("read ceiling (coil bench, per case): median %.1f GB/s, range %.1f-%.1f" % (
            statistics.median(ceil), min(ceil), max(ceil)))
        print("fraction of ceiling: median %.2f, min %.2f (%s)" % (
            statistics.median(fr), min(fr), min(ok, key=lambda r: r["coil"]["fraction"])["case"]))
        vc = [r["vs_compile"] for r in ok if r.get("vs_compile")]
        ve = [r["vs_eager"] for r in ok if r.get("vs_eager")]
        if vc:
            worst = min((r for r in ok if r.get("vs_compile")), key=lambda r: r["vs_compile"])
            print("coil vs torch.compile: median %.2fx, min %.2fx (%s)" % (statistics.median(vc), min(vc), worst["case"]))
        if ve:
            print("coil vs eager: median %.1fx, min %.1fx" % (statistics.median(ve), min(ve)))
        bk = [r["backend_over_kernel"] for r in ok if r.get("backend_over_kernel")]
        if bk:
            print("torch.compile(backend='coil') over coil bench's kernel time: median %.2f, max %.2f" % (
                statistics.median(bk), max(bk)))
            first = [(r["backend_first_call_s"], r["compile_first_call_s"]) for r in ok if "backend_first_call_s" in r]
            print("first call (compile) backend='coil' vs Inductor: median %.2f s vs %.2f s" % (
                statistics.median(f[0] for f in first), statistics.median(f[1] for f in first)))
        comp = [r["coil"]["compile_c_ms"] for r in ok]
        cold = [r["coil"]["cc_ms"] for r in ok]
        cached = [r["coil"]["cached_compile_ms"] for r in ok]
        print("compile: parse to C max %.1f ms; cold cc max %.0f ms; cached max %.1f ms" % (max(comp), max(cold), max(cached)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
