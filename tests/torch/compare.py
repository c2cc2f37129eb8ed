#!/usr/bin/env python3
"""Check what `coil run --save DIR` saved against PyTorch eager on the CPU.

    python3 tests/torch/compare.py FILE.py DIR [--fn NAME] [--arg NAME=SPEC]...
                                   [--inputs IN] [--equal-nan]
    python3 tests/torch/compare.py --batch LIST

FILE.py is imported as a module and its function picked as coil picks it:
--fn NAME, or else the only function whose parameters all carry string
annotations.  Each parameter is loaded from DIR/<param>.npy and converted to
its annotated dtype (or the dtype and shape of --arg NAME=DTYPE[d0,...], as
given to coil run), and laid out with the annotation's stride(...) if it has
one (the files hold the logical tensor; the function gets the view); with --inputs IN, from IN/<param>.npy instead (the
files given to coil run --inputs IN, so inputs coil read wrongly and saved
wrongly cannot hide) (bf16 parameters come as f32 arrays that must hold bf16
values exactly), the function runs in PyTorch, and each output K is compared
with DIR/outK.npy: same number of outputs, same shape, same dtype (a bf16
output is saved as f32 and must hold bf16 values; it is compared in bf16),
values within torch.testing.assert_close tolerances for the output's dtype.
Float tolerances grow modestly (with the square root of the reduction
length) for outputs that are long reductions, whose sum order may differ.

Prints one line (the verdict) and exits 0 on a pass, 1 on a mismatch, 2 on an
error (a missing file, a function that is not valid PyTorch...).

--batch LIST reads lines "FILE DIR [option]... [--name TEST]" and prints "ok TEST" or "FAIL TEST: why" for each (TEST defaults to
FILE's stem, with :NAME when --fn is given), so a suite pays for importing
torch once.
"""
import argparse
import importlib.util
import math
import os
import re
import shlex
import sys

import numpy as np
import torch

DTYPES = {
    "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
    "f64": torch.float64, "i32": torch.int32, "i64": torch.int64, "bool": torch.bool,
}
# What dtype a saved .npy file of each torch dtype has.
NP_OF = {
    torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: np.float32,
    torch.float64: np.float64, torch.int32: np.int32, torch.int64: np.int64,
    torch.bool: np.bool_,
}
# Base (rtol, atol) per output dtype.
TOL = {
    torch.float32: (1e-5, 1e-5), torch.float64: (1e-7, 1e-7),
    torch.float16: (1e-3, 1e-3), torch.bfloat16: (1.6e-2, 1e-2),
}

ANNOT = re.compile(r"^\s*(\w+)\s*\[\s*([^\]]*)\]")
STRIDE = re.compile(r"\bstride\s*\(([^)]*)\)")


class Mismatch(Exception):
    pass


def parse_annotation(text, where):
    """'bf16[2, 3] stride(1, 2) uniform(1, 2)' -> (dtype, shape, strides);
    strides is None without stride(...) (contiguous)."""
    m = ANNOT.match(text)
    if not m or m.group(1) not in DTYPES:
        raise ValueError(f"{where}: cannot read the annotation {text!r}")
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    shape = tuple(int(d) for d in dims)
    s = STRIDE.search(text, m.end())
    stride = tuple(int(d) for d in s.group(1).split(",") if d.strip()) if s else None
    if stride is not None and len(stride) != len(shape):
        raise ValueError(f"{where}: {len(stride)} strides for {len(shape)} dims in {text!r}")
    return DTYPES[m.group(1)], shape, stride


def storage_extent(shape, stride):
    """The elements a strided tensor's storage spans (as coil allocates it)."""
    if 0 in shape:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, stride))


def laid_out(t, stride):
    """The tensor t as a view with the given strides of a storage of their
    extent, as coil holds a strided input: its elements scattered to where
    the strides put them.  Where the strides make elements share memory
    (stride 0, overlapping windows) t must hold one value for them, as
    coil's saved inputs do; anything else is a mismatch, not a tie broken
    silently."""
    n = storage_extent(t.shape, stride)
    where = torch.arange(n).as_strided(t.shape, stride)
    storage = torch.zeros(n, dtype=t.dtype)
    storage[where.reshape(-1)] = t.reshape(-1)
    v = storage.as_strided(t.shape, stride)
    try:
        torch.testing.assert_close(v, t, rtol=0, atol=0, equal_nan=True)
    except AssertionError:
        raise Mismatch(f"saved values differ where stride{tuple(stride)} puts elements in one place") from None
    return v


