# y += ... on a tensor that another name shares: PyTorch would change x too.
# expect: FILE:5:7: error: '+=' on 'y' would change 'x' too in PyTorch (they share memory), and coil computes tensors out of place; write y = y + ... (or clone it first)
def f(x: "f32[8]"):
    y = x
    y += 1.0
    return x, y
