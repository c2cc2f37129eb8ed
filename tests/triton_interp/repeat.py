#!/usr/bin/env python3
"""Modules called again and again on the same buffers, as coil_bench, the
backend's Plans and tools/device/gpu_bench.py call them.

    python3 tests/triton_interp/repeat.py LIST

LIST has lines "NAME PATH [xfail]" of `coil emit --harness` modules.  Each
is run three times on one coil_alloc's buffers, with new inputs copied in
before each call, under Triton's interpreter; every call must match eager
PyTorch, and every zeroed scratch buffer (COIL_BUFFERS kind 'zeroed': the
counters of a split whose last part's block combines) must be zero again
after it, since the next call takes it as it is.  An xfail line is a module
broken on purpose: some call must fail.  Prints "ok NAME" or "FAIL NAME:
why" per line."""
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
import torch  # noqa: E402

from run import load  # noqa: E402  (tests/triton_interp/run.py, beside this file)

CALLS = 3


def problems(mod):
    """What goes wrong over CALLS calls on one set of buffers."""
    inputs = mod.coil_make_inputs("cpu", 0)
    bufs = mod.coil_alloc(inputs)
    zeroed = [i for i, b in enumerate(mod.COIL_BUFFERS) if b[1] == "zeroed"]
    if not zeroed:
        return ["the module has no zeroed buffer"]
    for call in range(CALLS):
        fresh = mod.coil_make_inputs("cpu", call + 1)
        for (_, kind, _, _, index), buf in zip(mod.COIL_BUFFERS, bufs):
            if kind == "input":
                buf.copy_(fresh[index])
        for i in mod.COIL_OUTPUTS:  # poisoned: every element must be written again
            bufs[i].fill_(float("nan") if bufs[i].dtype.is_floating_point else 7)
        mod.coil_launch(bufs)
        with torch.no_grad():
            want = mod.coil_function()(*fresh)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        for k, (i, w) in enumerate(zip(mod.COIL_OUTPUTS, want)):
            rtol, atol = mod.COIL_TOL.get(str(w.dtype).replace("torch.", ""), (0.0, 0.0))
            try:
                torch.testing.assert_close(bufs[i], w, rtol=rtol * 4, atol=atol * 4, equal_nan=True)
            except AssertionError as e:
                return [f"call {call + 1}, out{k}: " + " ".join(str(e).split())[:200]]
        for i in zeroed:
            if bufs[i].count_nonzero().item():
                return [f"call {call + 1} left {mod.COIL_BUFFERS[i][0]} nonzero: {bufs[i].tolist()[:8]}"]
    return []


def main():
    with open(sys.argv[1]) as f:
        work = [line.split() for line in f if line.strip()]
    for n, (name, path, *rest) in enumerate(work):
        xfail = rest[:1] == ["xfail"]
        try:
            found = problems(load(path, f"repeat{n}"))
        except Exception as e:  # noqa: BLE001 - a crash is this case's failure, the rest still run
            found = [f"{type(e).__name__}: {str(e)[:200]}"]
        if xfail:
            print(f"ok {name}" if found else f"FAIL {name}: broken on purpose, yet every call passed", flush=True)
        else:
            print(f"ok {name}" if not found else f"FAIL {name}: {found[0]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
