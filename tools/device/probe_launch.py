#!/usr/bin/env python3
# One module's kernels timed through each way of launching them, beside torch.compile: OUT=DIR python3 tools/device/probe_launch.py MODULE.py...
"""Does the way coil's kernels are launched show in the bench's times?

gpu_bench.py launches a module's kernels through Triton's JIT (coil_bind's
calls: Python builds each launch); a user of torch.compile(backend="coil")
gets the binding's Plan, which launches the compiled kernels through the
CUDA driver in one C call.  For each MODULE.py (`coil emit --target
triton-gpu --harness`), in one process, two rounds of:

  jit       the module's calls, as gpu_bench.py times them
  backend   torch.compile(backend="coil") of the module's function (its
            Plan, from the second call on), checked against eager
  compile   torch.compile of the function (Inductor)

each timed as gpu_bench.py times (do_bench median; flushed by reading).
Prints one line per case and round and writes $OUT/launch.md.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import torch  # noqa: E402

import coil.backend  # noqa: E402,F401
import gpu_bench  # noqa: E402  (beside this file)


def main():
    out = os.environ.get("OUT", ".")
    os.makedirs(out, exist_ok=True)
    dev = gpu_bench.DEV  # DEVICE=cpu with TRITON_INTERPRET=1: a dry run (no timing)
    gpu_bench.FLUSH = torch.ones(2**26 if dev == "cuda" else 1, dtype=torch.float32, device=dev)
    lines = ["| case | round | jit us | backend us | compile us | backend check |", "|---|---:|---:|---:|---:|---|"]
    for n, path in enumerate(sys.argv[1:]):
        m = gpu_bench.load_module(path, f"launch{n}")
        case = os.path.basename(m.COIL_SOURCE_FILE)[:-3]
        inputs = m.coil_make_inputs(dev, 0)
        fn = gpu_bench.source_function(m, case)
        bufs = m.coil_alloc(inputs)
        calls = m.coil_bind(bufs)
        opts = getattr(m, "COIL_LAUNCH_OPTIONS", {})

        def jit(calls=calls, opts=opts):
            for kernel, args, nw in calls:
                kernel(*args, num_warps=nw, **opts)
        with torch.no_grad():
            backend = torch.compile(fn, backend="coil")
            inductor = torch.compile(fn)
            want = fn(*inputs)
            for _ in range(3):  # the first call compiles; the Plan runs from the second
                got = backend(*inputs)
                inductor(*inputs)
            problems = gpu_bench.compare(m, list(got) if isinstance(got, (tuple, list)) else [got],
                                         list(want) if isinstance(want, (tuple, list)) else [want], inputs)
            check = "ok" if not problems else "FAIL " + problems[0][:100]
            for rnd in range(2):
                t = {"jit": gpu_bench.timed(jit), "backend": gpu_bench.timed(lambda: backend(*inputs)),
                     "compile": gpu_bench.timed(lambda: inductor(*inputs))}
                row = f"| {case} | {rnd + 1} | " + " | ".join(f"{t[k]['do_bench']:.1f} / {t[k]['flush']:.1f}" for k in ("jit", "backend", "compile"))
                row += f" | {check} |"
                print(row, flush=True)
                lines.append(row)
        del bufs, calls, inputs
        torch._dynamo.reset()
        if dev == "cuda":
            torch.cuda.empty_cache()
    with open(os.path.join(out, "launch.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
