#!/usr/bin/env python3
"""Where coil's GPU results differ from eager PyTorch on CUDA, point by point.

    python3 tools/device/special_diff.py MODULE.py... > diff.txt

Each MODULE is a `coil emit --harness` script.  Its inputs are drawn as its
coil_check draws them, its kernels run on the GPU, and the function runs in
eager PyTorch on CUDA and on the CPU.  For every output that differs from
CUDA eager (NaN equal to NaN, floats compared bit for bit after rounding to
the output's dtype, zeros by sign), it prints the first differing points:
the inputs' values there (each input broadcast to the output's shape where
it can be, and what the source file's specials() makes of it where it has
one, as tests/run/math2.py does), coil's result, CUDA eager's and CPU eager's.  For elementwise
functions that names the special value that libdevice and PyTorch treat
differently.
"""
import importlib.util
import sys

import os

import torch

DEV = os.environ.get("DEVICE", "cuda")


def load(path):
    spec = importlib.util.spec_from_file_location("m", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def same(a, b):
    if a.dtype.is_floating_point:
        nan = a.isnan() & b.isnan()
        eq = (a == b) & (torch.signbit(a) == torch.signbit(b))
        return nan | eq
    return a == b


def main():
    for path in sys.argv[1:]:
        mod = load(path)
        inputs = mod.coil_make_inputs(DEV, 0)
        got = mod.coil_run(inputs)
        fn = mod.coil_function()
        src = load(mod.COIL_SOURCE_FILE)
        shape_in = getattr(src, "specials", None)  # math2.py's: what its functions apply to their inputs
        with torch.no_grad(), torch.device(DEV):
            want = fn(*inputs)
        with torch.no_grad():
            cpu = fn(*[t.cpu() for t in inputs])
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        cpu = list(cpu) if isinstance(cpu, (tuple, list)) else [cpu]
        print(f"== {path}: {len(got)} outputs")
        for k, (g, w, c) in enumerate(zip(got, want, cpu)):
            g, w, c = g.cpu(), w.cpu(), c.cpu()
            if g.shape != w.shape or g.dtype != w.dtype:
                print(f"out{k}: shape/dtype {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}")
                continue
            ok = same(g, w)
            bad = (~ok).nonzero()
            if not len(bad):
                continue
            print(f"out{k} {w.dtype}{list(w.shape)}: {len(bad)} of {w.numel()} differ from CUDA eager; "
                  f"coil == CPU eager at all of them: {bool(same(g, c)[~ok].all())}")
            for p in bad[:6].tolist():
                vals = []
                for t in inputs:
                    try:
                        x = t.cpu().broadcast_to(w.shape)[tuple(p)]
                        vals.append(repr(x.item()) + (f" (specials: {shape_in(x).item()!r})" if shape_in else ""))
                    except RuntimeError:
                        vals.append("?")
                print(f"  at {p}: inputs ({', '.join(vals)}): coil {g[tuple(p)].item()!r}, cuda {w[tuple(p)].item()!r}, "
                      f"cpu {c[tuple(p)].item()!r}")


if __name__ == "__main__":
    main()
