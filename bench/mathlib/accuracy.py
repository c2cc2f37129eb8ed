"""Accuracy of vecmath.c's outputs: ulp error against the function in
double (numpy's float64, itself within a double ulp: exact for f32 results)
and distance in floats from PyTorch's CPU result (SLEEF's u10 functions on
a vector CPU).  Usage: accuracy.py IN.bin N PREFIX..."""
import sys
import numpy as np
import torch

path, n = sys.argv[1], int(sys.argv[2])
a = np.fromfile(path, np.float32).reshape(5, n)
ins = {"tan": (a[0],), "expm1": (a[1],), "log1p": (a[2],), "atan2": (a[3], a[4])}
exact = {"tan": lambda x: np.tan(x.astype(np.float64)), "expm1": lambda x: np.expm1(x.astype(np.float64)),
         "log1p": lambda x: np.log1p(x.astype(np.float64)),
         "atan2": lambda y, x: np.arctan2(y.astype(np.float64), x.astype(np.float64))}
tfn = {"tan": torch.tan, "expm1": torch.expm1, "log1p": torch.log1p, "atan2": torch.atan2}

def ordered(f):
    i = f.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)

def dist(p, q):
    d = np.abs(ordered(p) - ordered(q)).astype(np.float64)
    both = np.isnan(p) & np.isnan(q)
    one = np.isnan(p) ^ np.isnan(q)
    return np.where(both, 0, np.where(one, np.inf, d))

def ulp_err(y, e):
    with np.errstate(all="ignore"):
        ef = e.astype(np.float32)
        m, ex = np.frexp(np.abs(e))
        ulp = np.maximum(np.ldexp(1.0, ex - 24), 2.0 ** -149)
        err = np.abs(y.astype(np.float64) - e) / ulp
        # infinities, NaNs and overflow: exact or wrong
        special = ~np.isfinite(ef) | ~np.isfinite(y)
        return np.where(special, np.where(dist(y, ef) == 0, 0, np.inf), err)

rows = []
for prefix in sys.argv[3:]:
    for name, args in ins.items():
        y = np.fromfile(f"{prefix}_{name}.bin", np.float32)
        e = exact[name](*args)
        t = tfn[name](*[torch.from_numpy(x) for x in args]).numpy()
        ue = ulp_err(y, e)
        dt = dist(y, t)
        print(f"{prefix.split('/')[-1]:>12} {name:>6}: max ulp vs exact {ue.max():6.3f}, "
              f"> 1 ulp {np.mean(ue > 1) * 100:6.3f}%, max distance from torch {dt.max():4.0f}, "
              f"equal to torch {np.mean(dt == 0) * 100:6.2f}%")
t_ue = {}
for name, args in ins.items():
    t = tfn[name](*[torch.from_numpy(x) for x in args]).numpy()
    print(f"{'torch':>12} {name:>6}: max ulp vs exact {ulp_err(t, exact[name](*args)).max():6.3f}")
