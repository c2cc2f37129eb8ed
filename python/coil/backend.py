"""torch.compile(model, backend="coil"), coil.explain and coil.emit.

The backend is aot_autograd with Inductor's decomposition table and
Inductor's partitioner of forward and backward (the min-cut one: the
forward saves the small values, such as a row's rsqrt, and the backward
recomputes the pointwise ones from them rather than reading a saved tensor
of the input's size), so coil sees the forward and the backward as ATen
graphs.  In each graph, torch.fx's
CapabilityBasedPartitioner (over windows of a large graph) groups the
nodes coil supports; each group
becomes one coil program (one or more fused kernels), built node by node
through libcoil's graph API with the ATen spellings of coil's op table.
Every other node runs as ATen, as Inductor's fallbacks do (matmul,
convolution and attention stay ATen calls by design).

A group is compiled once when the graph is (with the example shapes), so
a node coil refuses is found then, moved out of coil, and the graph is
partitioned again: what runs in coil is what compiled.  At call time each
group is specialized per (dtypes, shapes, strides, devices) and cached;
a new specialization is a recompile, reported by explain().

Never a wrong answer: what coil cannot do runs as ATen, and the reason goes
to explain() and to the "coil" logger.  config.strict (or COIL_STRICT=1)
raises NotSupported instead, naming the op and the user's source line.
"""
import collections
import collections.abc
import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import importlib.util
import logging
import operator
import os
import re
import tempfile
import threading

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner, Partition
from torch.fx.passes.operator_support import OperatorSupport
from torch.fx.passes.utils.fuser_utils import fuse_by_partitions
from torch.utils.dlpack import to_dlpack

from . import _C, config
from .frontend import _contiguous

log = logging.getLogger("coil")

# PyTorch's dtypes coil compiles, by the names libcoil's binding takes.
DTYPES = {torch.bool: "bool", torch.int32: "int32", torch.int64: "int64", torch.float16: "float16",
          torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64"}

# Ops that stay ATen calls by design: library kernels (matmul, convolution,
# attention) and random numbers.  Strict mode does not count them.
_BY_DESIGN = re.compile(r"^(aten\.(mm|bmm|addmm|baddbmm|addbmm|matmul|linear|_?convolution(_backward)?|"
                        r"_scaled_dot_product_\w+|_efficient_attention\w*|_flash_attention\w*|"
                        r"rand|randn|rand_like|randn_like|randint\w*|bernoulli\w*|native_dropout\w*|normal\w*|"
                        r"uniform\w*|_fused_dropout|multinomial|randperm)|prims\.(inductor_\w+|philox\w*))\.")

# Ops that compute nothing (views, aliases, copies): a group of only these
# is left to ATen, where a view costs nothing.
_NO_COMPUTE = {"view", "_unsafe_view", "reshape", "permute", "expand", "alias", "unsqueeze", "squeeze", "slice",
               "select", "t", "transpose", "split", "split_with_sizes", "unbind", "clone", "detach", "as_strided",
               "lift_fresh_copy", "copy"}

# Keyword arguments that say where or how a result lives, not its values:
# coil's programs compute values, and the caller allocates.  The binder
# ignores them; device and requires_grad stay in the graph's source (as
# 'cpu' and False) so that the source runs as Python too: prims.iota has no
# default for either, and a factory op without its device would make CPU
# tensors for a CUDA group.  The others have defaults and no literal here.
_PLACEMENT_KWARGS = {"layout", "pin_memory", "memory_format"}


class NotSupported(_C.CoilError):
    """Raised in strict mode where coil would leave an op to ATen."""


# ------------------------------------------------------------ reports


@dataclasses.dataclass
class Kernel:
    """One coil program: a group of an ATen graph, compiled for a target."""
    graph: str
    name: str
    target: str
    ops: list
    num_kernels: int
    compile_ms: float
    code: str = ""


@dataclasses.dataclass
class Fallback:
    """One ATen node that ran outside coil, and why."""
    graph: str
    op: str
    reason: str
    where: str
    by_design: bool


@dataclasses.dataclass
class Report:
    """What coil.explain() saw: the coil programs, the ATen fallbacks and the recompiles."""
    kernels: list = dataclasses.field(default_factory=list)
    fallbacks: list = dataclasses.field(default_factory=list)
    recompiles: list = dataclasses.field(default_factory=list)
    graphs: int = 0

    def __str__(self):
        by_design = [f for f in self.fallbacks if f.by_design]
        refused = [f for f in self.fallbacks if not f.by_design]
        lines = [f"coil: {self.graphs} graph(s); {len(self.kernels)} coil program(s) "
                 f"({sum(k.num_kernels for k in self.kernels)} kernels); {len(refused)} node(s) coil does not "
                 f"support and {len(by_design)} library call(s) ran as ATen; {len(self.recompiles)} recompile(s)"]
        if self.kernels:
            lines.append("coil programs:")
            for k in self.kernels:
                lines.append(f"  {k.name} [{k.target}] {k.num_kernels} kernel(s), {k.compile_ms:.2f} ms: "
                             f"{', '.join(k.ops)}")
        if refused:
            lines.append("ATen, not supported by coil:")
            counts = collections.Counter((f.graph, f.op, f.reason, f.where) for f in refused)
            for (graph, op, reason, where), n in counts.items():
                lines.append(f"  {graph}: {op}{f' x{n}' if n > 1 else ''}: {reason}" + (f"\n      at {where}" if where else ""))
        if by_design:
            counts = collections.Counter(f.op for f in by_design)
            lines.append("ATen by design (library calls): " + ", ".join(
                f"{op}{f' x{n}' if n > 1 else ''}" for op, n in counts.items()))
        if self.recompiles:
            lines.append("recompiles:")
            lines += [f"  {r}" for r in self.recompiles]
        return "\n".join(lines)


_REPORT = contextvars.ContextVar("coil_report", default=None)


def _report():
    return _REPORT.get()


# ------------------------------------------------------------ ATen nodes


def spelling(target):
    """The op table's spelling of an ATen overload: aten.add.Tensor."""
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._opname}.{target._overloadname}"
    return None


