#!/usr/bin/env python3
# torch.compile(backend="coil") on CUDA: split reductions whose last part's block combines, called again and again.
"""Split reductions through the backend on CUDA tensors, where the Plan
takes the zeroed counters from its per-stream pool (backend.py,
_ZeroedBuffers): each function is called five times with new inputs on the
current stream, then on a side stream, then on two streams at once (both
calls in flight before either is checked), with and without autotune, and
every result is checked against eager.  Prints "ok NAME" or "FAIL NAME: why"
per check.  (col_sum, channel_stats and full_sum are bench cases 03, 06 and
07's shapes, whose parts the model combines in one launch.)

    PYTHONPATH=build/python python3 tools/device/backend_split.py
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import torch  # noqa: E402

import coil  # noqa: E402,F401
import coil.backend  # noqa: E402,F401

failures = 0


def col_sum(x):
    return x.sum(dim=0)


def channel_stats(x):
    xf = x.float()
    return xf.mean(dim=(0, 2, 3)), xf.amax(dim=(0, 2, 3))


def full_sum(x):
    return x.float().sum()


def col_argmax(x):
    return x.argmax(dim=0)


CASES = [
    ("col_sum", col_sum, lambda: torch.randn(8192, 8192, device="cuda")),
    ("channel_stats", channel_stats, lambda: torch.randn(32, 128, 64, 256, device="cuda", dtype=torch.bfloat16)),
    ("full_sum", full_sum, lambda: torch.randn(4, 33554432, device="cuda", dtype=torch.bfloat16)),
    ("col_argmax", col_argmax, lambda: torch.randn(65536, 512, device="cuda")),
]


def close(name, got, want):
    global failures
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    try:
        for g, w in zip(got, want):
            if w.dtype in (torch.float32, torch.float64):
                torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-3)
            else:
                torch.testing.assert_close(g, w)
        print(f"ok {name}", flush=True)
    except AssertionError as e:
        failures += 1
        print(f"FAIL {name}: {' '.join(str(e).split())[:300]}", flush=True)


def main():
    for autotune in (False, True):
        for label, fn, make in CASES:
            torch._dynamo.reset()
            f = torch.compile(fn, backend="coil", options={"autotune": autotune})
            tag = f"{label}{'/autotune' if autotune else ''}"
            for call in range(5):
                x = make()
                close(f"{tag}/call{call}", f(x), fn(x))
            side = torch.cuda.Stream()
            with torch.cuda.stream(side):
                x = make()
                got = f(x)
                want = fn(x)
            side.synchronize()
            close(f"{tag}/side_stream", got, want)
            s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
            x1, x2 = make(), make()
            torch.cuda.synchronize()
            with torch.cuda.stream(s1):
                g1 = f(x1)
            with torch.cuda.stream(s2):
                g2 = f(x2)
            torch.cuda.synchronize()
            close(f"{tag}/two_streams_a", g1, fn(x1))
            close(f"{tag}/two_streams_b", g2, fn(x2))
    print(f"backend_split: {failures} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
