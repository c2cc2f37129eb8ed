# Fits the C prelude's logf/tanhf polynomials (developer tool): python3 tools/fit_poly.py [log|tanh] [DEGREE]
"""Fit the polynomials of the C prelude's logf and tanhf (src/cpu/emit.c).

Near-minimax: weighted least squares on many Chebyshev points, reweighted
(Lawson's algorithm) toward the points of largest error, in mpmath at 50
digits; then the coefficients are rounded to float32 and the relative error
of the whole approximation is measured in float64 on a dense grid.  Prints
C literals.  Usage: python3 tools/fit_poly.py [log|tanh] [DEGREE]
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 50


def lawson(target, weight, basis_of, lo, hi, degree, iters=60, npts=2000):
    xs = [mp.mpf(lo) + (mp.mpf(hi) - mp.mpf(lo)) * (1 - mp.cos(mp.pi * (i + 0.5) / npts)) / 2 for i in range(npts)]
    A = np.array([[float(b) for b in basis_of(x, degree)] for x in xs])
    t = np.array([float(target(x)) for x in xs])
    w = np.array([float(weight(x)) for x in xs])
    lw = np.ones(npts) / npts
    for _ in range(iters):
        sw = np.sqrt(lw) * w
        c, *_ = np.linalg.lstsq(A * sw[:, None], t * sw, rcond=None)
        err = np.abs((A @ c - t) * w)
        lw = lw * err
        lw /= lw.sum()
    return c


def fit_log(degree):
    # log1p(f) = f - f^2/2 + f^3 Q(f), f = m - 1, m in [sqrt(1/2), sqrt(2))
    lo, hi = mp.sqrt(0.5) - 1, mp.sqrt(2) - 1
    target = lambda f: (mp.log1p(f) - f + f * f / 2) / f**3 if f != 0 else mp.mpf(1) / 3
    weight = lambda f: abs(f**3 / mp.log1p(f)) if f != 0 else 0
    basis = lambda f, d: [f**i for i in range(d + 1)]
    c = lawson(target, weight, basis, lo, hi, degree)
    c32 = np.float32(c)
    f = np.linspace(float(lo), float(hi), 200001)
    f = f[f != 0]
    q = np.polyval(c32[::-1].astype(np.float64), f)
    approx = f - f * f / 2 + f**3 * q
    exact = np.log1p(f)
    return c32, np.max(np.abs(approx - exact) / np.abs(exact))


def fit_tanh(degree, cut):
    # tanh(x) = x + x^3 P(x^2) on [0, cut]
    target = lambda x: (mp.tanh(x) - x) / x**3 if x != 0 else -mp.mpf(1) / 3
    weight = lambda x: abs(x**3 / mp.tanh(x)) if x != 0 else 0
    basis = lambda x, d: [x ** (2 * i) for i in range(d + 1)]
    c = lawson(target, weight, basis, 0, cut, degree)
    c32 = np.float32(c)
    x = np.linspace(1e-6, cut, 200001)
    p = np.polyval(c32[::-1].astype(np.float64), x * x)
    approx = x + x**3 * p
    return c32, np.max(np.abs(approx - np.tanh(x)) / np.tanh(x))


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "log"
    deg = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    if what == "log":
        c, e = fit_log(deg)
    else:
        c, e = fit_tanh(deg, float(sys.argv[3]) if len(sys.argv) > 3 else 0.55)
    print("max relative error %.3g (2^%.1f)" % (e, np.log2(e)))
    print(", ".join("%.9ef" % v for v in c))
