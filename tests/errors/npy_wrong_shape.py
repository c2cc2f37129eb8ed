# An .npy input of the wrong shape.
# expect: error: TMP/x.npy: shape [7] does not match parameter x's shape [8]
# setup: python3 -c "import numpy as np; np.save('x.npy', np.ones(7, np.float32))"
# args: --inputs TMP
def f(x: "f32[8]"):
    return x.sum()