def origin(node):
    """Where the user wrote the node: the last frame of its stack trace."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\w+)\n\s*(.*)', trace)
    if not frames:
        return ""
    file, line, fn, code = frames[-1]
    return f"{file.rsplit('/', 1)[-1]}:{line} in {fn}: {code.strip()}"


def _tensors(val):
    if isinstance(val, torch.Tensor):
        return [val]
    if isinstance(val, (tuple, list)):
        return [t for v in val for t in _tensors(v)]
    if isinstance(val, collections.abc.Mapping):  # a model's output dict (transformers' ModelOutput)
        return [t for v in val.values() for t in _tensors(v)]
    return []


class _Support(OperatorSupport):
    """Which nodes coil compiles: ops in its table, dtypes it knows, on a
    device its target runs.  Every refusal keeps its reason."""

    def __init__(self, devices, refused):
        super().__init__()
        self.devices = devices
        self.refused = refused  # node -> reason, including nodes refused by a compile

    def is_node_supported(self, submodules, node):
        if node.op != "call_function":
            return False
        if node in self.refused:
            return False
        reason = self._reason(node)
        if reason:
            self.refused[node] = reason
            return False
        return True

    def _reason(self, node):
        if node.target is operator.getitem:
            src = node.args[0]
            return None if self.is_node_supported(None, src) else "takes apart a result that runs as ATen"
        op = spelling(node.target)
        if op is None:
            return f"not an ATen op ({node.target})"
        if not _C.has_op(op):
            return "a library call coil leaves to ATen" if _BY_DESIGN.match(op) else "not in coil's op table"
        outs = _tensors(node.meta.get("val"))
        if not outs:
            return "no tensor result"
        if op in ("aten.as_strided.default", "aten.as_strided_scatter.default"):
            # coil reads (and scatters into) self as the contiguous tensor it
            # is in coil's graph; PyTorch indexes its storage.
            src = _tensors(node.args[0].meta.get("val")) if isinstance(node.args[0], torch.fx.Node) else []
            if not src or not src[0].is_contiguous() or src[0].storage_offset() != 0:
                return f"{op[5:-8]} of a tensor that is not contiguous from its storage's start"
        for a in node.all_input_nodes:
            outs += _tensors(a.meta.get("val"))
        for t in outs:
            if t.dtype not in DTYPES:
                return f"dtype {t.dtype} is not one coil compiles"
            if t.device.type not in self.devices:
                return f"tensors on {t.device.type}: coil runs {' and '.join(sorted(self.devices))} tensors"
            if t.dim() > 8:
                return f"{t.dim()} dims: coil takes at most 8"
        return None


# ------------------------------------------------------------ coil graphs from ATen nodes


class _GraphBuild:
    """A coil graph of FX nodes, through the binding's Graph: parameters for
    the group's inputs (with their dtypes, shapes and strides), one call
    per node, and a way back from a line of coil's text to its node."""

    def __init__(self, name):
        self.g = _C.Graph(name)
        self.env = {}
        self.node_of = {}

    def input(self, node, value, i):
        if isinstance(value, torch.Tensor):
            self.env[node] = ("v", self.g.input(f"a{i}", DTYPES[value.dtype], tuple(value.shape),
                                                tuple(value.stride())))
        else:  # a size known at call time (a SymInt of a dynamic graph)
            self.env[node] = _literal(value)

    def arg(self, a):
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if isinstance(a, (list, tuple)):
            items = [self.arg(x) for x in a]
            if all(t[0] == "v" for t in items) and items:
                return ("V", [t[1] for t in items])
            # a Tensor?[] list (aten.index's indices): None is -1, COIL_NO_VALUE
            if all(t[0] in ("v", "n") for t in items) and any(t[0] == "v" for t in items):
                return ("V", [t[1] if t[0] == "v" else -1 for t in items])
            if all(t[0] in ("i", "b") for t in items):
                return ("I", [int(t[1]) for t in items])
            raise _C.ProgramError(f"a list of {[t[0] for t in items]} is not an argument coil takes")
        return _literal(a)

    def node(self, node):
        if node.target is operator.getitem:
            src, index = node.args
            value = self.g.item(self.env[src][1], index)
        else:
            args = [self.arg(a) for a in node.args]
            kwargs = {k: self.arg(v) for k, v in node.kwargs.items() if k not in _PLACEMENT_KWARGS}
            value = self.g.call(spelling(node.target), args, kwargs, origin(node) or node.name)
        self.env[node] = ("v", value)
        self.node_of[value] = node

    def output(self, nodes, perms):
        values = []
        for n, perm in zip(nodes, perms):
            v = self.env[n][1]
            if perm is not None:
                v = self.g.call("Tensor.permute", [("v", v), ("I", perm)], {}, "the layout the graph expects")
            values.append(v)
        self.g.output(values)

    def culprit(self, error):
        """The node whose line a ProgramError names, or None."""
        m = re.match(r"<graph \w+>:(\d+):", str(error))
        if not m:
            return None
        lines = self.g.source().splitlines()
        line = int(m.group(1))
        v = re.match(r"\s+v(\d+) = ", lines[line - 1]) if 0 < line <= len(lines) else None
        return self.node_of.get(int(v.group(1))) if v else None


def _literal(a):
    if isinstance(a, bool):
        return ("b", a)
    if isinstance(a, int):
        return ("i", a)
    if isinstance(a, float):
        return ("f", a)
    if isinstance(a, torch.SymInt):
        return ("i", int(a))
    if a is None:
        return ("n",)
    if isinstance(a, torch.dtype):
        if a not in DTYPES:
            raise _C.ProgramError(f"dtype {a} is not one coil compiles")
        return ("d", DTYPES[a])
    if isinstance(a, str):
        return ("s", a)
    if isinstance(a, torch.device):
        return ("s", str(a))  # ignored by the binder; kept so the source runs as Python
    if isinstance(a, (torch.layout, torch.memory_format)):
        raise _C.ProgramError(f"{a!r} as a positional argument")
    raise _C.ProgramError(f"an argument of type {type(a).__name__} ({a!r}) is not one coil takes")


class _NodeError(Exception):
    """A node coil cannot take, found while building (its arguments)."""

    def __init__(self, node, reason):
        super().__init__(reason)
        self.node, self.reason = node, reason


def _build(name, nodes, inputs, values, outputs, perms=None):
    """The coil graph of nodes; perms[i] (or None) permutes output i."""
    b = _GraphBuild(name)
    for i, (node, value) in enumerate(zip(inputs, values)):
        b.input(node, value, i)
    for n in nodes:
        try:
            b.node(n)
        except _C.CoilError as e:
            raise _NodeError(n, str(e).splitlines()[0]) from e
    b.output(outputs, perms or [None] * len(outputs))
    return b


def _target_for(target, device):
    """CUDA tensors run the triton-gpu module; others the chosen target."""
    return "triton-gpu" if device.type == "cuda" else target


# ------------------------------------------------------------ a group at run time


# Triton modules loaded in this process, by their code with the program's
# name taken out: groups that differ only in their names (a model's
# repeated layers) share one module, so Triton compiles its kernels once.
_modules = {}
_modules_lock = threading.Lock()


def _load_module(code):
    """A Triton module, imported from a file: triton.jit reads a kernel's
    source from its file.  Files are named by their code's hash, in the
    kernel cache (COIL_CACHE_DIR, else ~/.cache/coil), written atomically.
    A module whose code is one loaded before but for the program's name
    (COIL_FUNCTION, which its kernels' names start from) is that module."""
    name = re.search(r"^COIL_FUNCTION = '([^']+)'$", code, re.M)
    # the name as a whole, or between underscores (coil_NAME_k0)
    key = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name.group(1))}(?![A-Za-z0-9])", "\0", code) if name else code
    same = hashlib.sha256(key.encode()).hexdigest()
    with _modules_lock:
        module = _modules.get(same)
        if module is None:
            module = _modules[same] = _import_module(code)
    return module