def load_module(path):
    name = "coil_cmp_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def annotated_params(fn):
    """The (name, annotation) list of fn's tensor parameters if every
    parameter has a string annotation or a default (a Python value such as
    eps=1e-6, which coil takes too) and at least one is annotated, else
    None."""
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    ann = getattr(fn, "__annotations__", {})
    npos = code.co_argcount
    defaults = set(names[npos - len(fn.__defaults__ or ()):npos]) | set(fn.__kwdefaults__ or {})
    tensors = [(n, ann[n]) for n in names if isinstance(ann.get(n), str)]
    if not tensors or not all(isinstance(ann.get(n), str) or n in defaults for n in names):
        return None
    return tensors


def apply_overrides(params, overrides, path):
    """--arg NAME=SPEC replaces NAME's annotation, as coil run does."""
    names = [n for n, _ in params]
    for o in overrides or []:
        name, eq, spec = o.partition("=")
        if not eq or name not in names:
            raise ValueError(f"{path}: --arg {o}: no parameter {name!r} ({', '.join(names)})")
        params = [(n, spec if n == name else a) for n, a in params]
    return params


def pick_function(mod, path, fn_name):
    if fn_name:
        fn = getattr(mod, fn_name, None)
        if fn is None or not callable(fn):
            raise ValueError(f"{path}: no function {fn_name}")
        params = annotated_params(fn)
        if params is None:
            raise ValueError(f"{path}: {fn_name} does not annotate all its parameters")
        return fn, params
    found = []
    for name, obj in vars(mod).items():
        if callable(obj) and getattr(obj, "__module__", None) == mod.__name__ \
                and hasattr(obj, "__code__"):
            params = annotated_params(obj)
            if params is not None:
                found.append((obj, params))
    if len(found) != 1:
        names = ", ".join(f.__name__ for f, _ in found) or "none"
        raise ValueError(f"{path}: expected one annotated function, found {names}; use --fn")
    return found[0]


def load_input(d, name, annotation, path):
    dtype, shape, stride = parse_annotation(annotation, f"{path}: parameter {name}")
    f = os.path.join(d, name + ".npy")
    a = np.load(f, allow_pickle=False)
    if a.shape != shape:
        raise Mismatch(f"input {name}: saved shape {a.shape}, annotated {shape}")
    if a.dtype != NP_OF[dtype]:
        raise Mismatch(f"input {name}: saved dtype {a.dtype}, want {np.dtype(NP_OF[dtype])}")
    t = torch.from_numpy(np.array(a, order="C", copy=True))
    if dtype == torch.bfloat16:
        b = t.to(torch.bfloat16)
        if not torch.equal(b.float(), t) and not torch.isnan(t).any():
            raise Mismatch(f"input {name}: saved bf16 values are not bf16-representable")
        t = b
    if stride is not None:
        # the function sees the view the annotation describes, as a
        # torch.compile backend would hand it over
        try:
            t = laid_out(t, stride)
        except Mismatch as e:
            raise Mismatch(f"input {name}: {e}")
    return t


def tolerances(dtype, reduction_len):
    rtol, atol = TOL[dtype]
    # Sums of n terms in another order differ by O(eps * sqrt(n)) relative to
    # the magnitudes summed; bf16/f16 outputs round that away anyway.
    k = max(1.0, math.sqrt(reduction_len) / 4) if dtype in (torch.float32, torch.float64) else 1.0
    return rtol * k, atol * k


# --exact: every output must equal PyTorch's bit for bit (for functions
# without reductions, where coil promises PyTorch's rounding exactly).
EXACT = False


