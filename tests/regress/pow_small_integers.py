# x ** n for a constant n called libm's powf per element: the loop did not
# vectorise, and a row sum of x ** 3 ran at 0.03 of the read ceiling.  Now
# n in {2, 3, 4, -1, -2} is multiplication (and a reciprocal), as PyTorch's
# CPU kernel computes 2, 3, -1 and -2: bit for bit here.  PyTorch rounds
# x * x to bf16 in a bf16 x ** 3 and x ** -2, and computes f16 powers and
# bf16 ** 4 in f32; coil follows (fuzz seed 4003 case 578 caught the f16
# and reference sides).  f32 x ** 4 is in pow_four.py (PyTorch calls pow).
# exact
import torch


def powers(x: "f32[37, 129]", h: "bf16[37, 129]", i: "i32[37, 129] uniform(-40, 40)", g: "f16[37, 129]"):
    return (x ** 2, x ** 3, torch.pow(x, -1), x ** -2, h ** 2, h ** 3, h ** -2, h ** 4, h ** -1, i ** 2, i ** 3, x.pow(2.0),
            g ** 2, g ** 3, g ** -2, g ** 4, g ** -1)
