#!/usr/bin/env python3
"""The new math's float results against PyTorch's CPU ones, to the ulp.

    python3 tests/accuracy/math_ulp.py COIL TMPDIR [TARGET...]

Writes inputs (N values per function: magnitudes log-uniform over each
function's domain, both signs, subnormals, +-0, +-inf, NaN, the domain's
ends), runs `coil run --inputs --save` on the functions below for each
target (default: c), computes the same in PyTorch eager on the CPU and
measures the distance in representable values of the output's dtype.
With COIL_NO_SLEEF=1 (the C target's
libm calls instead of SLEEF's vector functions) the names end in _libm.
Every f32 and f64 result must be within 2 ulp of PyTorch's (bf16 and f16:
within 1 of their own ulp: a 2-ulp f32 difference may round across a tie),
NaN where PyTorch has NaN, the same infinity.  Prints one "ok NAME" or
"FAIL NAME: why" line per function and target, and the worst distance."""
import os
import subprocess
import sys

import numpy as np
import torch

N = 1 << 15
UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc", "erfinv", "expm1", "log10", "log1p"]
BINARY = ["atan2", "hypot"]
# each function's input: (name of the input, the dtype's values drawn from it)
DOMAIN = {"tan": "t", "asin": "a", "acos": "a", "atanh": "a", "erfinv": "a", "atan": "w", "sinh": "w", "cosh": "w",
          "asinh": "w", "erfc": "w", "expm1": "w", "acosh": "p", "log10": "p", "log1p": "l"}
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, -1e-30]
DTYPES = {"f32": (torch.float32, np.float32), "f64": (torch.float64, np.float64), "bf16": (torch.bfloat16, np.float32),
          "f16": (torch.float16, np.float16)}


def inputs(dt, seed):
    rng = np.random.default_rng(seed)
    big = {"f32": 126, "f64": 1000, "bf16": 126, "f16": 15}[dt]
    tiny = {"f32": -149, "f64": -1074, "bf16": -133, "f16": -24}[dt]

    def mag(lo, hi):
        return np.exp2(rng.uniform(lo, hi, N))

    def signed(a):
        return np.where(rng.random(N) < 0.5, -a, a)

    v = {
        "t": signed(mag(tiny, min(big, 40))),            # tan: to 2^40 (argument reduction)
        "a": signed(np.where(rng.random(N) < 0.5, 1 - mag(-53, -1), mag(tiny, 0))),  # (-1, 1), both ends
        "w": signed(mag(tiny, min(big, 10))),            # to +-1024: over- and underflow
        "p": np.where(rng.random(N) < 0.5, 1 + mag(-53, 4), mag(tiny, big)),  # near 1 and the whole range
        "l": np.where(rng.random(N) < 0.3, -(1 - mag(-53, -1)), signed(mag(tiny, big))),  # > -1 mostly
        "y": signed(mag(tiny, big)),
        "x": signed(mag(tiny, big)),
    }
    tt, npt = DTYPES[dt]
    out = {}
    for k, a in v.items():
        a[: len(SPECIAL)] = SPECIAL
        # the dtype's values (bf16/f16 as f32 arrays holding them; coil reads bf16 from f32)
        out[k] = torch.from_numpy(a).to(tt).to(torch.float64 if dt == "f64" else torch.float32).numpy().astype(npt)
    if dt != "f64":
        # SLEEF's sinhf and coshf (PyTorch's, and coil's in vectorised loops) overflow to inf from
        # |x| = 88.72, where the value is finite to 89.41 (libm's, coil's scalar calls): not compared
        w = out["w"].astype(np.float64)
        out["w"] = np.where((np.abs(w) > 88.5) & (np.abs(w) < 89.5), 88.0 * np.sign(w), w).astype(npt)
    out["x"][: len(SPECIAL)] = SPECIAL[::-1]
    return out


