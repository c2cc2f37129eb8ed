# A truncated .npy input.
# expect: error: TMP/x.npy: truncated header
# setup: python3 -c "import numpy as np; np.save('x.npy', np.ones(8, np.float32))" && head -c 100 x.npy > y && mv y x.npy
# args: --inputs TMP
def f(x: "f32[8]"):
    return x.sum()
