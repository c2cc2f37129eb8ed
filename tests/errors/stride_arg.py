# stride(...) through --arg, with one stride too many.
# expect: error: --arg x=f32[4,8]stride(1,4,2): x: stride(...) gives 3 strides for 2 dimensions (expected a spec like "f32[4, 8] stride(1, 4)")
# args: --arg x=f32[4,8]stride(1,4,2)
def f(x):
    return x.sum()
