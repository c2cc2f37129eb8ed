# A function without a return.
# expect: FILE:3:5: error: function 'f' has no return statement
def f(x: "f32[2]"):
    y = x + 1
