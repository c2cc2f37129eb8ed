# math.* takes Python numbers; on a tensor the torch function is the one.
# expect: FILE:5:22: error: math.sqrt expects a Python number, got a tensor (use the torch function on tensors)
import math
def f(x: "f32[8]"):
    return math.sqrt(x)
