"""Inputs for vecmath.c: 1M f32 values per function, magnitudes
log-uniform over each function's interesting range, random signs, and the
special values (0, -0, +-inf, NaN, subnormals) at the front."""
import sys
import numpy as np

n = int(sys.argv[2])
rng = np.random.default_rng(0)
def mag(lo, hi):
    return np.exp2(rng.uniform(lo, hi, n)).astype(np.float32)
def signed(a):
    return np.where(rng.random(n) < 0.5, -a, a).astype(np.float32)
special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -1e-40], np.float32)
tan = signed(mag(-30, 24))
expm1 = signed(mag(-30, 7))          # to +-128: overflow above 88.7
log1p = mag(-30, 30)
neg = rng.random(n) < 0.3
log1p = np.where(neg, -np.minimum(mag(-30, 0), np.float32(0.99999994)), log1p).astype(np.float32)
y = signed(mag(-30, 30)); x = signed(mag(-30, 30))
for a in (tan, expm1, log1p, y, x):
    a[: len(special)] = special
x[: len(special)] = special[::-1]
np.concatenate([tan, expm1, log1p, y, x]).astype(np.float32).tofile(sys.argv[1])
