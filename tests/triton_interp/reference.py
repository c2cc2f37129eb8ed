#!/usr/bin/env python3
"""The harness's choice of reference (coil_check), under Triton's interpreter.

    python3 tests/triton_interp/reference.py COIL

coil computes what PyTorch's CPU kernels compute.  On a GPU, coil_check
compares the kernels' outputs with that device's eager first, and an output
that differs there passes if CPU eager gives it (CUDA's bf16 scans and its
writes at repeated indices differ from the CPU's); where the device's eager
raises, CPU eager is the reference.  No GPU runs here, so the "device" is PyTorch's meta device: the eager function is
replaced by one whose answer depends on the device its factory calls make
tensors on (x * 2 on the CPU, x * 2 + 1 on meta, or an error on meta), and
the kernels' outputs by given tensors.  Each case's problems and notes must
be what the rule says; a last case runs the real kernels under the
interpreter.

Prints "ok NAME" or "FAIL NAME: why" per case."""
import os
import subprocess
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
from run import load  # noqa: E402  (tests/triton_interp/run.py, beside this file)

import torch  # noqa: E402

SOURCE = '''import torch


def double(x: "f32[4, 5]"):
    return x * 2
'''

# the eager function coil_check runs in place of double: a factory call shows
# which device the check runs it for
DIFFERS = '''import torch


def double(x):
    return x * 2 + int(torch.zeros(()).is_meta)
'''
RAISES = '''import torch


def double(x):
    if torch.zeros(()).is_meta:
        raise NotImplementedError("no kernel for this dtype on this device")
    return x * 2
'''


def main():
    coil = sys.argv[1]
    tmp = tempfile.mkdtemp()
    src = os.path.join(tmp, "double.py")
    with open(src, "w") as f:
        f.write(SOURCE)
    r = subprocess.run([coil, "emit", "--target", "triton-gpu", "--harness", src, "--fn", "double"],
                       capture_output=True, text=True)
    if r.returncode:
        print(f"FAIL triton/reference: coil emit: {r.stderr.strip()[:300]}")
        return 0
    path = os.path.join(tmp, "double_gpu.py")
    with open(path, "w") as f:
        f.write(r.stdout)
    m = load(path, "coil_reference_double")
    x = m.coil_make_inputs("cpu")[0]

    real = m.coil_check("cpu")
    print("ok triton/reference/kernels" if real == [] else f"FAIL triton/reference/kernels: {real}")

    m.coil_make_inputs = lambda device, seed=0: [x]
    # (name, eager source, kernels' output, device, problems expected?, a note with this text)
    cases = [
        ("cpu_decides", DIFFERS, x * 2, "meta", False, "out0 matches CPU eager, not meta eager"),
        ("device_decides", DIFFERS, x * 2 + 1, "meta", False, None),
        ("neither", DIFFERS, x * 3, "meta", True, None),
        ("device_raises", RAISES, x * 2, "meta", False, "eager on meta raised NotImplementedError"),
        ("device_raises_wrong", RAISES, x * 3, "meta", True, None),
        ("cpu_only", DIFFERS, x * 2 + 1, "cpu", True, None),
        ("cpu_right", DIFFERS, x * 2, "cpu", False, None),
    ]
    for name, eager_src, out, device, fails, note in cases:
        m.COIL_SOURCE = eager_src
        m.coil_run = lambda inputs, out=out: [out.clone()]
        try:
            problems = m.coil_check(device)
        except Exception as e:
            print(f"FAIL triton/reference/{name}: raised {type(e).__name__}: {e}")
            continue
        notes = list(m.COIL_CHECK_NOTES)
        why = []
        if bool(problems) != fails:
            why.append(f"problems {problems}, expected {'some' if fails else 'none'}")
        if note is None and notes and not fails:
            why.append(f"notes {notes}, expected none")
        if note is not None and not any(note in n for n in notes):
            why.append(f"notes {notes}, expected one with {note!r}")
        print(f"FAIL triton/reference/{name}: " + "; ".join(why) if why else f"ok triton/reference/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
