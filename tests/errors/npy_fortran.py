# A Fortran-order .npy input.
# expect: error: TMP/x.npy: Fortran-order arrays are not supported (save a C-order array)
# setup: python3 -c "import numpy as np; np.save('x.npy', np.asfortranarray(np.ones((2, 4), np.float32)))"
# args: --inputs TMP
def f(x: "f32[2, 4]"):
    return x.sum()
