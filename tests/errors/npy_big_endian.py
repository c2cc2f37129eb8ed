# A big-endian .npy input.
# expect: error: TMP/x.npy: big-endian data is not supported: '>f4'
# setup: python3 -c "import numpy as np; np.save('x.npy', np.ones(8, '>f4'))"
# args: --inputs TMP
def f(x: "f32[8]"):
    return x.sum()
