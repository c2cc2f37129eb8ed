#!/usr/bin/env python3
# Triton variants of the seed timed on a GPU (the lent H200): OUT=DIR python3 tools/device/gpu_seed_sweep.py MODULE.py...
"""Time Triton variants of the seed case (examples/rms_norm_weight_grad.py)
on one GPU, beside coil's emitted modules, torch.compile and torch.sum.

    build/coil emit --target triton-gpu --harness examples/rms_norm_weight_grad.py > /tmp/ptr.py
    build/coil emit --target triton-gpu --gpu-loads tma --harness examples/rms_norm_weight_grad.py > /tmp/tma.py
    OUT=results python3 tools/device/gpu_seed_sweep.py /tmp/ptr.py /tmp/tma.py
    TRITON_INTERPRET=1 python3 tools/device/gpu_seed_sweep.py --small [--dry-run] [MODULES at the small shape]
    python3 tools/device/gpu_seed_sweep.py --compile-only [MODULES]     # sm_90, no GPU needed

(the small modules: the same emits with --arg grad_out_base=f32[2,3,64,128]
--arg q=bf16[2,64,3,128] --arg 'q_square_sum=f32[2,64,3] uniform(1,2)').

The seed: out[d] = bf16(sum over b, s, h of
    grad_out_base[b, h, s, d] * float(q[b, s, h, d]) * rsqrt(q_square_sum[b, s, h] / D + 1e-6))
with grad_out_base f32[B, H, S, D], q bf16[B, S, H, D], q_square_sum f32[B, S, H],
(B, S, H, D) = (2, 4096, 64, 128): 405 MB read for 128 outputs.

Every variant is checked against eager PyTorch (bf16 tolerances, as coil's
harness) before it is timed; a variant that fails to compile or to match is
reported, not timed.  Times are triton.testing.do_bench medians (rep 200 ms)
of everything a variant launches (the partial kernel and the combine), in
the same process, against the read bandwidth of a torch.sum over 2 GiB (a
first bar for the GPU dialect was 90% of it) and over the seed's own 405 MB.

The variants (the flat reduction index r runs over (b, h, s), s innermost,
the row of grad_out_base viewed as [B*H*S, D]; a tile is RB rows by XB
columns):
  ptr    pointer loads, [RB, XB] tiles, a program per contiguous range of
         tiles (grid NPROG: 512 is what coil emits, 132/264 persistent)
  tma    tensor descriptors made in the kernel (tl.make_tensor_descriptor;
         needs triton.set_allocator): grad_out_base as [B*H*S, D], q as
         [B*S, H*D] (what coil emits with --gpu-loads tma); q_square_sum by
         pointer (its unit stride is h, one value per tile row)
  tmah   the same with descriptors made on the host (TensorDescriptor)
  read   a read-only sum of a flat 405 MB f32 buffer through 2-D TMA tiles:
         what TMA can stream at this size, whatever the seed does
and every loop is tl.range(0, tiles, num_stages=ST, loop_unroll_factor=UN
[, warp_specialize]).  Modules given on the command line (coil's
--harness scripts) are run through their own coil_alloc/coil_bind.

--small runs everything at (B, S, H, D) = (2, 64, 3, 128) (with
TRITON_INTERPRET=1 on the CPU: the check only; --dry-run adds the GPU run's
timing steps, with wall-clock times, to test this script); modules are run
only when their COIL_INPUTS have the shapes of the run.  A module with a
NUM_STAGES constexpr (software-pipelined loops) also runs at the other
depths of 2, 3 and 4.  --compile-only compiles every
kernel for sm_90 with the installed Triton, without a GPU, and prints ok or
FAIL per variant.  With OUT set, the table goes to $OUT/sweep.md, rewritten
after every row."""
import argparse
import importlib.util
import os
import sys
import time
import traceback

COMPILE_ONLY = "--compile-only" in sys.argv
if COMPILE_ONLY:  # the interpreter would replace the compiler
    os.environ.pop("TRITON_INTERPRET", None)
INTERP = os.environ.get("TRITON_INTERPRET") == "1"

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

try:
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # an older Triton: the tmah variants report the error
    TensorDescriptor = None

FULL = (2, 4096, 64, 128)
SMALL = (2, 64, 3, 128)


