#!/usr/bin/env python3
"""The index checks' status, as a GPU without Triton's debug mode sees them.

    python3 tests/triton_interp/status.py COIL

On a GPU, tl.device_assert is compiled out unless Triton's debug mode is on,
so an index out of range would read nothing and raise nothing.  Each kernel
with an indexed load also stores the failed check's id into the status
buffer, and the harness's coil_launch raises IndexError with the check's
message after the launches; so does each kernel with an indexed store (an
atomic add at the index).  This emits modules for functions with indexed
loads and stores, deletes their tl.device_assert lines (what the GPU compiler does),
and runs them under Triton's interpreter: indices out of range must raise
IndexError naming the source position, indices in range must not, in both
dialects.  Prints "ok NAME" or "FAIL NAME: why" per case."""
import os
import subprocess
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
from run import load  # noqa: E402  (tests/triton_interp/run.py, beside this file)

SOURCE = '''import torch


def embed(w: "f32[6, 8]", ids: "i64[5] uniform(LO, HI)"):
    return torch.nn.functional.embedding(ids, w).sum(-1)


def take(x: "f32[4, 33]", i: "i64[4, 9] uniform(LO, HI)"):
    return x.gather(1, i % 40).amax(1)


def add_at(x: "f32[7, 5]", i: "i64[4, 5] uniform(LO, HI)", src: "f32[4, 5]"):
    return x.scatter_add(0, i, src * 2)
'''

CASES = [  # function, index range, size of the indexed dim, error expected
    ("embed", 0, 6, False), ("embed", 6, 9, True),
    ("take", 0, 33, False), ("take", 33, 40, True),
    ("add_at", 0, 7, False), ("add_at", 7, 9, True),  # an indexed store's check
]


def main():
    coil = sys.argv[1]
    tmp = tempfile.mkdtemp()
    n = 0
    for fn, lo, hi, bad in CASES:
        src = os.path.join(tmp, f"idx_{fn}_{lo}.py")
        with open(src, "w") as f:
            f.write(SOURCE.replace("LO", str(lo)).replace("HI", str(hi)))
        for target in ("triton-gpu", "triton-npu"):
            name = f"triton/status/{fn}_{'out' if bad else 'in'}_range/{target}"
            r = subprocess.run([coil, "emit", "--target", target, "--harness", src, "--fn", fn], capture_output=True, text=True)
            if r.returncode:
                print(f"FAIL {name}: coil emit: {r.stderr.strip()[:200]}")
                continue
            lines = [l for l in r.stdout.splitlines(True) if "tl.device_assert(" not in l]
            if len(lines) == len(r.stdout.splitlines(True)):
                print(f"FAIL {name}: the module has no tl.device_assert to take out")
                continue
            path = os.path.join(tmp, f"m{n}.py")
            n += 1
            with open(path, "w") as f:
                f.writelines(lines)
            mod = load(path, f"m{n}")
            try:
                mod.coil_run(mod.coil_make_inputs("cpu"))
                raised = None
            except IndexError as e:
                raised = str(e)
            if bad and raised is None:
                print(f"FAIL {name}: no IndexError for indices out of range")
            elif bad and f"idx_{fn}_{lo}.py:" not in raised or bad and "index out of range" not in raised:
                print(f"FAIL {name}: the error does not name the position: {raised}")
            elif not bad and raised is not None:
                print(f"FAIL {name}: IndexError for indices in range: {raised}")
            else:
                print(f"ok {name}")


if __name__ == "__main__":
    main()
