#!/usr/bin/env python3
"""Agreement of coil's Triton executor with Triton itself.

Runs each kernel twice, under Triton's interpreter (TRITON_INTERPRET=1,
torch CPU tensors) and under the executor (the command given as this
script's arguments, e.g. `build/coil triton-run`, with --save), and
compares the outputs; the seed's kernels are also checked against a
float64 reference.  The interpreter cannot run a loop whose trip count is
a runtime scalar (range(loops) with loops from a numel argument), so the
seed's kernels run here as variants with tl.constexpr numels and the
strides of small shapes.  Prints "ok NAME" / "FAIL NAME: why".

    python3 tests/triton/compare_triton.py build/coil triton-run
"""
import os
import re
import subprocess
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))


def ok(name, note=""):
    print(f"ok {name}{' (' + note + ')' if note else ''}", flush=True)


def fail(name, why):
    print(f"FAIL {name}: {why}", flush=True)


try:
    import importlib.util

    import numpy as np
    import torch
    import triton  # noqa: F401
    import triton.language as tl  # noqa: F401
except Exception as e:  # CI installs them; without them this test fails
    fail("triton_available", f"cannot import numpy, torch and triton: {e!r}")
    sys.exit(1)

TX = sys.argv[1:]
if not TX:
    fail("usage", "give the executor's command, e.g. build/coil triton-run")
    sys.exit(2)

TMP = tempfile.mkdtemp(prefix="tx-compare-")
failures = 0


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TORCH_DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
            "i32": torch.int32, "i64": torch.int64}


class Ptr:
    """A pointer argument: the array (values representable in dtype)."""

    def __init__(self, array, dtype, out=False):
        self.array, self.dtype, self.out = array, dtype, out


def run_both(name, file, kernel, grid, args, tol=(1e-5, 1e-6)):
    """Run `kernel` of `file` under both; compare every output pointer.
    Returns the executor's outputs (dict) or None after a failure."""
    global failures
    # The interpreter.
    mod = load_module(file, f"m_{name}")
    tensors, kwargs = {}, {}
    for k, v in args.items():
        if isinstance(v, Ptr):
            t = torch.from_numpy(np.ascontiguousarray(v.array)).to(TORCH_DT[v.dtype])
            tensors[k] = t
            kwargs[k] = t
        else:
            kwargs[k] = v
    try:
        getattr(mod, kernel)[grid](**kwargs)
    except Exception as e:
        failures += 1
        fail(name, f"Triton's interpreter failed: {e!r}")
        return None
    # The executor.
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    cmd = TX + [file, "--kernel", kernel, "--grid", ",".join(map(str, grid)), "--save",
                os.path.join(d, "out")]
    for k, v in args.items():
        if isinstance(v, Ptr):
            p = os.path.join(d, f"{k}.in.npy")
            a = v.array.astype(np.float32) if v.dtype in ("bf16", "f16") else v.array
            np.save(p, a)
            cmd.append(f"{k}=@{p}:{v.dtype}")
        else:
            cmd.append(f"{k}={v}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        failures += 1
        fail(name, f"executor failed ({r.returncode}): {r.stderr.strip()}")
        return None
    outs, worst = {}, 0.0
    for k, v in args.items():
        if not isinstance(v, Ptr) or not v.out:
            continue
        got = np.load(os.path.join(d, "out", f"{k}.npy")).astype(np.float64)
        want = tensors[k].to(torch.float64).numpy()
        outs[k] = got
        rtol, atol = tol
        if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol,
                                                      equal_nan=True):
            failures += 1
            diff = np.nanmax(np.abs(got - want)) if got.shape == want.shape else "shape"
            fail(name, f"{k} differs from Triton's interpreter (max |diff| {diff})")
            return None
        if got.size:
            worst = max(worst, float(np.nanmax(np.abs(got - want))))
    ok(name, f"max |executor - triton| {worst:.3g}")
    return outs


rng = np.random.default_rng(1234)


def bf16_values(shape, scale=1.0):
    x = torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))
    return x.to(torch.bfloat16).to(torch.float32).numpy()


def f16_values(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float16).astype(np.float32)


# ---------------------------------------------------------- small kernels