def _import_module(code):
    digest = hashlib.sha256(code.encode()).hexdigest()[:24]
    root = os.environ.get("COIL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "coil")
    folder = os.path.join(root, "triton")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"coil_{digest}.py")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(code)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(f"coil_triton_{digest}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Entry:
    """One specialization of a group: a compiled program and how to run it.

    Where the graph expects a result laid out otherwise than contiguously
    (a later ATen view depends on it), the program computes the result
    permuted so that its contiguous buffer is that layout, and the caller
    gets a tensor with that layout: no copy.  A layout that is no
    permutation of a dense one (a padded row, say) is copied into.

    plan is the binding's Plan (the group's Runner runs it when the
    arguments match, in one C call), or None.  A program for the CPU has
    its plan from the start.  A Triton module on CUDA runs its first call
    through Triton's JIT, which compiles each kernel; the plan then calls
    the compiled kernels' launchers directly (_cuda_plan), as Inductor's
    generated code does (a module that checks its indices reads its status
    back after them, as coil_run does).  None: a layout copied into."""

    def __init__(self, program, target, device, layouts, args):
        self.program = program
        self.outputs = [(getattr(torch, dt), shape) for _, dt, shape, _ in program.outputs]
        self.layouts = layouts
        self.device = device
        self.module = None
        self.plan = None
        self.args = [None if isinstance(a, torch.Tensor) else int(a) for a in args]
        permuted_only = all(layout is None or layout.inverse is not None for layout in layouts)
        if target == "triton-gpu" and device.type == "cuda":
            self.module = _load_module(program.code)
            self.plannable = permuted_only
            _warm(self.module, args, device)
        elif device.type == "cpu" and permuted_only:
            self.plan = _C.Plan(program, self.args, self._allocators(_empty_strided_cpu))

    def _allocators(self, alloc):
        """(alloc, its arguments) per result: the tensor whose memory is the
        program's contiguous result, with the layout the graph expects."""
        allocs = []
        for (_, dt, shape, strides), layout in zip(self.program.outputs, self.layouts):
            if layout is not None:  # the tensor whose permute(order) is the program's contiguous result
                shape = tuple(shape[i] for i in layout.inverse)
                strides = tuple(strides[i] for i in layout.inverse)
            allocs.append((alloc, (tuple(shape), tuple(strides), getattr(torch, dt))))
        return allocs

    def __call__(self, tensors):
        if self.module is not None:
            try:
                outs = self._launch(list(tensors))
            except IndexError as e:  # the module's status check: the same error as the C kernels give
                raise _C.IndexOutOfRange(str(e)) from None
        else:
            outs = [torch.empty(shape, dtype=dt, device=self.device) for dt, shape in self.outputs]
            _C.set_num_threads(torch.get_num_threads())
            self.program.run([to_dlpack(t) for t in tensors], [to_dlpack(o) for o in outs])
        return tuple(o if layout is None else layout.apply(o) for o, layout in zip(outs, self.layouts))

    def _launch(self, tensors):
        """The module's launches through Triton's JIT (the first call
        compiles them); where the module allows, the plan of later calls."""
        mod = self.module
        if not self.plannable:  # a later call the plan did not take, or a module without one
            return mod.coil_run(tensors)
        bufs = mod.coil_alloc(tensors)
        compiled = [kernel(*args, num_warps=num_warps, **mod.COIL_LAUNCH_OPTIONS)
                    for kernel, args, num_warps in mod.coil_bind(bufs)]
        self.plannable = False
        self.plan = _cuda_plan(self, bufs, tensors, compiled)
        if mod.COIL_STATUS is not None:
            _check_status(mod.COIL_INDEX_ERRORS, bufs[mod.COIL_STATUS])
        return [bufs[i] for i in mod.COIL_OUTPUTS]


class _Pointer:
    """What Triton's JIT specializes a pointer argument on, and nothing
    more: its dtype, and its address's alignment (a multiple of 16 or not)."""

    def __init__(self, dtype, aligned):
        self.dtype = dtype
        self.address = 0 if aligned else 8

    def data_ptr(self):
        return self.address


# Triton's compiles of the kernels of the graphs being compiled now, in
# threads (Triton releases the GIL while its compiler runs): a pool of
# config.compile_threads, made on first use (its size, the pool).
_ahead = contextvars.ContextVar("coil_compiling_ahead", default=None)
_ahead_pool = None
_ahead_pool_lock = threading.Lock()


@contextlib.contextmanager
def _compiling_ahead(example_inputs):
    """Within this block, _warm asks Triton to compile each CUDA module's
    kernels in parallel threads; leaving it waits for them all.  So a
    graph's kernels compile together before its first call rather than one
    after another during it (as Inductor's parallel compile does).  Nothing
    where no example input is a CUDA tensor, where this Triton has no
    asynchronous compile mode (before 3.4), where one is active already, or
    where config.compile_threads is 1."""
    threads = config.compile_threads
    if threads <= 1 or not any(isinstance(v, torch.Tensor) and v.device.type == "cuda" for v in example_inputs):
        yield
        return
    try:
        from triton.runtime._async_compile import AsyncCompileMode, active_mode
    except ImportError:
        yield
        return
    if active_mode.get() is not None or os.environ.get("TRITON_INTERPRET") == "1":
        yield
        return
    global _ahead_pool
    with _ahead_pool_lock:
        if _ahead_pool is None or _ahead_pool[0] != threads:
            import concurrent.futures
            _ahead_pool = (threads, concurrent.futures.ThreadPoolExecutor(max_workers=threads,
                                                                          thread_name_prefix="coil-triton"))
        pool = _ahead_pool[1]
    # A kernel that fails to compile here is compiled again, and fails with
    # its error, on the call that launches it.
    with AsyncCompileMode(pool, ignore_errors=True):
        token = _ahead.set(True)
        try:
            yield
        finally:
            _ahead.reset(token)


def _warm(module, args, device):
    """Ask Triton's JIT to compile each launch of a CUDA module for the
    specialization its first call will have (under _compiling_ahead: in
    parallel, without launching).  args are the group's example values:
    an input read in place keeps its alignment (its storage offset), and
    every buffer coil_alloc makes is aligned.  A call whose tensors turn
    out otherwise compiles its own specialization then."""
    if not _ahead.get():
        return
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    pointers = []
    for name, kind, dtype, shape, index in module.COIL_BUFFERS:
        aligned = True
        if kind == "input":
            t = tensors[index]
            in_place = all(n <= 1 or a == b for n, a, b in zip(t.shape, t.stride(), module.COIL_INPUT_STRIDES[index]))
            aligned = not in_place or t.storage_offset() * t.element_size() % 16 == 0
        pointers.append(_Pointer(getattr(torch, dtype), aligned))
    try:
        with torch.cuda.device(device):
            for launch in _warm_launches(module):
                kernel = getattr(module, launch["kernel"])
                stages = {"num_stages": launch["num_stages"]} if launch.get("num_stages") else {}
                kernel.warmup(*[pointers[v] if kind == "ptr" else v for _, kind, v in launch["args"]],
                              grid=tuple(launch["grid"]), num_warps=launch["num_warps"], **stages,
                              **module.COIL_LAUNCH_OPTIONS)
    except Exception as e:  # noqa: BLE001 - the first call compiles what was not asked for here
        log.debug("coil: compiling %s ahead failed (its first call compiles it): %s", module.COIL_FUNCTION, e)


def _warm_launches(module):
    """The launches whose compiles _warm asks for: the model's, and in a
    module that tunes (--autotune, COIL_AUTOTUNE not off) every candidate's,
    each distinct compile once.  The first call times the candidates one
    after another; compiled ahead, in parallel, they are then all in
    Triton's cache.  A choice already in coil's cache still asks for the
    others: on a machine where they were compiled before, Triton's own disk
    cache answers those at once."""
    launches = list(module.COIL_LAUNCHES)
    tune = getattr(module, "COIL_TUNE", None)
    if tune and module.coil_tune_mode() != "off":
        launches += [launch for entry in tune for cand in entry["candidates"] for launch in cand["launches"]]
    seen, unique = set(), []
    for launch in launches:
        key = (launch["kernel"], launch["num_warps"], launch.get("num_stages") or 0,
               tuple((name, v) for name, kind, v in launch["args"] if kind == "constexpr"))
        if key not in seen:
            seen.add(key)
            unique.append(launch)
    return unique


def _device_index(device):
    """A CUDA device's index (the current device's where it names none)."""
    return device.index if device.index is not None else torch.cuda.current_device()


def _cuda_plan(entry, bufs, tensors, compiled):
    """The Plan that launches a Triton module's compiled kernels on CUDA
    (the binding's Plan with launches), or None where the launches are not
    Triton's compiled kernels (the interpreter), an input was copied into
    another layout, or Triton's launch hooks are set (a profiler that
    wants each launch's metadata keeps the JIT's path)."""
    mod = entry.module
    hooks = _launch_hooks()
    if hooks is None or not all(hasattr(k, "run") and hasattr(k, "packed_metadata") for k in compiled):
        return None
    ni, no = len(tensors), len(mod.COIL_OUTPUTS)
    device_index = _device_index(entry.device)
    slot, scratch, check = {}, [], None
    for b, (_, kind, dtype, shape, index) in enumerate(mod.COIL_BUFFERS):
        if kind == "input":
            if bufs[b] is not tensors[index]:
                return None
            slot[b] = index
        elif kind == "output":
            slot[b] = ni + index
        else:
            slot[b] = ni + no + len(scratch)
            alloc = _empty_strided_cuda
            if kind == "zeroed":  # zero before the launches, which leave it zero
                alloc = _ZeroedBuffers(device_index).take
            if b == mod.COIL_STATUS:  # zero before the launches; read back after them
                status = _StatusBuffers(mod.COIL_INDEX_ERRORS)
                alloc = status.take
                check = (len(scratch), status.check)
            scratch.append((alloc, (tuple(shape), _contiguous(shape), getattr(torch, dtype))))
    launches = []
    # a module that tunes its kernels (--autotune) ran its chosen candidates' launches
    chosen = getattr(mod, "coil_chosen_launches", None)
    for launch, kernel in zip(chosen() if chosen else mod.COIL_LAUNCHES, compiled):
        grid = tuple(launch["grid"]) + (1,) * (3 - len(launch["grid"]))
        params = [a for a, taken in zip(launch["args"], _launcher_takes(kernel, launch["args"])) if taken]
        slots = tuple(slot[v] if kind == "ptr" else -1 for _, kind, v in params)
        consts = tuple(None if kind == "ptr" else v for _, kind, v in params)
        launches.append((kernel.run, grid, (kernel.function, kernel.packed_metadata, None) + hooks, slots, consts,
                         _native_launch(kernel, launch)))
    return _C.Plan(entry.program, entry.args, entry._allocators(_empty_strided_cuda), device=(2, device_index),
                   scratch=scratch, launches=launches,
                   stream=functools.partial(torch._C._cuda_getCurrentRawStream, device_index),
                   current_device=torch._C._cuda_getDevice, check=check)


def _native_launch(kernel, launch):
    """What the Plan needs to launch a compiled kernel through the CUDA
    driver itself (its handle, threads a block, dynamic shared memory), or
    None where a launch needs more than a plain cuLaunchKernel gives (the
    binding's "Native launches"): then Triton's launcher launches it.
    config.native_launch False: always Triton's launcher."""
    meta = getattr(kernel, "metadata", None)
    if not config.native_launch or meta is None:
        return None
    plain = (getattr(meta, "num_ctas", 1) == 1 and not getattr(meta, "launch_cooperative_grid", False)
             and not getattr(meta, "launch_pdl", False) and not getattr(meta, "global_scratch_size", 0)
             and not getattr(meta, "profile_scratch_size", 0) and not getattr(meta, "tensordesc_meta", None)
             and all(d == 1 for d in (getattr(meta, "cluster_dims", None) or (1,))))
    pointers_only = all(kind in ("ptr", "constexpr") for _, kind, _ in launch["args"])
    if not (plain and pointers_only and isinstance(kernel.function, int)):
        return None
    return (kernel.function, meta.num_warps * 32, meta.shared)


def _check_status(errors, status):
    """After the launches of a module that checks its indices: the error
    of the index check that failed, as coil_run raises it (reading the
    status back waits for the kernels)."""
    failed = int(status.item())
    if failed:
        raise _C.IndexOutOfRange(errors.get(failed, "index out of range"))


class _ZeroedBuffers:
    """A zeroed scratch buffer of a Plan (COIL_BUFFERS kind 'zeroed': the
    counters of split reductions that their last block combines), one per
    CUDA stream.  The launches leave it zero again, so the next call in the
    same stream's order can take it as it is, with no memset; a call on
    another stream, which may run at the same time, gets its own.  Under
    CUDA graph capture each call gets a new zeroed buffer (its zeroing is
    captured with the launches)."""

    def __init__(self, device_index, zeros=functools.partial(torch.zeros, device="cuda")):
        self.device_index = device_index
        self.zeros = zeros
        self.by_stream = {}  # dict reads and writes hold the GIL

    def take(self, shape, strides, dtype):
        if torch.cuda.is_current_stream_capturing():
            return self.zeros(shape, dtype=dtype)
        stream = torch._C._cuda_getCurrentRawStream(self.device_index)
        buf = self.by_stream.get(stream)
        if buf is None:
            buf = self.by_stream[stream] = self.zeros(shape, dtype=dtype)
        return buf


class _StatusBuffers:
    """The zeroed status buffers of a Plan that checks its indices.  A
    check that reads a buffer back as zero has waited for every kernel
    that could write it, and none did: the buffer is still zero, and the
    next call takes it again instead of allocating and zeroing another
    (a launch a call).  A buffer being read, or read back flagged, is not
    in the pool: calls from two threads each get their own."""

    def __init__(self, errors):
        self.errors = errors
        self.pool = []  # list.pop and list.append hold the GIL: no two calls take one buffer

    def take(self, shape, strides, dtype):
        try:
            return self.pool.pop()
        except IndexError:
            return torch.zeros(shape, dtype=dtype, device="cuda")

    def check(self, status):
        _check_status(self.errors, status)
        self.pool.append(status)


def _launcher_takes(kernel, params):
    """Which of a kernel's parameters its launcher takes: every one where
    the compiled signature lists them all (Triton 3.3 on: constexprs too,
    ignored), else those it lists (earlier: no constexprs)."""
    signature = getattr(getattr(kernel, "src", None), "signature", None)
    if not isinstance(signature, dict) or len(signature) == len(params):
        return [True] * len(params)
    return [name in signature or i in signature for i, (name, _, _) in enumerate(params)]


def _launch_hooks():
    """Triton's launch hooks as its JIT passes them to a launcher, or None
    where one is set."""
    import triton
    runtime = getattr(getattr(triton, "knobs", None), "runtime", None)
    hooks = (getattr(runtime, "launch_enter_hook", None), getattr(runtime, "launch_exit_hook", None))
    if any(h is not None and getattr(h, "calls", True) for h in hooks):  # Triton 3.9's chains: calls, empty when unset
        return None
    return hooks


def _empty_strided(shape, strides, dtype):
    return torch.empty_strided(shape, strides, dtype=dtype)


# A CPU tensor with given strides, as Inductor's generated code allocates
# one (a third of torch.empty_strided's cost); torch.empty_strided where
# PyTorch lacks it.
_guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
_empty_strided_cpu = getattr(_guards, "_empty_strided_cpu", None) or _empty_strided


def _empty_strided_cuda(shape, strides, dtype):
    """A CUDA tensor on the current device (a Plan runs only there)."""
    return torch.empty_strided(shape, strides, dtype=dtype, device="cuda")


# As the CPU's: Inductor's allocator, on the current device.
_empty_strided_cuda = getattr(_guards, "_empty_strided_cuda", None) or _empty_strided_cuda


class _Layout:
    """How a result reaches the strides the graph expects: inverse, the
    permutation that turns the program's (permuted) result back into a view
    with those strides; or copy, strides to copy into."""

    def __init__(self, inverse=None, copy=None):
        self.inverse, self.copy = inverse, copy

    def apply(self, out):
        if self.inverse is not None:
            return out.permute(self.inverse)
        return torch.empty_strided(out.shape, self.copy, dtype=out.dtype, device=out.device).copy_(out)


def _bindings(placeholders, args):
    """The symbols of a graph with symbolic sizes, bound to this call's
    numbers: each placeholder's that is a symbol (a size passed as an int,
    or a tensor's size or stride), to the argument's."""
    bound = {}
    for node, arg in zip(placeholders, args):
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and isinstance(arg, torch.Tensor):
            pairs = list(zip(val.shape, arg.shape)) + list(zip(val.stride(), arg.stride()))
        else:
            pairs = [(val, arg)]
        for sym, number in pairs:
            if isinstance(sym, torch.SymInt) and sym.node.expr.is_Symbol:
                bound[sym.node.expr] = int(number)
    return bound


def _concrete(value, bindings):
    """A traced int or SymInt as a number under bindings, or None where a
    symbol in it is not bound."""
    if not isinstance(value, torch.SymInt):
        return int(value)
    expr = value.node.expr
    if not isinstance(expr, int):
        expr = expr.xreplace(bindings)  # a bare symbol becomes its bound int itself
    return int(expr) if isinstance(expr, int) or expr.is_Integer else None


def _layout(node, bindings=None):
    """The layout a node's result must have (None: contiguous will do), and
    the permutation the program applies to it first (None: none).  Traced
    symbolic strides (dynamic shapes) are taken at this call's sizes
    (bindings, from _bindings): a layout such as a transpose's is the same
    whatever the sizes, and the graph's later views rely on it."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return None, None
    numbers = [_concrete(s, bindings or {}) for s in tuple(val.shape) + tuple(val.stride())]
    if None in numbers:
        return None, None
    shape, strides = tuple(numbers[:val.dim()]), tuple(numbers[val.dim():])
    if 0 in shape:
        return None, None
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], d))
    span, dense = 1, True
    for d in reversed(order):
        if shape[d] > 1:
            dense &= strides[d] == span
            span *= shape[d]
    contiguous = all(shape[d] <= 1 or order.index(d) == d for d in range(len(shape))) and dense
    if contiguous or (not dense and not _one_place_each(shape, strides)):
        return None, None  # contiguous already, or an expanded layout (contiguous serves every later view)
    if dense and order != sorted(order):
        return _Layout(inverse=[order.index(d) for d in range(len(shape))]), order
    return (_Layout(copy=strides), None) if not dense else (None, None)


class CoilGroup:
    """Runs one group of an ATen graph: the coil program specialized for the
    arguments' dtypes, shapes, strides and devices (cached), or the group's
    own ATen graph where coil cannot compile them.

    The graph's code calls runner, the binding's Runner: it runs the plan
    of the specialization last used where the arguments match it (every
    tensor checked as coil_run checks it, every int compared) and calls
    fallback otherwise, which finds or compiles the specialization by its
    key and makes its plan the runner's."""

    def __init__(self, graph_name, name, sub, target, reported_ahead, autotune=False):
        self.graph_name, self.name, self.sub = graph_name, name, sub
        self.target = target
        self.autotune = autotune  # CUDA's triton-gpu modules tune their tiles (config.autotune)
        self.reported_ahead = reported_ahead  # its first compile is in the report already
        self.cache = {}
        self.lock = threading.Lock()
        self.placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        self.nodes = [n for n in sub.graph.nodes if n.op == "call_function"]
        out = next(n for n in sub.graph.nodes if n.op == "output")
        self.outputs = list(out.args[0])
        self.runner = _C.Runner(self.fallback, to_dlpack, torch.get_num_threads)

    def __call__(self, *args):
        return self.runner(*args)

    def prepare(self):
        """Specialize for the graph's example values where their shapes are
        static, so the call finds the program compiled; its programs."""
        values = [_example(n) for n in self.placeholders]
        if any(v is None for v in values):
            return []
        key = self.key(values)
        entry = self.cache.get(key)
        if entry is None:
            entry = self._specialize(key, values)
        if entry and entry.plan is not None:
            self.runner.plan = entry.plan
        return [entry.program] if entry and entry.module is None else []

    @staticmethod
    def key(args):
        return tuple((a.dtype, tuple(a.shape), a.stride(), a.device) if isinstance(a, torch.Tensor) else int(a)
                     for a in args)

    def fallback(self, *args):
        """A call the runner's plan does not serve: the specialization of
        the arguments' key (compiled on its first call), made the runner's
        plan where it has one."""
        key = self.key(args)
        entry = self.cache.get(key)
        if entry is None:
            with self.lock:
                entry = self.cache.get(key)
                if entry is None:
                    entry = self._specialize(key, args)
        if entry is False:
            return self.sub(*args)
        try:
            return entry([a for a in args if isinstance(a, torch.Tensor)])
        finally:  # a CUDA entry has its plan after its first call, even one whose index check failed
            if entry.plan is not None:
                self.runner.plan = entry.plan

    def _specialize(self, key, args):
        report = _report()
        if self.cache:
            msg = f"{self.graph_name}/{self.name}: {_describe(args)}"
            log.info("coil: recompiling %s", msg)
            if report:
                report.recompiles.append(msg)
        device = _device(args)
        target = _target_for(self.target, device)
        entry = False
        try:
            bindings = _bindings(self.placeholders, args)
            layouts, perms = zip(*[_layout(n, bindings) for n in self.outputs]) if self.outputs else ((), ())
            b = _build(self.name, self.nodes, self.placeholders, args, self.outputs, perms)
            try:
                program = b.g.compile(target=target, autotune=self.autotune and device.type == "cuda")
                entry = _Entry(program, target, device, layouts, args)
                if report and (self.cache or not self.reported_ahead):
                    report.kernels.append(Kernel(self.graph_name, self.name, target, _ops(self.nodes),
                                                 program.num_kernels, program.compile_ms, program.code))
            except _C.ProgramError as e:
                node = b.culprit(e)
                _fallback(self.graph_name, self.name, _reason(e), origin(node) if node is not None else "", False)
        except _NodeError as e:
            _fallback(self.graph_name, spelling(e.node.target), e.reason, origin(e.node), False)
        except (_C.CoilError, ImportError) as e:  # the system compiler, or no Triton for a CUDA module
            _fallback(self.graph_name, self.name, str(e).splitlines()[0], "", False)
        self.cache[key] = entry
        return entry


def _reason(error):
    """The message of a ProgramError without its position."""
    return str(error).splitlines()[0].split("error: ", 1)[-1]


def _one_place_each(shape, strides):
    """Whether strides give every element its own place (no expanded
    dims): only such a layout can be written; an expanded result is
    returned contiguous, which every later view accepts."""
    span = 1
    for n, st in sorted(((n, st) for n, st in zip(shape, strides) if n > 1), key=lambda p: p[1]):
        if st < span:
            return False
        span = st * n
    return True


def _device(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device
    return torch.device("cpu")


def _describe(args):
    return ", ".join(f"{DTYPES.get(a.dtype, a.dtype)}{list(a.shape)}" if isinstance(a, torch.Tensor) else str(a)
                     for a in args)


def _fallback(graph_name, op, reason, where, by_design):
    report = _report()
    if report:
        report.fallbacks.append(Fallback(graph_name, op, reason, where, by_design))
    if by_design:
        log.debug("coil: %s: %s runs as ATen: %s", graph_name, op, reason)
        return
    log.info("coil: %s: %s runs as ATen: %s%s", graph_name, op, reason, f" ({where})" if where else "")
    if config.strict:
        raise NotSupported(f"{op} is not compiled by coil: {reason}" + (f"\n  at {where}" if where else "") +
                           "\n(coil.config.strict is set; unset it, or COIL_STRICT, to run such ops as ATen)")


# ------------------------------------------------------------ whole ATen graphs


_graph_count = 0
_graph_lock = threading.Lock()


def _example(node):
    """A node's example value for compiling ahead (a FakeTensor), or None
    where its shape is symbolic (compiled at call time instead)."""
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        if any(isinstance(s, torch.SymInt) for s in val.shape) or any(
                isinstance(s, torch.SymInt) for s in val.stride()):
            return None
        return val
    if isinstance(val, int):
        return val
    return None


class _InSet(OperatorSupport):
    """The support of a window's copy: its original was found supported."""

    def __init__(self, original, supported):
        super().__init__()
        self.original = original
        self.supported = supported

    def is_node_supported(self, submodules, node):
        return self.original.get(node) in self.supported


def _windows(nodes, supported, size):
    """The graph's nodes in runs of about `size` nodes, each cut before a
    node that runs as ATen (a matmul, say), where little fusion is lost, and
    never before a getitem, which must stay with the node it takes apart.
    A run with no such node is cut at twice the size."""
    run = []
    for n in nodes:
        barrier = n.op == "call_function" and n not in supported and n.target is not operator.getitem
        if len(run) >= size and (barrier or len(run) >= 2 * size) and n.target is not operator.getitem:
            yield run
            run = []
        run.append(n)
    if run:
        yield run


def _window_module(gm, run):
    """A GraphModule of copies of the run's nodes of gm: what they read from
    before the run becomes a placeholder.  Returns it and copy -> original."""
    graph = torch.fx.Graph()
    copies, original = {}, {}

    def arg(a):
        if a not in copies:
            copies[a] = graph.placeholder(a.name)
            copies[a].meta = dict(a.meta)
        return copies[a]

    for n in run:
        if n.op in ("call_function", "get_attr", "placeholder"):
            c = arg(n) if n.op == "placeholder" else graph.node_copy(n, arg)
            copies[n] = c
            original[c] = n
    graph.output(None)
    # the graph's module as the root: its get_attr nodes (constant tensors)
    # name the module's attributes
    return torch.fx.GraphModule(gm, graph), original


def _propose_partitions(gm, support, window):
    """torch.fx's CapabilityBasedPartitioner over the graph, in windows of
    `window` nodes where the graph is larger (0: never).

    The partitioner's horizontal fusion tries, at every node, to merge every
    pair of partitions, each try with a cycle check over the nodes
    downstream: its time grows with the square of the graph and more.  A
    16-layer Llama's backward (3034 nodes) took 11.6 s of a 33 s first
    call (docs/python.md).  A window is a run of consecutive nodes in the
    graph's (topological) order, so a path between two of its nodes never
    leaves it, and the partitioner's cycle checks inside the window are
    exact; what is lost is only a merge across a cut, and the cuts fall
    before ATen calls (matmuls, convolutions), which no group crosses
    anyway unless it runs beside them."""
    nodes = list(gm.graph.nodes)
    if not window or len(nodes) <= window:
        return CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True).propose_partitions()
    supported = {n for n in nodes if support.is_node_supported(None, n)}
    partitions = []
    for run in _windows(nodes, supported, window):
        sub, original = _window_module(gm, run)
        found = CapabilityBasedPartitioner(sub, _InSet(original, supported),
                                           allows_single_node_partition=True).propose_partitions()
        partitions += [Partition(id=len(partitions) + i, nodes=[original[n] for n in p.nodes])
                       for i, p in enumerate(found)]
    return partitions


def compile_graph(gm, example_inputs, kind, options):
    """Partition one ATen graph and put a CoilGroup where each group was."""
    global _graph_count
    with _graph_lock:
        _graph_count += 1
        graph_name = f"{kind}{_graph_count}"
    target = options.get("target", config.target)
    emit_target = options.get("emit_target")
    report = _report()
    if report:
        report.graphs += 1

    refused = {}
    for _ in range(64):
        ahead = set()  # groups compiled ahead (with static shapes)
        kernels = []   # and their programs, for the report
        support = _Support({"cpu", "cuda"}, refused)
        partitions = _propose_partitions(gm, support, config.partition_window)
        for p in partitions:
            nodes = [n for n in gm.graph.nodes if n in p.nodes]
            for n in _views_of_inputs(nodes) | _views_that_leave(nodes):
                p.remove_node(n)
        partitions = [p for p in partitions if any(
            n.target is not operator.getitem and n.target._opname not in _NO_COMPUTE for n in p.nodes)]
        retry = False
        for i, p in enumerate(partitions):
            nodes = [n for n in gm.graph.nodes if n in p.nodes]
            result = _compile_ahead(f"{graph_name}_{i}", nodes, target, emit_target, refused, kernels)
            if result is False:
                retry = True
                break
            if result == "compiled":
                ahead.add(i)
        if not retry:
            break

    if report:
        report.kernels += kernels
    for node, reason in refused.items():
        op = spelling(node.target) or str(node.target)
        if node.target is operator.getitem or not _tensors(node.meta.get("val")):
            continue
        _fallback(graph_name, op, reason, origin(node), bool(_BY_DESIGN.match(op or "")))

    if not partitions:
        return _flat_code(gm, {}, graph_name)
    # The programs compiled ahead proved each group; the groups compile
    # again when called, with the order of parameters the fused module has
    # (the C code is the same, so the system compiler's cache serves it).
    groups = [dict.fromkeys(n for n in gm.graph.nodes if n in p.nodes) for p in partitions]
    fused = fuse_by_partitions(gm, groups, prefix="coil_", always_return_tuple=True)
    programs, runners = [], {}
    with _compiling_ahead(example_inputs):
        for i in range(len(groups)):
            name = f"coil_{i}"
            group = CoilGroup(graph_name, name, getattr(fused, name), target, i in ahead,
                              autotune=bool(options.get("autotune", config.autotune)))
            runners[name] = group.runner
            programs += group.prepare()
    # Every group's C kernels in one run of the system compiler, now, rather
    # than one run each on the first call.
    try:
        _C.build(programs)
    except _C.CoilError as e:
        log.warning("coil: building %s's kernels ahead failed (they build when first called): %s", graph_name, e)
    return _flat_code(fused, runners, graph_name)


def _flat_code(gm, runners, graph_name):
    """The graph as one Python function of aot_autograd's boxed convention
    (a list of arguments, emptied so that each input can be freed when its
    last use is done): one line per node, calling each ATen op and each coil
    group's Runner directly, with no module call, no frame between the
    graph and the binding.  Every constant of the graph is bound by name,
    never written out as text; a value is dropped after its last use."""
    consts, names, lines = {}, {}, []

    def const(obj):
        name = f"_k{len(consts)}"
        consts[name] = obj
        return name

    def expr(a):
        if isinstance(a, torch.fx.Node):
            return names[a]
        if type(a) in (tuple, torch.fx.immutable_collections.immutable_list, list):
            items = [expr(x) for x in a]
            return f"({''.join(i + ', ' for i in items)})" if type(a) is tuple else f"[{', '.join(items)}]"
        if isinstance(a, dict) and all(type(k) is str for k in a):
            return "{" + ", ".join(f"{k!r}: {expr(v)}" for k, v in a.items()) + "}"
        if a is None or type(a) in (bool, int):
            return repr(a)
        return const(a)

    def call(fn, args, kwargs):
        parts = [expr(a) for a in args] + [f"{k}={expr(v)}" for k, v in kwargs.items()]
        return f"{fn}({', '.join(parts)})"

    nodes = list(gm.graph.nodes)
    views, folded = _view_chains(nodes)
    uses = {n: [views[n][0]] if n in views else n.all_input_nodes for n in nodes if n not in folded}
    last_use = {}
    for i, n in enumerate(nodes):
        for a in uses.get(n, ()):
            last_use[a] = i
    params = []
    for i, n in enumerate(nodes):
        name = names[n] = f"v{i}"
        if n in folded:  # a view only the next view of its chain takes: made by that one
            continue
        if n in views:
            root, view, ops = views[n]
            lines.append(f"{name} = {const(view)}({names[root]})  # {', '.join(spelling(op) for op, _, _ in ops)}")
        elif n.op == "placeholder":
            params.append(name)
            if not n.users:
                lines.append(f"{name} = None")
            continue
        elif n.op == "get_attr":
            value = gm
            for part in n.target.split("."):
                value = getattr(value, part)
            lines.append(f"{name} = {const(value)}")
        elif n.op == "call_function" and n.target is operator.getitem and type(n.args[1]) is int and not n.kwargs:
            lines.append(f"{name} = {expr(n.args[0])}[{n.args[1]}]")
        elif n.op == "call_function":
            lines.append(f"{name} = {call(const(n.target), n.args, n.kwargs)}  # {spelling(n.target) or n.target}")
        elif n.op == "call_module":
            target = runners.get(n.target) or gm.get_submodule(n.target)
            lines.append(f"{name} = {call(const(target), n.args, n.kwargs)}  # {n.target}")
        elif n.op == "call_method":
            lines.append(f"{name} = {call(f'{expr(n.args[0])}.{n.target}', n.args[1:], n.kwargs)}")
        elif n.op == "output":
            lines.append(f"return {expr(n.args[0])}")
            break
        else:
            raise RuntimeError(f"coil: {graph_name}: a node {n.op} the graph's code cannot take")
        dead = [names[a] for a in uses[n] if last_use[a] == i]
        if n.op != "output" and not n.users:
            dead.append(name)
        if dead:
            lines.append(" = ".join(dict.fromkeys(dead)) + " = None")
    head = [f"def {graph_name}(args):"]
    if params:
        head.append(f"    {', '.join(params)}, = args")
    head.append("    args.clear()")
    source = "\n".join(head + ["    " + line for line in lines]) + "\n"
    log.debug("coil: %s's code:\n%s", graph_name, source)
    scope = dict(consts)
    exec(compile(source, f"<coil {graph_name}>", "exec"), scope)
    fn = scope[graph_name]
    fn._boxed_call = True
    fn.source = source
    return fn


# ATen ops whose result is always a view of their input.
_VIEWS = {"view", "_unsafe_view", "permute", "expand", "alias", "unsqueeze", "squeeze", "slice", "select", "t",
          "transpose"}


# How the graph's code makes a view from the traced layout (_C.View): as
# Inductor's generated code does, torch.as_strided where PyTorch lacks it.
_reinterpret = getattr(getattr(getattr(torch._C, "_dynamo", None), "guards", None), "_reinterpret_tensor", None)
if _reinterpret is None:
    def _reinterpret(x, sizes, strides, offset):
        return x.as_strided(sizes, strides, x.storage_offset() + offset)


def _static_layout(node):
    """A node's traced (shape, strides, storage offset), or None where it is
    no dense tensor of a dtype coil knows with every number static."""
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    if not isinstance(val, torch.Tensor) or val.layout != torch.strided or val.dtype not in DTYPES:
        return None
    layout = (tuple(val.shape), tuple(val.stride()), val.storage_offset())
    if not all(type(x) is int for x in layout[0] + layout[1] + (layout[2],)):
        return None
    return layout


def _view_chains(nodes):
    """The graph's view ops (_VIEWS, less view's dtype overload) that the
    code makes as one _C.View each, where the layouts of the view and of the
    tensor it views were traced static: node -> (that tensor, the View, its
    ops).  A view whose only user is the next view of a chain is made by
    that one (folded): the backward's permute(permute(mm)) of a weight's
    gradient is one call."""
    chains, folded = {}, set()
    for n in nodes:
        if not (n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
                and n.target._opname in _VIEWS and n.target._overloadname != "dtype"
                and n.args and isinstance(n.args[0], torch.fx.Node) and n.all_input_nodes == [n.args[0]]):
            continue
        src = n.args[0]
        if (_static_layout(n) is None or _static_layout(src) is None
                or n.meta["val"].dtype != src.meta["val"].dtype):
            continue
        root, ops = src, []
        if src in chains and len(src.users) == 1:
            root, ops = chains[src][0], list(chains[src][1])
            folded.add(src)
        ops.append((n.target, tuple(n.args[1:]), dict(n.kwargs) or None))
        chains[n] = (root, ops)
    views = {}
    for n, (root, ops) in chains.items():
        if n in folded:
            continue
        shape, strides, offset = _static_layout(root)
        sizes, view_strides, view_offset = _static_layout(n)
        views[n] = (root, _C.View((torch.Tensor, torch.nn.Parameter), shape, strides, sizes, view_strides,
                                  view_offset - offset, _reinterpret, torch.is_grad_enabled, tuple(ops)), ops)
    return views, folded


def _views_of_inputs(nodes):
    """The nodes of a group that are views of the group's inputs (through
    other such views) and whose result leaves the group, with the views
    they are made of: left to ATen, where a view costs nothing, rather than
    written by coil as a new tensor (a weight's gradient that the backward
    returns as permute(permute(mm)) would be copied).  A view that only
    feeds the group's own nodes stays: coil reads it in place."""
    members, views = set(nodes), set()
    for n in nodes:  # in the graph's order
        if (n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
                and n.target._opname in _VIEWS and all(a not in members or a in views for a in n.all_input_nodes)):
            views.add(n)
    out = [n for n in views if any(u not in members for u in n.users)]
    found = set(out)
    while out:
        for a in out.pop().all_input_nodes:
            if a in views and a not in found:
                found.add(a)
                out.append(a)
    return found


def _views_that_leave(nodes):
    """The nodes of a group that are views of values the group computes
    (through other such views) and whose every user is outside the group:
    left to the graph's code, where a view is one _C.View call, rather than
    written by coil as one more result.  Llama's RMSNorm returned its
    result and three [128, 256] views of it (for q_proj, k_proj and
    v_proj), each a copy; now the result once.  A view that any of the
    group's own nodes reads stays, so no cycle between the group and its
    views arises.  A view of fewer than _VIEW_MIN_COPY elements stays too:
    copying it costs the kernel less than the call that would make it
    (BatchNorm's flattened [32] mean and variance)."""
    members, found = set(nodes), set()
    for n in reversed(nodes):
        val = n.meta.get("val")
        if (n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and n.target._opname in _VIEWS
                and isinstance(val, torch.Tensor) and type(val.numel()) is int and val.numel() >= _VIEW_MIN_COPY
                and all(u not in members or u in found for u in n.users)):
            found.add(n)
    return found


# Elements below which a view is copied by the group's kernel rather than
# made by a _C.View call (about 0.6 us, the time of a few KiB of copying).
_VIEW_MIN_COPY = 1024


def _compile_ahead(name, nodes, target, emit_target, refused, kernels):
    """Compile a group with the example shapes.  False (and the culprit in
    refused) when coil refuses a node; a refusal not tied to one node
    refuses the whole group.  "compiled", or "later" where shapes are
    symbolic.  The code is kept for explain() and emit()."""
    members = set(nodes)
    inputs, values = [], []
    for n in nodes:
        for a in n.all_input_nodes:
            if a not in members and a not in inputs:
                inputs.append(a)
                values.append(_example(a))
    outputs = [n for n in nodes if any(u not in members for u in n.users)]
    if any(v is None for v in values):
        return "later"  # symbolic shapes: compiled per concrete shape when called
    device = _device(values)
    try:
        b = _build(name, nodes, inputs, values, outputs)
        program = b.g.compile(target=_target_for(target, device))
    except _NodeError as e:
        refused[e.node] = e.reason
        return False
    except _C.ProgramError as e:
        node = b.culprit(e)
        for n in ([node] if node is not None else nodes):
            refused[n] = _reason(e)
        return False
    ops = _ops(nodes)
    code = program.code
    if emit_target and emit_target != target:
        code = b.g.compile(target=emit_target).code
    kernels.append(Kernel(name.rsplit("_", 1)[0], name, emit_target or target, ops, program.num_kernels,
                          program.compile_ms, code))
    return "compiled"


def _ops(nodes):
    return [spelling(n.target) for n in nodes if n.target is not operator.getitem]


def coil_backend(gm, example_inputs, options=None, **kwargs):
    """The torch.compile backend: torch.compile(model, backend="coil",
    options={"target": "c" | "triton-npu" | "triton-gpu", "autotune": bool})."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    from torch._inductor.decomposition import select_decomp_table

    options = dict(options or {})

    def forward(g, inputs):
        return compile_graph(g, inputs, "forward", options)

    def backward(g, inputs):
        return compile_graph(g, inputs, "backward", options)

    # Inductor's partitioner: on the RMSNorm weight's forward + backward the
    # default one saves x * rsqrt (a tensor of x's size, written and read
    # again: 1.5x the bytes); this one saves rsqrt and recomputes the product.
    return aot_autograd(fw_compiler=forward, bw_compiler=backward,
                        partition_fn=min_cut_rematerialization_partition,
                        decompositions=_decompositions(select_decomp_table()))(gm, example_inputs)


# Ops Inductor's table decomposes into indexed loads (aten.index,
# _unsafe_index) that coil compiles better whole: roll as a cat of two
# slices and the reflect and replicate pads as cats of slices, each one
# kernel of affine loads (and roll's backward is a roll).
_KEEP_WHOLE = ("roll", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
               "replication_pad1d", "replication_pad2d", "replication_pad3d")


# Ops whose decomposition in Inductor's table is made for Inductor's own
# lowerings: max pooling becomes Inductor's low-memory prims, and it reads
# torch._inductor.lowering, which only Inductor imports (a model with a
# MaxPool2d failed to compile in a process that had not run Inductor).  coil
# takes them whole: max_pool2d_with_indices and its backward are in its op
# table; the 3-D ones run as the ATen calls they are.
_INDUCTOR_ONLY = ("max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool3d")


def _decompositions(table):
    keep = {getattr(torch.ops.aten, name).default for name in _KEEP_WHOLE + _INDUCTOR_ONLY}
    return {op: fn for op, fn in table.items() if op not in keep}


# ------------------------------------------------------------ explain and emit


@contextlib.contextmanager
def recording():
    """with coil.recording() as report: ... -- what coil compiled, left to
    ATen and recompiled while the block ran (explain() records one call)."""
    report = Report()
    token = _REPORT.set(report)
    try:
        yield report
    finally:
        _REPORT.reset(token)


def explain(model, *args, backward=False, options=None, **kwargs):
    """Run model(*args, **kwargs) under torch.compile(backend="coil") and
    report what ran in coil programs, what ran as ATen and why, and the
    recompiles.  backward=True also runs the backward of the outputs' sum
    (it accumulates into .grad as any backward does)."""
    with recording() as report:
        torch._dynamo.reset()
        try:
            compiled = torch.compile(model, backend=coil_backend, options=dict(options or {}))
            out = compiled(*args, **kwargs)
            if backward:
                loss = sum(t.float().sum() for t in _tensors(out) if t.requires_grad)
                if isinstance(loss, torch.Tensor):
                    loss.backward()
        finally:
            torch._dynamo.reset()
    return report


def emit(model, *args, target="c", backward=False, **kwargs):
    """The source coil emits for target ("c", "triton-npu", "triton-gpu")
    for every coil program of model(*args, **kwargs), as
    TORCH_LOGS=output_code does for Inductor.  The model runs once, with
    coil's C kernels."""
    report = explain(model, *args, backward=backward, options={"emit_target": target}, **kwargs)
    parts = []
    for k in report.kernels:
        parts.append(f"# ===== coil program {k.name} ({k.graph} graph; target {k.target}): {', '.join(k.ops)}\n"
                     f"{k.code}")
    return "\n".join(parts)


def _register():
    """backend="coil" by name once coil.backend is imported, also where the
    package is used from a build tree without the entry point that
    `pip install` registers."""
    from torch._dynamo.backends import registry
    if "coil" not in registry.list_backends(exclude_tags=()):
        registry.register_backend(compiler_fn=coil_backend, name="coil")


_register()
