# --inputs for an expanded input (stride 0): the file's rows differ, but the
# storage holds one row for all of them.
# expect: error: TMP/x.npy: parameter x's stride(0,1) puts several elements in one place, but the file's values there differ (first at flat index 0)
# setup: python3 -c "import numpy as np; np.save('x.npy', np.arange(8, dtype=np.float32).reshape(2, 4))"
# args: --inputs TMP
def f(x: "f32[2, 4] stride(0, 1)"):
    return x.sum(0)
