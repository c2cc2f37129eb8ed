# slice_scatter's src must have the slice's shape (here x[1:5:2] has 2 rows).
# expect: FILE:4:28: error: expected src to have a size equal to the slice of self. src size = [3,4], slice size = [2,4]
def f(x: "f32[6, 4]", s: "f32[3, 4]"):
    return x.slice_scatter(s, 0, 1, 5, 2)
