# Buffers larger than the machine.
# expect: error: the tensors need 16000.0 GB but this machine has 25.3 GB of memory
def f(x: "f32[4000000000000]"):
    return x.sum()
