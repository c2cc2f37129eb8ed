"""coil.compile(fn): a function in coil's Python subset, compiled from its
own source file (its imports, helpers and constants come with it) and
specialized per call on the arguments' dtypes, shapes and strides.

Arguments are anything with __dlpack__ on the CPU (torch tensors, numpy
arrays); results are new tensors of the first argument's library.  It
computes values only: for gradients, use torch.compile(backend="coil").
"""
import inspect
import threading

from . import _C

# Library dtype names -> coil's annotation spelling.
_COIL_DTYPE = {"bool": "bool", "int32": "i32", "int64": "i64", "float16": "f16", "bfloat16": "bf16",
               "float32": "f32", "float64": "f64"}


def _dtype_name(x):
    """PyTorch's name of x's dtype ("float32"), for torch and numpy alike."""
    name = str(x.dtype)
    return name[len("torch."):] if name.startswith("torch.") else name


def _layout(x):
    """(dtype, shape, strides in elements) of a torch tensor or numpy array."""
    shape = tuple(int(s) for s in x.shape)
    if hasattr(x, "stride") and callable(x.stride):
        strides = tuple(x.stride())
    else:
        strides = tuple(s // x.itemsize for s in x.strides)
    return _dtype_name(x), shape, strides


def _contiguous(shape):
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= max(d, 1)
    return tuple(reversed(strides))


def _spec(name, dtype, shape, strides):
    """An argument's annotation, as coil_options.args takes it."""
    if dtype not in _COIL_DTYPE:
        raise _C.TensorError(f"argument {name}: dtype {dtype} is not one coil compiles "
                             f"({', '.join(_COIL_DTYPE)})")
    spec = f"{name}={_COIL_DTYPE[dtype]}[{', '.join(map(str, shape))}]"
    if any(n > 1 and a != b for n, a, b in zip(shape, strides, _contiguous(shape))):
        spec += f" stride({', '.join(map(str, strides))})"
    return spec


class Compiled:
    """A function compiled by coil: call it like the function."""

    def __init__(self, fn, target="c", dump=None):
        self.fn = fn
        self.target = target
        self.dump = dump
        self.file = inspect.getsourcefile(fn)
        if self.file is None:
            raise _C.ProgramError(f"coil.compile: no source file for {fn!r} (coil compiles a function from its source)")
        with open(self.file, encoding="utf-8") as f:
            self.text = f.read()
        self.signature = inspect.signature(fn)
        self.programs = {}
        self.lock = threading.Lock()

    def program(self, names, args):
        """The program for these tensors (compiled once per layout)."""
        layouts = tuple(zip(names, (_layout(a) for a in args)))
        p = self.programs.get(layouts)
        if p is None:
            with self.lock:
                p = self.programs.get(layouts)
                if p is None:
                    specs = [_spec(n, *l) for n, l in layouts]
                    p = _C.compile_source(self.file, self.text, target=self.target, fn=self.fn.__name__,
                                          dump=self.dump, args=specs)
                    self.programs[layouts] = p
        return p

    def __call__(self, *args, **kwargs):
        bound = self.signature.bind(*args, **kwargs)
        tensors = []
        for name, value in bound.arguments.items():
            if hasattr(value, "__dlpack__"):
                tensors.append((name, value))
            elif value != self.signature.parameters[name].default:
                raise TypeError(f"{self.fn.__name__}(): {name}={value!r}: coil compiles the function with "
                                f"its parameters' defaults; only tensors and arrays are passed at call time")
        names = [n for n, _ in tensors]
        args = [v for _, v in tensors]
        p = self.program(names, args)
        outs = [_empty_like_library(args, dtype, shape) for _, dtype, shape, _ in p.outputs]
        p.run([_readable(a) for a in args], outs)
        return outs[0] if len(outs) == 1 else tuple(outs)


def _readable(x):
    """x as DLPack can export it: a torch tensor that requires grad is
    detached (coil computes values, not gradients)."""
    if getattr(x, "requires_grad", False):
        return x.detach()
    return x


def _empty_like_library(args, dtype, shape):
    first = args[0] if args else None
    if first is not None and type(first).__module__.startswith("torch"):
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=first.device)
    import numpy
    if dtype == "bfloat16":
        raise _C.TensorError("a bfloat16 result has no numpy dtype: call with torch tensors")
    return numpy.empty(shape, dtype=dtype)


def compile(fn=None, *, target="c", dump=None):
    """Compile fn, a function in coil's subset, from its source file.

    Usable as coil.compile(fn) or as a decorator, @coil.compile or
    @coil.compile(target="triton-npu").  target "triton-npu"/"triton-gpu"
    runs the Triton module through coil's executor on the CPU.  dump names
    IR stages ("graph,kernel"; "all") kept in .program(*args).dump."""
    if fn is None:
        return lambda f: Compiled(f, target, dump)
    return Compiled(fn, target, dump)