# ------------------------------------------------------------------ kernels

@triton.jit
def sweep_round_bf16(x):
    # f32 to the nearest bf16 (ties to even), as coil does: the interpreter
    # truncates in .to(tl.bfloat16), the GPU rounds; this agrees on both
    u = x.to(tl.uint32, bitcast=True)
    r = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    r = tl.where(x != x, u | 0x400000, r)
    return r.to(tl.float32, bitcast=True)


# Program pid takes NT // NPROG tiles in a loop of constant trip count, and
# the first NT % NPROG programs one more after it: contiguous ranges whose
# sizes differ by at most one.  (A loop over runtime bounds would do, but
# Triton 3.6's interpreter cannot take a tensor as a range bound with
# NumPy 2.)


@triton.jit
def seed_ptr_tile(acc, t, g_ptr, q_ptr, s_ptr, x, rb, S: tl.constexpr, H: tl.constexpr, D: tl.constexpr,
                  RB: tl.constexpr):
    r = t * RB + rb
    s = r % S
    h = (r // S) % H
    b = r // (S * H)
    g = tl.load(g_ptr + (r * D + x))
    q = tl.load(q_ptr + (b * (S * H * D) + s * (H * D) + h * D + x)).to(tl.float32)
    ss = tl.load(s_ptr + (b * (S * H) + s * H + h))
    return acc + g * q * tl.rsqrt(ss / D + 1e-6)


@triton.jit
def seed_ptr(g_ptr, q_ptr, s_ptr, ws_ptr, B: tl.constexpr, S: tl.constexpr, H: tl.constexpr, D: tl.constexpr,
             XB: tl.constexpr, RB: tl.constexpr, NPROG: tl.constexpr, ST: tl.constexpr, UN: tl.constexpr):
    NT: tl.constexpr = B * H * S // RB
    xoff = tl.program_id(0) * XB
    pid = tl.program_id(1)
    t0 = pid * (NT // NPROG) + tl.minimum(pid, NT % NPROG)
    x = xoff + tl.arange(0, XB)[None, :]
    rb = tl.arange(0, RB)[:, None]
    acc = tl.zeros([RB, XB], tl.float32)
    for i in tl.range(0, NT // NPROG, num_stages=ST, loop_unroll_factor=UN):
        acc = seed_ptr_tile(acc, t0 + i, g_ptr, q_ptr, s_ptr, x, rb, S, H, D, RB)
    if pid < NT % NPROG:
        acc = seed_ptr_tile(acc, t0 + NT // NPROG, g_ptr, q_ptr, s_ptr, x, rb, S, H, D, RB)
    tl.store(ws_ptr + pid * D + xoff + tl.arange(0, XB), tl.sum(acc, 0))


@triton.jit
def seed_tma_tile(acc, t, g_desc, q_desc, s_ptr, xoff, rb, S: tl.constexpr, H: tl.constexpr, D: tl.constexpr,
                  XB: tl.constexpr, RB: tl.constexpr):
    r0 = t * RB  # RB divides S: the tile is one (b, h) and RB values of s
    s0 = r0 % S
    h = (r0 // S) % H
    b = r0 // (S * H)
    g = g_desc.load([r0, xoff])
    q = q_desc.load([b * S + s0, h * D + xoff]).to(tl.float32)
    ss = tl.load(s_ptr + (b * (S * H) + (s0 + rb) * H + h))
    return acc + g * q * tl.rsqrt(ss / D + 1e-6)


@triton.jit
def seed_tma_body(g_desc, q_desc, s_ptr, ws_ptr, B: tl.constexpr, S: tl.constexpr, H: tl.constexpr,
                  D: tl.constexpr, XB: tl.constexpr, RB: tl.constexpr, NPROG: tl.constexpr, ST: tl.constexpr,
                  UN: tl.constexpr, WS: tl.constexpr):
    NT: tl.constexpr = B * H * S // RB
    xoff = tl.program_id(0) * XB
    pid = tl.program_id(1)
    t0 = pid * (NT // NPROG) + tl.minimum(pid, NT % NPROG)
    rb = tl.arange(0, RB)[:, None]
    acc = tl.zeros([RB, XB], tl.float32)
    for i in tl.range(0, NT // NPROG, num_stages=ST, loop_unroll_factor=UN, warp_specialize=WS):
        acc = seed_tma_tile(acc, t0 + i, g_desc, q_desc, s_ptr, xoff, rb, S, H, D, XB, RB)
    if pid < NT % NPROG:
        acc = seed_tma_tile(acc, t0 + NT // NPROG, g_desc, q_desc, s_ptr, xoff, rb, S, H, D, XB, RB)
    tl.store(ws_ptr + pid * D + xoff + tl.arange(0, XB), tl.sum(acc, 0))


@triton.jit
def seed_tma(g_ptr, q_ptr, s_ptr, ws_ptr, B: tl.constexpr, S: tl.constexpr, H: tl.constexpr, D: tl.constexpr,
             XB: tl.constexpr, RB: tl.constexpr, NPROG: tl.constexpr, ST: tl.constexpr, UN: tl.constexpr,
             WS: tl.constexpr):
    # grad_out_base as [B*H*S, D]; q as [B*S, H*D] (a tile: RB rows of s at one h)
    g_desc = tl.make_tensor_descriptor(g_ptr, shape=[B * H * S, D], strides=[D, 1], block_shape=[RB, XB])
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[B * S, H * D], strides=[H * D, 1], block_shape=[RB, XB])
    seed_tma_body(g_desc, q_desc, s_ptr, ws_ptr, B, S, H, D, XB, RB, NPROG, ST, UN, WS)


@triton.jit
def seed_tmah(g_desc, q_desc, s_ptr, ws_ptr, B: tl.constexpr, S: tl.constexpr, H: tl.constexpr, D: tl.constexpr,
              XB: tl.constexpr, RB: tl.constexpr, NPROG: tl.constexpr, ST: tl.constexpr, UN: tl.constexpr,
              WS: tl.constexpr):
    seed_tma_body(g_desc, q_desc, s_ptr, ws_ptr, B, S, H, D, XB, RB, NPROG, ST, UN, WS)


@triton.jit
def seed_combine(ws_ptr, out_ptr, D: tl.constexpr, NPROG: tl.constexpr, PB: tl.constexpr, XB: tl.constexpr):
    # the NPROG partial rows in order, then bf16
    x = tl.program_id(0) * XB + tl.arange(0, XB)[None, :]
    p = tl.arange(0, PB)[:, None]
    acc = tl.zeros([PB, XB], tl.float32)
    for p0 in range(0, NPROG, PB):
        acc += tl.load(ws_ptr + ((p0 + p) * D + x), (p0 + p) < NPROG, other=0.0)
    tot = tl.sum(acc, 0)
    xs = tl.program_id(0) * XB + tl.arange(0, XB)
    tl.store(out_ptr + xs, sweep_round_bf16(tot).to(tl.bfloat16))


@triton.jit
def read_tma(a_ptr, ws_ptr, M: tl.constexpr, N: tl.constexpr, RB: tl.constexpr, NPROG: tl.constexpr,
             ST: tl.constexpr):
    # a read-only sum of M rows of N f32 (M a multiple of RB)
    NT: tl.constexpr = M // RB
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[RB, N])
    pid = tl.program_id(0)
    t0 = pid * (NT // NPROG) + tl.minimum(pid, NT % NPROG)
    acc = tl.zeros([RB, N], tl.float32)
    for i in tl.range(0, NT // NPROG, num_stages=ST):
        acc += desc.load([(t0 + i) * RB, 0])
    if pid < NT % NPROG:
        acc += desc.load([(t0 + NT // NPROG) * RB, 0])
    tl.store(ws_ptr + pid * N + tl.arange(0, N), tl.sum(acc, 0))


# ----------------------------------------------------------------- variants

class Variant:
    def __init__(self, kind, rb=64, xb=128, nprog=512, st=3, un=1, nw=4, ws=False, note=""):
        self.kind, self.rb, self.xb, self.nprog, self.st, self.un, self.nw, self.ws = kind, rb, xb, nprog, st, un, nw, ws
        self.note = note

    def fit(self, shape):
        """The variant at a shape: tiles no larger than the axes they span."""
        B, S, H, D = shape
        v = Variant(self.kind, min(self.rb, S), min(self.xb, D), self.nprog, self.st, self.un, self.nw, self.ws, self.note)
        nt = B * H * S // v.rb
        if v.nprog > nt:
            # a small shape: the split (512) becomes a program per tile, the
            # persistent grids 3 and 5 programs, which split the tiles unevenly
            v.nprog = nt if v.nprog >= 512 else min(nt, 3 if v.nprog < 200 else 5)
        return v

    @property
    def name(self):
        s = f"{self.kind} RB{self.rb} XB{self.xb} P{self.nprog} st{self.st}"
        if self.un > 1:
            s += f" un{self.un}"
        if self.nw != 4:
            s += f" w{self.nw}"
        if self.ws:
            s += " ws"
        return s


# At most ~25: each costs a compile (1-3 s) and a do_bench (~0.3 s).
VARIANTS = [
    Variant("ptr", nprog=512, note="coil's tile, own harness"),
    Variant("ptr", nprog=132, note="persistent"),
    Variant("ptr", nprog=264, note="persistent, 2 per SM"),
    Variant("ptr", nprog=132, un=2, note="persistent, unrolled"),
    Variant("tma", nprog=512, st=2),
    Variant("tma", nprog=512, st=3),
    Variant("tma", nprog=512, st=4),
    Variant("tma", rb=32, nprog=512, st=4),
    Variant("tma", rb=128, nprog=512, st=2, nw=8),
    Variant("tma", nprog=132, st=3, note="persistent"),
    Variant("tma", nprog=132, st=4, note="persistent"),
    Variant("tma", rb=32, nprog=132, st=6, note="persistent"),
    Variant("tma", rb=128, nprog=132, st=3, nw=8, note="persistent"),
    Variant("tma", nprog=264, st=3, note="persistent, 2 per SM"),
    Variant("tma", rb=32, nprog=264, st=4, note="persistent, 2 per SM"),
    Variant("tma", nprog=512, st=2, nw=8),
    Variant("tma", nprog=132, st=3, un=2, note="persistent, unrolled"),
    Variant("tma", nprog=132, st=3, ws=True, note="warp-specialized"),
    Variant("tma", xb=64, nprog=256, st=4, note="two x blocks"),
    Variant("tmah", nprog=512, st=3, note="host descriptors"),
    Variant("tmah", nprog=132, st=4, note="host descriptors, persistent"),
]
READ_VARIANTS = [(64, 132, 4), (128, 264, 3)]  # (RB, NPROG, ST) of the read-only TMA sum


def seed_bytes(shape):
    B, S, H, D = shape
    return B * H * S * D * 4 + B * S * H * D * 2 + B * S * H * 4 + D * 2


def make_inputs(shape, device, seed=0):
    B, S, H, D = shape
    g = torch.Generator(device=device).manual_seed(seed)
    grad = torch.randn((B, H, S, D), generator=g, device=device, dtype=torch.float32)
    q = torch.randn((B, S, H, D), generator=g, device=device, dtype=torch.float32).to(torch.bfloat16)
    qss = torch.rand((B, S, H), generator=g, device=device, dtype=torch.float32) + 1.0
    return [grad, q, qss]


def seed_fn(grad_out_base, q, q_square_sum):
    # examples/rms_norm_weight_grad.py
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def reference(inputs):
    """eager's bf16 output and an f64 sum (for the error column)"""
    grad, q, qss = inputs
    want = seed_fn(grad, q, qss)
    B, S, H, D = q.shape
    exact = torch.zeros(D, dtype=torch.float64, device=q.device)
    for b in range(B):  # per batch: the f64 copy of grad_out_base stays small
        inv = torch.rsqrt(qss[b].double().unsqueeze(-1) / D + 1e-6)
        exact += (grad[b].double().permute(1, 0, 2) * q[b].double() * inv).sum(dim=(0, 1))
    return want, exact


def launches(v, inputs, shape):
    """[(kernel, grid, kwargs, num_warps)] and the output tensor."""
    B, S, H, D = shape
    grad, q, qss = inputs
    dev = grad.device
    ws = torch.empty((v.nprog, D), dtype=torch.float32, device=dev)
    out = torch.empty(D, dtype=torch.bfloat16, device=dev)
    common = dict(B=B, S=S, H=H, D=D, XB=v.xb, RB=v.rb, NPROG=v.nprog, ST=v.st, UN=v.un)
    grid = (D // v.xb, v.nprog, 1)
    if v.kind == "ptr":
        first = (seed_ptr, grid, dict(g_ptr=grad, q_ptr=q, s_ptr=qss, ws_ptr=ws, **common), v.nw)
    elif v.kind == "tma":
        first = (seed_tma, grid, dict(g_ptr=grad, q_ptr=q, s_ptr=qss, ws_ptr=ws, WS=v.ws, **common), v.nw)
    elif v.kind == "tmah":
        if TensorDescriptor is None:
            raise RuntimeError("this Triton has no triton.tools.tensor_descriptor")
        gd = TensorDescriptor(grad, [B * H * S, D], [D, 1], [v.rb, v.xb])
        qd = TensorDescriptor(q, [B * S, H * D], [H * D, 1], [v.rb, v.xb])
        first = (seed_tmah, grid, dict(g_desc=gd, q_desc=qd, s_ptr=qss, ws_ptr=ws, WS=v.ws, **common), v.nw)
    else:
        raise ValueError(v.kind)
    pb = min(triton.next_power_of_2(v.nprog), 512)
    comb = (seed_combine, (D // 8, 1, 1), dict(ws_ptr=ws, out_ptr=out, D=D, NPROG=v.nprog, PB=pb, XB=8), 4)
    return [first, comb], out


def run_launches(ls):
    for fn, grid, kw, nw in ls:
        fn[grid](**kw, num_warps=nw)


def read_launches(a, rb, nprog, st):
    """a read-only sum of the first rows of `a` seen as [M, 128] f32 (M a
    multiple of RB): launches, the output (every column sums to M) and M"""
    n = 128
    m = a.numel() // n // rb * rb
    nprog = min(nprog, m // rb)
    ws = torch.empty((nprog, n), dtype=torch.float32, device=a.device)
    out = torch.empty(n, dtype=torch.bfloat16, device=a.device)
    pb = min(triton.next_power_of_2(nprog), 512)
    return [(read_tma, (nprog, 1, 1), dict(a_ptr=a, ws_ptr=ws, M=m, N=n, RB=rb, NPROG=nprog, ST=st), 4),
            (seed_combine, (n // 8, 1, 1), dict(ws_ptr=ws, out_ptr=out, D=n, NPROG=nprog, PB=pb, XB=8), 4)], out, m


# ----------------------------------------------------------- compile only

PTR = {torch.float32: "*fp32", torch.bfloat16: "*bf16", torch.float16: "*fp16", torch.float64: "*fp64",
       torch.int32: "*i32", torch.int64: "*i64", torch.bool: "*i1"}
DESC = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


def compile_launches(ls, arch=90):
    """Compile each launch's kernel for sm_<arch> with its constexprs."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    target = GPUTarget("cuda", arch, 32)
    for fn, _grid, kw, nw in ls:
        sig, consts = {}, {}
        for name, val in kw.items():
            if isinstance(val, torch.Tensor):
                sig[name] = PTR[val.dtype]
            elif TensorDescriptor is not None and isinstance(val, TensorDescriptor):
                sig[name] = f"tensordesc<{DESC[val.base.dtype]}[{','.join(str(b) for b in val.block_shape)}]>"
            else:
                sig[name] = "constexpr"
                consts[name] = val
        triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target, options={"num_warps": nw})


def load_module(path, n):
    spec = importlib.util.spec_from_file_location(f"sweep_module_{n}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def module_launches(mod, inputs, override=None):
    """the module's launches on its own buffers; override: constexprs to replace"""
    bufs = mod.coil_alloc(inputs)
    ls = []
    for launch in mod.COIL_LAUNCHES:
        kw = {name: (bufs[v] if kind == "ptr" else (override or {}).get(name, v)) for name, kind, v in launch["args"]}
        ls.append((getattr(mod, launch["kernel"]), launch["grid"], kw, launch["num_warps"]))
    return ls, bufs[mod.COIL_OUTPUTS[0]]


def module_label(mod, path):
    tma = "tl.make_tensor_descriptor" in open(path).read()
    return f"coil {mod.COIL_TARGET} ({'tma' if tma else 'pointer'} loads): {os.path.basename(path)}"


# ------------------------------------------------------------------ report

class Report:
    def __init__(self, args, shape, device):
        self.rows, self.head, self.args = [], [], args
        self.shape, self.device = shape, device
        self.nbytes = seed_bytes(shape)
        self.bw = None  # bytes/s of the 2 GiB torch.sum
        self.t405 = None  # ms of the torch.sum over the seed's bytes
        self.path = os.path.join(os.environ["OUT"], "sweep.md") if os.environ.get("OUT") else None
        if self.path:
            os.makedirs(os.environ["OUT"], exist_ok=True)

    def add(self, name, note, ms=None, err=None, status="ok", nbytes=None):
        """a row; nbytes: what it reads, when not the seed's bytes"""
        nbytes = nbytes or self.nbytes
        self.rows.append((name, note, ms, err, status, nbytes))
        if ms is not None:
            line = f"{name:<42} {ms * 1e3:9.1f} us"
            if self.bw:
                line += f" {nbytes / (ms * 1e-3) / self.bw * 100:6.1f}%"
        else:
            line = f"{name:<42} {'':>12}"
        if err is not None:
            line += f"  err {err:.3g} ulp"
        print(f"{line}  {status} {note}".rstrip(), flush=True)
        self.write()

    def table(self):
        out = list(self.head)
        out.append("")
        out.append("(of 2 GiB sum bw: the row's bytes per second over the 2 GiB torch.sum's; vs 405 MB sum: "
                   "the torch.sum of the seed's bytes' time over the row's)")
        out.append("")
        out.append("| variant | note | time us | of 2 GiB sum bw | vs 405 MB sum | max err (bf16 ulp) | check |")
        out.append("|---|---|---:|---:|---:|---:|---|")
        for name, note, ms, err, status, nbytes in self.rows:
            t = f"{ms * 1e3:.1f}" if ms is not None else ""
            pct = f"{nbytes / (ms * 1e-3) / self.bw * 100:.1f}%" if ms is not None and self.bw else ""
            rel = f"{self.t405 / ms * 100:.1f}%" if ms is not None and self.t405 and nbytes == self.nbytes else ""
            e = f"{err:.3g}" if err is not None else ""
            out.append(f"| {name} | {note} | {t} | {pct} | {rel} | {e} | {status} |")
        timed = [(ms, name) for name, note, ms, err, status, nbytes in self.rows
                 if ms is not None and status == "ok" and nbytes == self.nbytes
                 and not name.startswith("torch") and not name.startswith("read")]
        if timed and self.bw:
            ms, name = min(timed)
            pct = self.nbytes / (ms * 1e-3) / self.bw * 100
            out.append("")
            out.append(f"best seed implementation: {name}, {ms * 1e3:.1f} us, {pct:.1f}% of the 2 GiB read bandwidth "
                       f"({'meets' if pct >= 90 else 'misses'} the 90% bar, {self.nbytes / (0.9 * self.bw) * 1e6:.1f} us)")
        return "\n".join(out) + "\n"

    def write(self):
        if self.path:
            with open(self.path, "w") as f:
                f.write(self.table())


def check(out, want, exact):
    """allclose to eager's bf16 output (coil's harness tolerances), and the
    largest error against the f64 sum in bf16 units in the last place: 0.5
    is the rounding alone, more is accumulation error (or a wrong sum)"""
    got = out.float().cpu()
    ok = torch.allclose(got, want.float().cpu(), rtol=1.6e-2, atol=1e-2, equal_nan=True)
    ex = exact.cpu()
    ulp = torch.exp2(torch.floor(torch.log2(ex.abs().clamp_min(1e-30))) - 7)
    return ok, float(((got.double() - ex).abs() / ulp).max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="coil --harness scripts of the seed to time beside the variants")
    ap.add_argument("--small", action="store_true", help=f"run at (B, S, H, D) = {SMALL}")
    ap.add_argument("--compile-only", action="store_true", help="compile every kernel for sm_90, no GPU")
    ap.add_argument("--rep", type=int, default=200, help="do_bench rep in ms (default %(default)s)")
    ap.add_argument("--no-compile", action="store_true", help="do not time torch.compile")
    ap.add_argument("--only", default="", help="run only the variants whose name contains this")
    ap.add_argument("--dry-run", action="store_true",
                    help="with TRITON_INTERPRET=1: the GPU run's steps on the CPU, wall-clock times, a 64 MiB "
                         "bandwidth reference, no torch.compile (tests this script, measures nothing)")
    args = ap.parse_args()
    shape = SMALL if args.small else FULL
    B, S, H, D = shape
    if args.compile_only:
        return compile_only(args, shape)
    device = "cpu" if INTERP else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        print("no GPU: run with TRITON_INTERPRET=1 (and --small), or --compile-only", file=sys.stderr)
        return 2
    if device == "cuda":
        # device-side tensor descriptors live in global scratch that the launch allocates
        triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    rep = Report(args, shape, device)
    gpu = torch.cuda.get_device_name() if device == "cuda" else \
        "CPU, TRITON_INTERPRET=1 (" + ("a dry run: the times measure the interpreter" if args.dry_run else "check only") + ")"
    rep.head = [f"# gpu_seed_sweep: the seed (B, S, H, D) = {shape}, {rep.nbytes / 1e6:.1f} MB read and written",
                "",
                f"{gpu}; torch {torch.__version__}, Triton {triton.__version__}; "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')}; do_bench median, rep {args.rep} ms"]
    if INTERP:
        rep.head.append("Descriptor loads run through the interpreter's emulation of tensor descriptors.")
    inputs = make_inputs(shape, device)
    want, exact = reference(inputs)
    from triton.testing import do_bench
    dry = args.dry_run and INTERP
    timed = device == "cuda" or dry

    def bench(fn):
        if dry:
            t = time.perf_counter()
            fn()
            return (time.perf_counter() - t) * 1e3
        return do_bench(fn, rep=args.rep, return_mode="median")

    ones = torch.ones(rep.nbytes // 4, dtype=torch.float32, device=device)  # the seed's bytes
    if timed:
        big = torch.ones(1 << (24 if dry else 29), dtype=torch.float32, device=device)
        t = bench(lambda: big.sum())
        rep.bw = big.numel() * 4 / (t * 1e-3)
        big_bytes = big.numel() * 4
        del big
        rep.head.append(f"read bandwidth {rep.bw / 1e9:.0f} GB/s (torch.sum over 2 GiB); floor for the seed "
                        f"{rep.nbytes / rep.bw * 1e6:.1f} us; 90% bar {rep.nbytes / (0.9 * rep.bw) * 1e6:.1f} us")
        rep.add(f"torch.sum {big_bytes / 2**30:g} GiB", "the bandwidth reference", t, nbytes=big_bytes)
        rep.t405 = bench(lambda: ones.sum())
        rep.add("torch.sum 405 MB", "the seed's bytes in one f32 tensor", rep.t405, nbytes=ones.numel() * 4)
    for rb, nprog, st in READ_VARIANTS:
        name = f"read tma RB{rb} P{nprog} st{st}"
        if args.only and args.only not in name:
            continue
        try:
            ls, out, m = read_launches(ones, rb, nprog, st)
            run_launches(ls)
            ok = bool((out.float().cpu() - m).abs().max() <= m * 1e-2)
            ms = bench(lambda: run_launches(ls)) if ok and timed else None
            rep.add(name, "read-only: the seed's bytes of ones through TMA tiles", ms, None, "ok" if ok else "WRONG SUM",
                    nbytes=m * 128 * 4)
        except Exception as e:
            rep.add(name, "read-only", status=f"ERROR {type(e).__name__}: {' '.join(str(e).split())[:200]}")
    del ones

    for n, path in enumerate(args.modules):
        try:
            mod = load_module(path, n)
            label = module_label(mod, path)
            shapes = [tuple(s) for _, _, s, _ in mod.COIL_INPUTS]
            if shapes != [tuple(t.shape) for t in inputs]:
                rep.add(label, f"skipped: its inputs are {shapes}, this run's {[tuple(t.shape) for t in inputs]}",
                        status="skipped")
                continue
            # a module with software-pipelined loops also runs at the other depths
            own = [v for L in mod.COIL_LAUNCHES for name, kind, v in L["args"] if name == "NUM_STAGES"]
            runs = [(label, "emitted module", None)]
            runs += [(f"{label} NUM_STAGES={st}", "emitted module, other depth", {"NUM_STAGES": st})
                     for st in (2, 3, 4) if own and st != own[0]]
            for name, note, override in runs:
                try:
                    ls, out = module_launches(mod, inputs, override)
                    run_launches(ls)
                    ok, err = check(out, want, exact)
                    ms = bench(lambda: run_launches(ls)) if ok and timed else None
                    rep.add(name, note, ms, err, "ok" if ok else "MISMATCH")
                except Exception as e:
                    rep.add(name, note, status=f"ERROR {type(e).__name__}: {' '.join(str(e).split())[:300]}")
        except Exception as e:
            rep.add(f"module {path}", "", status=f"ERROR {type(e).__name__}: {' '.join(str(e).split())[:300]}")

    for v0 in VARIANTS:
        v = v0.fit(shape)
        if args.only and args.only not in v.name:
            continue
        try:
            ls, out = launches(v, inputs, shape)
            run_launches(ls)
            ok, err = check(out, want, exact)
            ms = bench(lambda: run_launches(ls)) if ok and timed else None
            rep.add(v.name, v.note, ms, err, "ok" if ok else "MISMATCH")
        except Exception as e:
            msg = " ".join(str(e).split())[:300]
            rep.add(v.name, v.note, status=f"ERROR {type(e).__name__}: {msg}")
            if os.environ.get("SWEEP_TRACE"):
                traceback.print_exc()

    if timed:
        with torch.no_grad():
            rep.add("torch eager", "", bench(lambda: seed_fn(*inputs)), check(seed_fn(*inputs), want, exact)[1])
            if not args.no_compile and not dry:
                try:
                    c = torch.compile(seed_fn)
                    ok, err = check(c(*inputs), want, exact)
                    rep.add("torch.compile", "", bench(lambda: c(*inputs)) if ok else None, err, "ok" if ok else "MISMATCH")
                except Exception as e:
                    rep.add("torch.compile", "", status=f"ERROR {type(e).__name__}: {' '.join(str(e).split())[:200]}")
    print()
    print(rep.table())
    bad = [r for r in rep.rows if r[4] not in ("ok", "skipped")]
    return 1 if bad else 0


def compile_only(args, shape):
    """Every variant and module compiled for sm_90: what the GPU run compiles."""
    fails = 0
    B, S, H, D = shape
    # empty CPU tensors of the run's shapes: only their dtypes and addresses are read
    inputs = [torch.empty((B, H, S, D), dtype=torch.float32), torch.empty((B, S, H, D), dtype=torch.bfloat16),
              torch.empty((B, S, H), dtype=torch.float32)]
    work = []
    for v0 in VARIANTS:
        v = v0.fit(shape)
        if not args.only or args.only in v.name:
            work.append((v.name, lambda v=v: launches(v, inputs, shape)[0]))
    for rb, nprog, st in READ_VARIANTS:
        a = torch.empty(seed_bytes(shape) // 4 // 128 * 128, dtype=torch.float32)
        work.append((f"read tma RB{rb} P{nprog} st{st}", lambda a=a, rb=rb, nprog=nprog, st=st: read_launches(a, rb, nprog, st)[0]))
    for n, path in enumerate(args.modules):
        def mod_ls(path=path, n=n):
            mod = load_module(path, n)
            bufs = [torch.empty(s, dtype=getattr(torch, dt)) for _, _, dt, s, _ in mod.COIL_BUFFERS]
            return [(getattr(mod, L["kernel"]), L["grid"], {nm: (bufs[v] if k == "ptr" else v) for nm, k, v in L["args"]},
                     L["num_warps"]) for L in mod.COIL_LAUNCHES]
        work.append((f"module {path}", mod_ls))
    for name, make in work:
        t = time.time()
        try:
            compile_launches(make())
            print(f"ok {name} ({time.time() - t:.1f} s)", flush=True)
        except Exception as e:
            fails += 1
            print(f"FAIL {name}: {type(e).__name__}: {' '.join(str(e).split())[:400]}", flush=True)
            if os.environ.get("SWEEP_TRACE"):
                traceback.print_exc()
    print(f"compile-only, Triton {triton.__version__}, sm_90: {len(work) - fails} ok, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
