#!/usr/bin/env python3
"""Run emitted Triton modules under Triton's interpreter and check them
against eager PyTorch on the CPU.

    python3 tests/triton_interp/run.py LIST [--timeout S] [--device cuda]

LIST has one line per module: "NAME PATH [xfail]", PATH a script written by
`coil emit --target triton-npu|triton-gpu --harness`.  Each is imported
(its main() does not run) and its coil_check('cpu') draws the inputs by
coil run's rules, runs every kernel in COIL_LAUNCHES through
TRITON_INTERPRET=1 on torch CPU tensors, runs the original function in
eager PyTorch, and compares every output (count, shape, dtype, values
within dtype tolerances).  Prints "ok NAME" or "FAIL NAME: why" per line.
One process imports torch and triton once for the whole list.  A line
marked xfail is a module broken on purpose: its check must find a problem
(then "ok NAME"), so that the check is known to be able to fail.

With --device cuda the kernels run on the GPU with real Triton instead
(tools/device/gpu_check.sh checks every test function that way).

If triton cannot be imported, every line is a FAIL: the suite must not
pass without running anything."""
import importlib.util
import os
import signal
import sys
import time
import traceback


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    args = sys.argv[1:]
    timeout, device = 120, "cpu"
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = int(args[i + 1])
        del args[i:i + 2]
    if "--device" in args:
        i = args.index("--device")
        device = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1 or device not in ("cpu", "cuda"):
        print(__doc__, file=sys.stderr)
        return 2
    if device == "cpu":  # before anything imports triton
        os.environ["TRITON_INTERPRET"] = "1"
    with open(args[0]) as f:
        work = [line.split() for line in f if line.strip()]
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
        import triton.language  # noqa: F401
    except Exception as e:  # the suite must fail, not skip
        for name, *_ in work:
            print(f"FAIL {name}: cannot import torch and triton: {type(e).__name__}: {e}", flush=True)
        return 0
    if device == "cpu":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bf16_atomics
        bf16_atomics.install()
    signal.signal(signal.SIGALRM, on_alarm)
    slow = []
    for n, (name, path, *flags) in enumerate(work):
        t0 = time.time()
        signal.alarm(timeout)
        try:
            mod = load(path, f"coil_triton_{n}")
            problems = mod.coil_check(device)
            if "xfail" in flags:
                if problems:
                    print(f"ok {name} # fails as it must: " + problems[0][:120], flush=True)
                else:
                    print(f"FAIL {name}: the check passed a module broken on purpose", flush=True)
            elif problems:
                print(f"FAIL {name}: " + " | ".join(problems)[:600], flush=True)
            else:
                notes = getattr(mod, "COIL_CHECK_NOTES", [])
                print(f"ok {name}" + (" # " + "; ".join(notes)[:300] if notes else ""), flush=True)
        except Timeout:
            print(f"FAIL {name}: over {timeout} s", flush=True)
        except Exception as e:
            tb = traceback.extract_tb(e.__traceback__)
            where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
            msg = str(e).replace("\n", " ")[:500]
            print(f"FAIL {name}: {type(e).__name__}: {msg}{where}", flush=True)
        finally:
            signal.alarm(0)
        slow.append((time.time() - t0, name))
    if os.environ.get("COIL_TRITON_TIMES"):
        for t, name in sorted(slow, reverse=True)[:15]:
            print(f"# {t:6.2f} s {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
