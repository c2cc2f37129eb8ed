# A with statement is outside the subset (if statements are in it).
# expect: FILE:7:5: error: 'with' statements are not in coil's subset (a function body is assignments and a return)
import torch


def f(x: "f32[4]"):
    with torch.no_grad():
        x = x + 1
    return x
