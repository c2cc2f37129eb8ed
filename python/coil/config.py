"""coil's settings for the torch.compile backend.

strict: raise coil.NotSupported where an op, dtype or layout would run as
        ATen (library calls such as matmul, convolution and attention are
        ATen by design and never raise).  Default: the environment variable
        COIL_STRICT (set and not "0").
target: the target of CPU tensors: "c" (C with OpenMP), or "triton-npu" /
        "triton-gpu" run through coil's Triton executor on the CPU (slow; a
        correctness tool).  torch.compile's options={"target": ...} overrides
        it per model.  CUDA tensors always run the triton-gpu module.
autotune: CUDA groups' triton-gpu modules time a few tiles around the
        model's per kernel on their first call and cache the choice beside
        the module in the kernel cache (docs/triton.md, Autotune).  Default:
        COIL_AUTOTUNE (set and not "0"); options={"autotune": ...} overrides
        it per model.
native_launch: CUDA groups' Plans launch plain compiled kernels through the
        CUDA driver's cuLaunchKernel from C, not Triton's launcher (Python
        in Triton 3.x: 5-8 us a launch on the H200's host, docs/gpu.md).
        Default: True, unless COIL_NATIVE_LAUNCH is "0".
compile_threads: the threads in which Triton compiles a graph's CUDA
        kernels, all together, when the graph is compiled (as Inductor's
        compile_threads); 1 compiles each kernel on its first launch
        instead.  Default: COIL_COMPILE_THREADS, else the CPUs, at most 32.
partition_window: graphs of more nodes than this are partitioned in
        windows of about this many consecutive nodes, each cut before an
        ATen call such as a matmul (torch.fx's partitioner takes time that
        grows faster than the square of a graph's size: docs/python.md).
        0 partitions every graph whole.  Default: COIL_PARTITION_WINDOW,
        else 600.
"""
import logging
import os

strict = os.environ.get("COIL_STRICT", "") not in ("", "0")
target = "c"
autotune = os.environ.get("COIL_AUTOTUNE", "") not in ("", "0")
native_launch = os.environ.get("COIL_NATIVE_LAUNCH", "1") != "0"


def _count(variable, default, least):
    """The environment variable as a count of at least `least`; a value that
    is not a number is reported on the "coil" logger and the default taken."""
    value = os.environ.get(variable)
    if not value:
        return default
    try:
        return max(least, int(value))
    except ValueError:
        logging.getLogger("coil").warning("coil: %s=%r is not a number; %d taken", variable, value, default)
        return default


compile_threads = _count("COIL_COMPILE_THREADS", min(32, os.cpu_count() or 1), 1)
partition_window = _count("COIL_PARTITION_WINDOW", 600, 0)
