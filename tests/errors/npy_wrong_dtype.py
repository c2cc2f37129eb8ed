# An .npy input of the wrong dtype.
# expect: error: TMP/x.npy: dtype f64 does not match parameter x's dtype f32
# setup: python3 -c "import numpy as np; np.save('x.npy', np.ones(8, np.float64))"
# args: --inputs TMP
def f(x: "f32[8]"):
    return x.sum()