def source():
    lines = ["import torch", ""]
    for dt in DTYPES:
        params = ", ".join(f'{k}: "{dt}[{N}]"' for k in "tawplyx")
        outs = ", ".join(f"torch.{f}({DOMAIN[f]})" for f in UNARY) + ", torch.atan2(y, x), torch.hypot(y, x)"
        lines += [f"def math_{dt}({params}):", f"    return ({outs})", ""]
    return "\n".join(lines)


def ordered(a, bits):
    i = a.view(np.int64 if bits == 64 else np.int32).astype(np.int64)
    sign = np.int64(-1) << (bits - 1)
    return np.where(i < 0, -(i & ~sign), i)


def distance(got, want, dt):
    """Distance in representable values of dt (inf: 0 or huge; NaN: 0 if both)."""
    tt = DTYPES[dt][0]
    if dt in ("bf16", "f16"):
        g = torch.from_numpy(got).to(tt).view(torch.int16).numpy().astype(np.int64)
        w = want.view(torch.int16).numpy().astype(np.int64)
        g, w = np.where(g < 0, -(g & 0x7FFF), g), np.where(w < 0, -(w & 0x7FFF), w)
        gf, wf = torch.from_numpy(got).to(tt).float().numpy(), want.float().numpy()
    else:
        bits = 64 if dt == "f64" else 32
        g, w = ordered(got, bits), ordered(want.numpy(), bits)
        gf, wf = got, want.numpy()
    d = np.abs(g - w).astype(np.float64)
    gn, wn = np.isnan(gf), np.isnan(wf)
    d = np.where(gn & wn, 0, np.where(gn | wn, np.inf, d))
    gi, wi = np.isinf(gf), np.isinf(wf)
    d = np.where((gi | wi) & ~(gn | wn), np.where(gf == wf, 0, np.inf), d)
    return d


def main():
    coil, tmp = sys.argv[1], sys.argv[2]
    targets = sys.argv[3:] or ["c"]
    src = os.path.join(tmp, "math_ulp.py")
    with open(src, "w") as f:
        f.write(source())
    failed = False
    for di, dt in enumerate(DTYPES):
        ins = inputs(dt, 7 + di)
        d_in = os.path.join(tmp, f"in_{dt}")
        os.makedirs(d_in, exist_ok=True)
        for k, a in ins.items():
            np.save(os.path.join(d_in, k + ".npy"), a)
        tt = DTYPES[dt][0]
        T = {k: torch.from_numpy(a.astype(np.float64)).to(tt) for k, a in ins.items()}
        want = [getattr(torch, f)(T[DOMAIN[f]]) for f in UNARY] + [torch.atan2(T["y"], T["x"]), torch.hypot(T["y"], T["x"])]
        bound = 1 if dt in ("bf16", "f16") else 2
        for target in targets:
            out = os.path.join(tmp, f"out_{dt}_{target}")
            cmd = [coil, "run", src, "--fn", f"math_{dt}", "--inputs", d_in, "--save", out, "--equal-nan"]
            if target != "c":
                cmd += ["--target", target]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL accuracy/math_ulp_{dt}_{target}: coil run exited {r.returncode}: {(r.stdout + r.stderr)[-400:]}")
                failed = True
                continue
            worst, bad = [], []
            for k, f in enumerate(UNARY + BINARY):
                got = np.load(os.path.join(out, f"out{k}.npy"))
                d = distance(got, want[k], dt)
                worst.append(f"{f} {d.max():.0f}")
                if d.max() > bound:
                    i = int(np.argmax(d))
                    arg = f"{ins['y'][i]!r}, {ins['x'][i]!r}" if f in BINARY else repr(ins[DOMAIN[f]][i])
                    bad.append(f"{f}({arg}): coil {got[i]!r}, torch {want[k][i].item()!r} ({d.max():.0f} ulp)")
            name = f"accuracy/math_ulp_{dt}_{target}" + ("_libm" if os.environ.get("COIL_NO_SLEEF") else "")
            if bad:
                failed = True
                print(f"FAIL {name}: beyond {bound} ulp of PyTorch: " + "; ".join(bad))
            else:
                print(f"ok {name}  (worst distance from PyTorch in ulp: {', '.join(worst)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
