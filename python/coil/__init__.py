"""coil: fused multi-axis reductions for PyTorch users (docs/python.md).

    model = torch.compile(model, backend="coil")   # forward and backward
    fast = coil.compile(fn)                        # a function in coil's subset, from its source
    print(coil.explain(model, x))                  # what ran in coil, what ran as ATen and why
    print(coil.emit(model, x, target="triton-npu"))  # the kernels coil would run, as source

The binding (coil._C) is a C extension over libcoil's C API
(include/coil.h); this package holds only the torch.fx and Dynamo glue.
coil logs to the "coil" logger and never prints.
"""
import logging

from . import config
from ._C import CoilError, IndexOutOfRange, ProgramError, TensorError
from .frontend import compile

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["compile", "explain", "emit", "recording", "config", "CoilError", "IndexOutOfRange", "ProgramError", "TensorError", "NotSupported",
           "coil_backend"]


def __getattr__(name):
    # The backend imports torch; coil.compile works without it (numpy).
    if name in ("explain", "emit", "recording", "NotSupported", "coil_backend", "Report"):
        from . import backend
        return getattr(backend, name)
    raise AttributeError(f"module 'coil' has no attribute '{name}'")