AGREE = os.path.join(HERE, "agree_kernels.py")
M, N = 10, 37
run_both("agree_row_stats", AGREE, "row_stats", (3,),
         {"x_ptr": Ptr(bf16_values((M, N)), "bf16"),
          "mean_ptr": Ptr(np.zeros(M, np.float32), "f32", True),
          "max_ptr": Ptr(np.zeros(M, np.float32), "f32", True),
          "M": M, "N": N, "XBLOCK": 4, "RBLOCK": 64})
run_both("agree_softmax", AGREE, "softmax", (5,),
         {"x_ptr": Ptr(rng.standard_normal((5, 100)).astype(np.float32) * 3, "f32"),
          "y_ptr": Ptr(np.zeros((5, 100), np.float32), "f32", True),
          "N": 100, "BLOCK": 128}, tol=(1e-5, 1e-7))
run_both("agree_split_reduce_tail", AGREE, "split_reduce", (3,),
         {"x_ptr": Ptr(rng.standard_normal((12, 45)).astype(np.float32), "f32"),
          "out_ptr": Ptr(np.zeros(12, np.float32), "f32", True),
          "RNUMEL": 45, "XBLOCK": 4, "RBLOCK": 16}, tol=(1e-5, 1e-4))
run_both("agree_tile_permute", AGREE, "tile_permute", (1,),
         {"x_ptr": Ptr(rng.standard_normal((2, 4, 8)).astype(np.float32), "f32"),
          "out_ptr": Ptr(np.zeros(24, np.float32), "f32", True),
          "A": 2, "B": 4, "C": 8})
run_both("agree_int_math", AGREE, "int_math", (1,),
         {"x_ptr": Ptr(rng.integers(-50, 50, 29).astype(np.int32), "i32"),
          "out_ptr": Ptr(np.zeros(29, np.float32), "f32", True),
          "N": 29, "BLOCK": 32}, tol=(0, 0))
run_both("agree_mixed_dtypes", AGREE, "mixed_dtypes", (1,),
         {"a_ptr": Ptr(bf16_values(50), "bf16"), "b_ptr": Ptr(f16_values(50), "f16"),
          "out_ptr": Ptr(np.zeros(50, np.float32), "f32", True),
          "N": 50, "BLOCK": 64}, tol=(1e-6, 1e-6))
run_both("agree_grid_2d", AGREE, "grid_2d", (3, 2),
         {"x_ptr": Ptr(rng.standard_normal((20, 12)).astype(np.float32), "f32"),
          "out_ptr": Ptr(np.zeros((20, 12), np.float32), "f32", True),
          "M": 20, "N": 12, "BM": 8, "BN": 8}, tol=(1e-6, 1e-5))


# ------------------------------------------------------- the seed's kernels

def seed_variant(src, B, S, H, D, buggy):
    """The seed's kernel with tl.constexpr numels and the strides of a
    [B, S, H, D] problem instead of [2, 4096, 64, 128]."""
    src = src.replace("x0_numel, r3_numel, r2_numel, r1_numel,",
                      "x0_numel : tl.constexpr, r3_numel : tl.constexpr, "
                      "r2_numel : tl.constexpr, r1_numel : tl.constexpr,")
    subs = [("128*r2 + 524288*r1 + 33554432*r3", f"{D}*r2 + {S * D}*r1 + {H * S * D}*r3"),
            ("128*r1_2 + 8192*r2_1 + 33554432*r3", f"{D}*r1_2 + {H * D}*r2_1 + {S * H * D}*r3"),
            ("r1 + 64*r2 + 262144*r3", f"r1 + {H}*r2 + {S * H}*r3"),
            ("tmp6 = 0.0078125", f"tmp6 = {1.0 / D!r}"),
            ("tmp5 = 128.0", f"tmp5 = {float(D)!r}")]
    for old, new in subs:
        if old not in src:
            continue
        src = src.replace(old, new)
    if not buggy:
        src = "@triton.jit\n" + src
    return "import triton\nimport triton.language as tl\n\n" + src


def seed_inputs(B, S, H, D):
    g = rng.standard_normal((B, H, S, D)).astype(np.float32)
    q = bf16_values((B, S, H, D))
    qs = (rng.random((B, S, H)) + 1).astype(np.float32)
    ref = (g.astype(np.float64).transpose(0, 2, 1, 3) * q.astype(np.float64)
           / np.sqrt(qs.astype(np.float64)[..., None] / D + 1e-6)).sum(axis=(0, 1, 2))
    return g, q, qs, ref


