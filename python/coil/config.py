"""coil's settings for the torch.compile backend.

strict: raise coil.NotSupported where an op, dtype or layout would run as
        ATen (library calls such as matmul, convolution and attention are
        ATen by design and never raise).  Default: the environment variable
        COIL_STRICT (set and not "0").
target: the target of CPU tensors: "c" (C with OpenMP), or "triton-npu" /
        "triton-gpu" run through coil's Triton executor on the CPU (slow; a
        correctness tool).  torch.compile's options={"target": ...} overrides
        it per model.  CUDA tensors always run the triton-gpu module.
"""
import os

strict = os.environ.get("COIL_STRICT", "") not in ("", "0")
target = "c"
