#!/usr/bin/env python3
"""coil's own Triton output, run by coil's Triton executor.

For each example and each Triton target, `coil emit --target T` writes a
module whose COIL_LAUNCHES table says which kernels run, in which order,
on which buffers.  This script runs those launches with the executor
(`coil triton-run`, buffers passed from launch to launch as .npy files),
and compares every output with (1) Triton's own interpreter running the
same module (coil_run, TRITON_INTERPRET=1) and (2) PyTorch eager on the
example function.  Prints "ok NAME" / "FAIL NAME: why".

    python3 tests/triton/run_emitted.py build/coil
"""
import os
import subprocess
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"


def ok(name, note=""):
    print(f"ok {name}{' (' + note + ')' if note else ''}", flush=True)


def fail(name, why):
    print(f"FAIL {name}: {why}", flush=True)


try:
    import importlib.util

    import numpy as np
    import torch
    import triton  # noqa: F401
except Exception as e:
    fail("run_emitted_available", f"cannot import numpy, torch and triton: {e!r}")
    sys.exit(1)

COIL = sys.argv[1] if len(sys.argv) > 1 else "build/coil"
TMP = tempfile.mkdtemp(prefix="tx-emitted-")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = 0

# (example, or FILE:FUNCTION of the tests; --arg overrides keeping it small
# for Triton's interpreter)
CASES = [
    ("rms_norm_weight_grad", ["grad_out_base=f32[2,8,96,32]", "q=bf16[2,96,8,32]",
                              "q_square_sum=f32[2,96,8] uniform(1, 2)"]),
    ("softmax", []),
    ("layer_norm", ["x=f32[4,16,384]"]),
    ("mixed_precision", []),
    ("int_stats", []),
    ("views", []),
    ("log_softmax", []),
    # a permuted view handed over as it is (stride(...)): the executor gets
    # the storage, the kernels index it by the strides
    ("tests/run/strides.py:seed_permuted_view", []),
]
TARGETS = ["triton-npu", "triton-gpu"]
NP_OF = {"float32": np.float32, "float64": np.float64, "float16": np.float32,
         "bfloat16": np.float32, "int32": np.int32, "int64": np.int64, "bool": np.bool_}
CLI_DT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int32": "i32", "int64": "i64", "bool": "bool"}


def make_input(rng, dtype, shape, stride, dist):
    """The parameter: a view with the module's strides of a storage of
    their extent, filled with the distribution."""
    n = 0 if 0 in shape else 1 + sum((d - 1) * s for d, s in zip(shape, stride))
    kind = dist[0]
    if kind == "randn":
        if dtype in ("int32", "int64"):
            a = rng.integers(-8, 9, n)
        elif dtype == "bool":
            a = rng.integers(0, 2, n).astype(bool)
        else:
            a = rng.standard_normal(n)
    elif kind == "uniform":
        lo, hi = dist[1], dist[2]
        a = rng.integers(lo, hi, n) if dtype in ("int32", "int64") else rng.uniform(lo, hi, n)
    elif kind == "ones":
        a = np.ones(n)
    elif kind == "arange":
        a = np.arange(n)
    else:
        raise ValueError(f"distribution {dist}")
    return torch.from_numpy(np.asarray(a)).to(getattr(torch, dtype)).as_strided(shape, stride)


def to_npy(t):
    """A tensor as the array the executor reads (bf16/f16 as f32)."""
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return t.numpy()


