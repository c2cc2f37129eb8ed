#!/usr/bin/env python3
"""Do with PyTorch what `coil run FILE --save DIR` does: make inputs from the
annotations, run the function, save DIR/<param>.npy and DIR/outK.npy in
coil's conventions (bf16 as f32, 0-d outputs as 0-d arrays).

    python3 tests/torch/torch_save.py FILE.py DIR [--fn NAME] [--seed S]
                                      [--arg NAME=SPEC]... [--corrupt KIND]
    python3 tests/torch/torch_save.py --batch LIST   (lines of those arguments)

The suites use it to check the test functions themselves (each must be valid
PyTorch in coil's subset: annotated, runnable, outputs saved) and to check
that compare.py fails when it should: --corrupt changes what is saved for
out0 (value: one element off; shape: one element dropped; dtype: saved as
f64, or as i32 for a bool output).
"""
import argparse
import os
import re
import shlex
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

DIST = re.compile(r"\]\s*(\w+)\s*(?:\(([^)]*)\))?\s*$")


def make_input(annotation, gen, where):
    """The tensor an annotation describes.  With stride(...), the values
    fill the whole storage the strides span, as coil run fills it (arange
    counts storage elements), and the tensor is the view of it."""
    dtype, shape, stride = compare.parse_annotation(annotation, where)
    m = DIST.search(compare.STRIDE.sub("", annotation))
    kind, args = (m.group(1), m.group(2)) if m else ("randn", None)
    n = int(np.prod(shape, dtype=np.int64)) if stride is None else compare.storage_extent(shape, stride)
    if kind == "randn":
        t = torch.randn(n, generator=gen, dtype=torch.float64)
    elif kind == "uniform":
        lo, hi = (float(a) for a in args.split(","))
        t = torch.rand(n, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    elif kind == "ones":
        t = torch.ones(n, dtype=torch.float64)
    elif kind == "arange":
        t = torch.arange(n, dtype=torch.float64)
    else:
        raise ValueError(f"{where}: unknown distribution {kind}")
    if dtype == torch.bool:
        t = t > 0 if kind != "arange" else (t.long() % 2).bool()
    else:
        if not dtype.is_floating_point and kind in ("randn", "uniform"):
            t = torch.floor(t * (4 if kind == "randn" else 1))
        t = t.to(dtype)
    return t.reshape(shape) if stride is None else t.as_strided(shape, stride)


def save(path, t):
    if t.dtype == torch.bfloat16:
        t = t.float()
    np.save(path, t.numpy())


def save_reference(file, d, fn_name=None, seed=0, corrupt=None, overrides=None):
    """Make inputs, run the function with torch and save everything to d;
    returns the function's name and the counts saved."""
    mod = compare.load_module(file)
    fn, params = compare.pick_function(mod, file, fn_name)
    params = compare.apply_overrides(params, overrides, file)
    gen = torch.Generator().manual_seed(seed)
    inputs = [make_input(a, gen, f"{file}: {n}") for n, a in params]
    with torch.no_grad():
        out = fn(**{n: t for (n, _), t in zip(params, inputs)})
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    os.makedirs(d, exist_ok=True)
    for (n, _), t in zip(params, inputs):
        save(os.path.join(d, n + ".npy"), t)
    for k, t in enumerate(outs):
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{file}: output {k} is not a tensor")
        if k == 0 and corrupt == "value":
            t = t.clone().reshape(-1)
            if t.dtype == torch.bool:
                t[0] = ~t[0]
            else:
                t[0] = t[0] + (1 + t[0].abs() / 2).to(t.dtype)
            t = t.reshape(outs[0].shape)
        elif k == 0 and corrupt == "shape":
            t = t.reshape(-1)[1:] if t.numel() > 1 else t.reshape(1, 1)
        elif k == 0 and corrupt == "dtype":
            t = t.to(torch.int32 if t.dtype == torch.bool else
                     torch.float32 if t.dtype == torch.float64 else torch.float64)
        save(os.path.join(d, f"out{k}.npy"), t)
    return fn.__name__, len(inputs), len(outs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?")
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--fn")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arg", action="append", default=[])
    ap.add_argument("--corrupt", choices=["value", "shape", "dtype"])
    ap.add_argument("--batch")
    args = ap.parse_args()
    jobs = [args]
    if args.batch:
        with open(args.batch) as f:
            jobs = [ap.parse_args(shlex.split(l)) for l in f if l.strip()]
    status = 0
    for a in jobs:
        try:
            name, nin, nout = save_reference(a.file, a.dir, a.fn, a.seed, a.corrupt, a.arg)
            print(f"{name}: saved {nin} input(s), {nout} output(s) in {a.dir}")
        except Exception as e:
            print(f"error: {a.file}: {type(e).__name__}: {e}")
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
