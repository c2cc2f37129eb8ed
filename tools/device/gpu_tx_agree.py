#!/usr/bin/env python3
# coil's Triton executor against real Triton on a GPU (the lent H200): python3 tools/device/gpu_tx_agree.py build/coil OUTDIR
"""Agreement of coil's Triton executor with real Triton on a GPU.

Runs the seed's fixed NPU-dialect kernel (tests/triton/seed_fixed.py, which
has runtime numels and so cannot run under Triton's interpreter) at the
seed's full size, on CUDA with real Triton and on the CPU with
`coil triton-run`, on the same inputs, with block sizes that divide the axes
and with block sizes that leave tails; and runs the seed's buggy kernel to
see real Triton reject it.  Prints one line per case and a markdown table.

    python3 tools/device/gpu_tx_agree.py build/coil OUTDIR
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import triton
import triton.language as tl  # noqa: F401

COIL, OUT = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
os.makedirs(OUT, exist_ok=True)


def load_kernel(path):
    src = open(path).read()
    mod_path = os.path.join(tempfile.mkdtemp(), os.path.basename(path))
    with open(mod_path, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n")
        f.write(src if "@triton.jit" in src else "@triton.jit\n" + src)
    spec = importlib.util.spec_from_file_location("k", mod_path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return [v for v in vars(m).values() if isinstance(v, triton.runtime.jit.JITFunction)][0]


B, S, H, D = 2, 4096, 64, 128
g = torch.Generator().manual_seed(0)
go = torch.randn((B, H, S, D), generator=g, dtype=torch.float32)
q = torch.randn((B, S, H, D), generator=g, dtype=torch.float32).to(torch.bfloat16)
qss = torch.rand((B, S, H), generator=g, dtype=torch.float32) + 1.0
ref = (go.double().permute(0, 2, 1, 3) * q.double() * torch.rsqrt(qss.double().unsqueeze(-1) / D + 1e-6)).sum((0, 1, 2))
tmp = tempfile.mkdtemp()
np.save(f"{tmp}/go.npy", go.numpy())
np.save(f"{tmp}/q.npy", q.float().numpy())
np.save(f"{tmp}/qss.npy", qss.numpy())

kernel = load_kernel(os.path.join(ROOT, "tests/triton/seed_fixed.py"))
rows = []
for name, (xb, xs, r3, r2, r1) in [("divides", (16, 16, 2, 16, 16)), ("tails", (24, 16, 4, 16, 8)),
                                  ("wide", (32, 32, 2, 64, 16))]:
    grid = (D + xb - 1) // xb
    out = torch.full((D,), float("nan"), device="cuda")
    kernel[(grid,)](go.cuda(), q.cuda(), qss.cuda(), out, D, B, S, H, X0BLOCK=xb, X0BLOCK_SUB=xs,
                    R3BLOCK_SUB=r3, R2BLOCK_SUB=r2, R1BLOCK_SUB=r1)
    torch.cuda.synchronize()
    gpu = out.cpu().double()
    save = f"{tmp}/{name}"
    cmd = [COIL, "triton-run", os.path.join(ROOT, "tests/triton/seed_fixed.py"), "--grid", str(grid),
           f"in_ptr0=@{tmp}/go.npy", f"in_ptr1=@{tmp}/q.npy:bf16", f"in_ptr2=@{tmp}/qss.npy",
           "out_ptr1=nan:f32[128]", f"x0_numel={D}", f"r3_numel={B}", f"r2_numel={S}", f"r1_numel={H}",
           f"X0BLOCK={xb}", f"X0BLOCK_SUB={xs}", f"R3BLOCK_SUB={r3}", f"R2BLOCK_SUB={r2}", f"R1BLOCK_SUB={r1}",
           "--save", save]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        rows.append((name, f"{xb},{xs},{r3},{r2},{r1}", "executor failed: " + r.stderr.strip()[:200], "", ""))
        continue
    cpu = torch.from_numpy(np.load(f"{save}/out_ptr1.npy")).double()
    d_exec = (cpu - gpu).abs().max().item()
    d_ref = ((gpu - ref).abs().max() / ref.abs().max()).item()
    rows.append((name, f"{xb},{xs},{r3},{r2},{r1}", f"{d_exec:.3g}", f"{d_ref:.3g}",
                 "agree" if d_exec <= 1e-3 * ref.abs().max().item() and d_ref < 1e-4 else "DIFFER"))

# The buggy kernel: real Triton must reject it at compile time.
try:
    bug = load_kernel(os.path.join(ROOT, "tests/triton/seed_buggy.py"))
    out = torch.zeros((D,), device="cuda")
    bug[(8,)](go.cuda(), q.cuda(), qss.cuda(), out, D, B, S, H, X0BLOCK=16, X0BLOCK_SUB=16, R3BLOCK_SUB=2,
              R2BLOCK_SUB=16, R1BLOCK_SUB=16)
    torch.cuda.synchronize()
    bug_msg = "compiled and ran (unexpected)"
except Exception as e:  # Triton's CompilationError
    bug_msg = str(e).strip().splitlines()[-1][:160]
r = subprocess.run([COIL, "triton-run", os.path.join(ROOT, "tests/triton/seed_buggy.py"), "--grid", "8",
                    f"in_ptr0=@{tmp}/go.npy", f"in_ptr1=@{tmp}/q.npy:bf16", f"in_ptr2=@{tmp}/qss.npy",
                    "out_ptr1=zeros:f32[128]", f"x0_numel={D}", f"r3_numel={B}", f"r2_numel={S}", f"r1_numel={H}",
                    "X0BLOCK=16", "X0BLOCK_SUB=16", "R3BLOCK_SUB=2", "R2BLOCK_SUB=16", "R1BLOCK_SUB=16"],
                   capture_output=True, text=True)
exec_msg = (r.stderr.strip().splitlines() or ["(no error)"])[0][:160]

lines = ["| case | X0BLOCK,X0BLOCK_SUB,R3,R2,R1 | max abs diff executor vs GPU | max rel err GPU vs float64 | verdict |",
         "|---|---|---|---|---|"]
lines += [f"| {' | '.join(r)} |" for r in rows]
lines += ["", f"seed buggy kernel, real Triton on the GPU: `{bug_msg}`",
          f"seed buggy kernel, coil triton-run: `{exec_msg}`"]
text = "\n".join(lines)
print(text)
open(os.path.join(OUT, "tx_agree.md"), "w").write(text + "\n")