def storage(t):
    """The storage a parameter made by make_input views, flat: what the
    kernels index by its strides."""
    return t.as_strided((t.untyped_storage().nbytes() // t.element_size(),), (1,), 0)


def run_case(example, overrides, target):
    global failures
    path, _, fn = example.partition(":")
    name = f"emitted_{fn or example}_{target.replace('-', '_')}"
    d = os.path.join(TMP, name)
    os.makedirs(d)
    src = os.path.join(ROOT, path) if fn else os.path.join(ROOT, "examples", f"{example}.py")
    cmd = [COIL, "emit", "--target", target, src] + (["--fn", fn] if fn else [])
    for a in overrides:
        cmd += ["--arg", a]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        failures += 1
        fail(name, f"coil emit failed: {r.stderr.strip()[:400]}")
        return
    path = os.path.join(d, "module.py")
    with open(path, "w") as f:
        f.write(r.stdout)
    spec = importlib.util.spec_from_file_location(f"mod_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    rng = np.random.default_rng(7)
    inputs = [make_input(rng, dt, shape, stride, dist)
              for (_, dt, shape, dist), stride in zip(mod.COIL_INPUTS, mod.COIL_INPUT_STRIDES)]

    # Triton's interpreter on the module's own launcher.
    try:
        want = [t.clone() for t in mod.coil_run([x.clone() for x in inputs])]
    except Exception as e:
        failures += 1
        fail(name, f"Triton's interpreter failed on coil's module: {e!r}"[:500])
        return

    # The executor, launch by launch; each buffer lives in a file.
    files = {}
    for i, (bname, kind, dt, shape, index) in enumerate(mod.COIL_BUFFERS):
        if kind == "input":
            p = os.path.join(d, f"buf{i}.npy")
            np.save(p, to_npy(storage(inputs[index])))
            files[i] = f"@{p}:{CLI_DT[dt]}"
        else:
            files[i] = f"zeros:{CLI_DT[dt]}[{','.join(map(str, shape))}]"
    for n, launch in enumerate(mod.COIL_LAUNCHES):
        out = os.path.join(d, f"launch{n}")
        cmd = [COIL, "triton-run", path, "--kernel", launch["kernel"], "--grid",
               ",".join(map(str, launch["grid"])), "--save", out]
        for pname, kind, v in launch["args"]:
            cmd.append(f"{pname}={files[v]}" if kind == "ptr" else f"{pname}={v}")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            failures += 1
            fail(name, f"executor failed on {launch['kernel']}: {r.stderr.strip()[:600]}")
            return
        for pname, kind, v in launch["args"]:
            if kind == "ptr":
                dt = mod.COIL_BUFFERS[v][2]
                files[v] = f"@{os.path.join(out, pname + '.npy')}:{CLI_DT[dt]}"

    # PyTorch eager on the example function itself.
    ex_spec = importlib.util.spec_from_file_location(f"ex_{name}", src)
    ex = importlib.util.module_from_spec(ex_spec)
    ex_spec.loader.exec_module(ex)
    eager = getattr(ex, mod.COIL_FUNCTION)(*[x.clone() for x in inputs])
    if not isinstance(eager, (tuple, list)):
        eager = [eager]

    worst_t = worst_e = 0.0
    for k, b in enumerate(mod.COIL_OUTPUTS):
        got = np.load(files[b][1:].rsplit(":", 1)[0]).astype(np.float64)
        t = want[k].to(torch.float64).numpy()
        e = eager[k].to(torch.float64).numpy()
        dt = mod.COIL_BUFFERS[b][2]
        # Both run coil's kernels: equal up to summation order (and one
        # rounding step of a 16-bit output).
        rtol, atol = {"bfloat16": (1e-2, 1e-2), "float16": (2e-3, 1e-3)}.get(dt, (1e-5, 1e-5))
        if got.shape != t.shape or not np.allclose(got, t, rtol=rtol, atol=atol, equal_nan=True):
            failures += 1
            diff = np.nanmax(np.abs(got - t)) if got.shape == t.shape else f"shape {got.shape} vs {t.shape}"
            fail(name, f"output {k} ({dt}) differs from Triton's interpreter: max |diff| {diff}")
            return
        # Against eager PyTorch, a looser check: coil's kernels compute in
        # fp32 and round once; eager rounds per op in 16-bit dtypes.
        rtol, atol = {"bfloat16": (3e-2, 3e-2), "float16": (5e-3, 5e-3)}.get(dt, (1e-4, 1e-4))
        if got.shape != e.shape or not np.allclose(got, e, rtol=rtol, atol=atol, equal_nan=True):
            failures += 1
            diff = np.nanmax(np.abs(got - e)) if got.shape == e.shape else "shape"
            fail(name, f"output {k} ({dt}) differs from PyTorch eager: max |diff| {diff}")
            return
        if got.size:
            worst_t = max(worst_t, float(np.nanmax(np.abs(got - t))))
            worst_e = max(worst_e, float(np.nanmax(np.abs(got - e))))
    ok(name, f"{len(mod.COIL_LAUNCHES)} launches; max |executor - triton| {worst_t:.3g}, "
             f"|executor - eager| {worst_e:.3g}")


for example, overrides in CASES:
    for target in TARGETS:
        try:
            run_case(example, overrides, target)
        except Exception as e:
            failures += 1
            fail(f"emitted_{example.partition(':')[2] or example}_{target.replace('-', '_')}", f"{type(e).__name__}: {e}"[:500])

sys.exit(1 if failures else 0)
