# A for loop over a tensor's rows.
# expect: FILE:5:16: error: a for loop runs over range(), a tuple, a list, zip() or enumerate() in coil's subset, got a tensor (a loop over a tensor's rows: index x[i] in a loop over range(x.shape[0]))
def f(x: "f32[3, 8]"):
    y = x[0]
    for row in x:
        y = y + row
    return y
