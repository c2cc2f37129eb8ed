# A function whose taken branch ends without a return.
# expect: FILE:3:5: error: function 'f' reaches its end without a return (on the path its branches took)
def f(x: "f32[8]"):
    if x.dim() == 2:
        return x
