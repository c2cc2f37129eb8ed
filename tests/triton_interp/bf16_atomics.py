"""Triton's interpreter has no atomic add of bf16 (its C++ part takes
numpy arrays, and numpy has no bf16: "Unsupported data type"), which coil's
modules use for a sum at indices of a bf16 tensor (an indexed store:
tl.atomic_add, as a GPU or an NPU runs it).  install() gives the
interpreter one with the same meaning: each active lane in turn reads the
bf16 at its address, adds its value in f32, and writes the sum rounded to
bf16 (to nearest, ties to even; a NaN stays a NaN); the result is the old
values.  Every other atomic goes to the interpreter's own."""
import ctypes

import numpy as np


def _bf16_to_f32(h):
    return np.array([np.uint32(h) << np.uint32(16)], dtype=np.uint32).view(np.float32)[0]


def _f32_to_bf16(f):
    u = int(np.array([f], dtype=np.float32).view(np.uint32)[0])
    if (u & 0x7fffffff) > 0x7f800000:
        return (u >> 16) | 0x40
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0xffff


def install():
    import triton.language as tl
    from triton._C.libtriton import ir
    from triton.runtime import interpreter as I

    own = I.InterpreterBuilder.create_atomic_rmw

    def create_atomic_rmw(self, rmwOp, ptr, val, mask, sem, scope):
        if val.dtype.scalar != tl.bfloat16 or rmwOp != ir.ATOMIC_OP.FADD:
            return own(self, rmwOp, ptr, val, mask, sem, scope)
        addrs, vals, masks = ptr.data.ravel(), val.data.ravel(), np.broadcast_to(mask.data, ptr.data.shape).ravel()
        old = np.zeros(addrs.shape, dtype=np.uint16)
        for i in range(addrs.size):
            if not masks[i]:
                continue
            cell = ctypes.c_uint16.from_address(int(addrs[i]))
            old[i] = cell.value
            cell.value = _f32_to_bf16(np.float32(_bf16_to_f32(cell.value)) + np.float32(_bf16_to_f32(vals[i])))
        return I.TensorHandle(old.reshape(ptr.data.shape), val.dtype.scalar)

    I.InterpreterBuilder.create_atomic_rmw = create_atomic_rmw
