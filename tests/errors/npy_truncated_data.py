# A .npy input whose data is cut short.
# expect: error: TMP/x.npy: truncated data (12 of 256 bytes)
# setup: python3 -c "import numpy as np; np.save('x.npy', np.ones(64, np.float32))" && head -c 140 x.npy > y && mv y x.npy
# args: --inputs TMP
def f(x: "f32[64]"):
    return x.sum()
