# torch.bitwise_xor of float tensors (PyTorch: "bitwise_xor_cpu" not implemented for 'Float').
# expect: FILE:6:18: error: '^' (bitwise_xor) needs bool or integer tensors, got f32 (as in PyTorch)
import torch

def f(x: "f32[8]", i: "i32[8]"):
    return torch.bitwise_xor(x, i)
