# A float64 weight for a float32 input (PyTorch: mixed dtype error).
# expect: FILE:6:31: error: group_norm: weight is f64 for a f32 input; a parameter has the input's dtype, or float32 for a bfloat16 or float16 input (as PyTorch's CPU kernels)
import torch.nn.functional as F

def f(x: "f32[2, 6, 5]", w: "f64[6]"):
    return F.group_norm(x, 3, w)
