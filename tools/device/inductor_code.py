#!/usr/bin/env python3
"""Inductor's generated code for one bench case, on the GPU:
    python3 tools/device/inductor_code.py bench/cases/14_nhwc_col_var_f32.py OUT.py
compiles the case's function with torch.compile on CUDA inputs of its
annotated shapes and writes the output code Inductor produced (the module it
loads: kernels and launch grid), to compare coil's choices with its."""
import importlib.util
import os
import re
import sys

import torch
from torch._inductor.codecache import PyCodeCache

DEV = os.environ.get("DEVICE", "cuda")  # cpu: a dry run here
DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}


def main():
    path, out = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("case", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = next(v for k, v in vars(mod).items() if callable(v) and getattr(v, "__module__", "") == "case")
    args = []
    for ann in fn.__annotations__.values():
        m = re.match(r"(\w+)\[([\d, ]+)\]", ann)
        args.append(torch.randn(*[int(d) for d in m.group(2).split(",")], device=DEV).to(DTYPES[m.group(1)]))
    before = set(PyCodeCache.modules if hasattr(PyCodeCache, "modules") else [])
    torch.compile(fn)(*args)
    mods = [m for m in getattr(PyCodeCache, "modules", []) if m not in before]
    with open(out, "w") as f:
        for m in mods:
            f.write(f"# ---- {m.__file__}\n")
            f.write(open(m.__file__).read())
    print(f"{len(mods)} module(s) written to {out}")


if __name__ == "__main__":
    main()