def seed_args(g, q, qs, B, S, H, D, blocks):
    x0b, x0s, r3, r2, r1 = blocks
    return {"in_ptr0": Ptr(g, "f32"), "in_ptr1": Ptr(q, "bf16"), "in_ptr2": Ptr(qs, "f32"),
            "out_ptr1": Ptr(np.zeros(D, np.float32), "f32", True),
            "x0_numel": D, "r3_numel": B, "r2_numel": S, "r1_numel": H,
            "X0BLOCK": x0b, "X0BLOCK_SUB": x0s, "R3BLOCK_SUB": r3, "R2BLOCK_SUB": r2,
            "R1BLOCK_SUB": r1}


fixed_src = open(os.path.join(HERE, "seed_fixed.py")).read()
buggy_src = open(os.path.join(HERE, "seed_buggy.py")).read()

# (name, shape B S H D, blocks X0BLOCK X0BLOCK_SUB R3 R2 R1): one where the
# blocks divide the axes, one with tails on every axis (X0BLOCK=24 over 16
# sub-tiles, R3BLOCK_SUB=4 over an axis of 2, 16 over 40, 8 over 12).
for name, shape, blocks in [("seed_fixed_even", (2, 32, 16, 32), (16, 16, 2, 16, 16)),
                            ("seed_fixed_tails", (2, 40, 12, 32), (24, 16, 4, 16, 8))]:
    B, S, H, D = shape
    path = os.path.join(TMP, f"{name}.py")
    with open(path, "w") as f:
        f.write(seed_variant(fixed_src, B, S, H, D, False))
    g, q, qs, ref = seed_inputs(B, S, H, D)
    grid = (-(-D // blocks[0]),)
    outs = run_both(name, path, "triton_red_fused__to_copy_add_div_mul_permute__0", grid,
                    seed_args(g, q, qs, B, S, H, D, blocks), tol=(1e-5, 1e-4))
    if outs is not None:
        got = outs["out_ptr1"]
        err = np.abs(got - ref).max()
        if not np.allclose(got, ref, rtol=1e-5, atol=1e-3):
            failures += 1
            fail(name + "_vs_float64", f"max |executor - reference| {err}")
        else:
            ok(name + "_vs_float64", f"max |executor - reference| {err:.3g}")

# The buggy kernel: Triton and the executor reject it with one message.
B, S, H, D = 2, 32, 16, 32
path = os.path.join(TMP, "seed_buggy.py")
with open(path, "w") as f:
    f.write(seed_variant(buggy_src, B, S, H, D, True))
g, q, qs, ref = seed_inputs(B, S, H, D)
args = seed_args(g, q, qs, B, S, H, D, (16, 16, 2, 16, 16))
mod = load_module(path, "m_buggy")
triton_msg = None
try:
    mod.triton_[(2,)](**{k: (torch.from_numpy(v.array).to(TORCH_DT[v.dtype])
                            if isinstance(v, Ptr) else v) for k, v in args.items()})
except Exception as e:
    triton_msg = str(e) + " " + repr(e.__cause__)
want = "incompatible dimensions at index 3: 16 and 512"
cmd = TX + [path, "--grid", "2"]
for k, v in args.items():
    if isinstance(v, Ptr):
        cmd.append(f"{k}=zeros:{v.dtype}[{','.join(map(str, v.array.shape))}]")
    else:
        cmd.append(f"{k}={v}")
r = subprocess.run(cmd, capture_output=True, text=True)
line = next(i for i, l in enumerate(open(path).read().split("\n"), 1) if "tl.store" in l)
if triton_msg is None or want not in triton_msg:
    failures += 1
    fail("seed_buggy_rejected_alike", f"Triton's interpreter said: {triton_msg}")
elif r.returncode != 2 or want not in r.stderr or f"seed_buggy.py:{line}:" not in r.stderr:
    failures += 1
    fail("seed_buggy_rejected_alike", f"executor (status {r.returncode}): {r.stderr.strip()}")
else:
    ok("seed_buggy_rejected_alike", want)

sys.exit(1 if failures else 0)