def compare_output(k, want, got_np, reduction_len, equal_nan):
    label = f"out{k}"
    if tuple(got_np.shape) != tuple(want.shape):
        raise Mismatch(f"{label}: shape {tuple(got_np.shape)}, torch gives {tuple(want.shape)}")
    if got_np.dtype != NP_OF[want.dtype]:
        raise Mismatch(f"{label}: saved dtype {got_np.dtype}, torch gives {want.dtype}")
    got = torch.from_numpy(np.array(got_np, order="C", copy=True))
    if want.dtype == torch.bfloat16:
        b = got.to(torch.bfloat16)
        if not torch.equal(b.float(), got) and not torch.isnan(got).any():
            raise Mismatch(f"{label}: saved values are not bf16 values (torch gives bf16)")
        got = b
    if want.dtype in TOL and not EXACT:
        rtol, atol = tolerances(want.dtype, reduction_len)
    else:
        rtol, atol = 0.0, 0.0
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except AssertionError as e:
        lines = [l.strip() for l in str(e).splitlines() if l.strip()]
        raise Mismatch(f"{label} ({want.dtype}, rtol={rtol:.3g}, atol={atol:.3g}): "
                       + "; ".join(lines[:4]))


def compare(path, d, fn_name=None, equal_nan=False, overrides=None, inputs_dir=None):
    """Returns a short description of what passed; raises Mismatch or another
    exception on failure."""
    mod = load_module(path)
    fn, params = pick_function(mod, path, fn_name)
    params = apply_overrides(params, overrides, path)
    inputs = [load_input(inputs_dir or d, n, a, path) for n, a in params]
    with torch.no_grad():
        out = fn(**{n: t for (n, _), t in zip(params, inputs)})
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for k, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise ValueError(f"{path}: output {k} is a {type(o).__name__}, not a tensor")
    saved = sorted(f for f in os.listdir(d) if re.fullmatch(r"out\d+\.npy", f))
    if len(saved) != len(outs):
        raise Mismatch(f"{len(saved)} saved outputs, torch gives {len(outs)}")
    max_in = max([t.numel() for t in inputs] + [1])
    for k, o in enumerate(outs):
        f = os.path.join(d, f"out{k}.npy")
        if not os.path.exists(f):
            raise Mismatch(f"missing {f}")
        got = np.load(f, allow_pickle=False)
        reduction_len = max(1, max_in // max(1, o.numel()))
        compare_output(k, o, got, reduction_len, equal_nan)
    desc = ", ".join(f"{str(o.dtype).replace('torch.', '')}{list(o.shape)}" for o in outs)
    return f"{fn.__name__}: {len(outs)} output(s) match torch ({desc})"


def arg_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?")
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--fn")
    ap.add_argument("--arg", action="append", default=[])
    ap.add_argument("--inputs")
    ap.add_argument("--seed", help="ignored: the inputs are read from the files")
    ap.add_argument("--equal-nan", action="store_true")
    ap.add_argument("--batch")
    ap.add_argument("--name")
    ap.add_argument("--exact", action="store_true", help="require bit-exact equality")
    return ap


def run_batch(list_file):
    failed = 0
    ap = arg_parser()
    with open(list_file) as f:
        for line in f:
            if not line.strip():
                continue
            try:
                a = ap.parse_args(shlex.split(line))
            except SystemExit:
                failed += 1
                print(f"FAIL {line.strip()}: compare.py cannot read these arguments")
                continue
            name = a.name or os.path.splitext(os.path.basename(a.file))[0] + \
                (":" + a.fn if a.fn else "")
            try:
                compare(a.file, a.dir, a.fn, a.equal_nan, a.arg, a.inputs)
                print(f"ok {name}", flush=True)
            except Exception as e:
                failed += 1
                why = str(e).replace("\n", " ")
                kind = "" if isinstance(e, Mismatch) else f"{type(e).__name__}: "
                print(f"FAIL {name}: torch comparison: {kind}{why}", flush=True)
    return 1 if failed else 0


def main():
    ap = arg_parser()
    args = ap.parse_args()
    global EXACT
    EXACT = args.exact
    if args.batch:
        return run_batch(args.batch)
    if not args.file or not args.dir:
        ap.error("FILE and DIR are required")
    try:
        print("pass:", compare(args.file, args.dir, args.fn, args.equal_nan, args.arg,
                                       args.inputs))
        return 0
    except Mismatch as e:
        print(f"mismatch: {args.file}: {e}")
        return 1
    except Exception as e:
        print(f"error: {type(e).__name__}: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
