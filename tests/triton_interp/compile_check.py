#!/usr/bin/env python3
"""Compile emitted Triton modules with real Triton, for an NVIDIA target,
on a machine with no GPU.

    python3 tests/triton_interp/compile_check.py LIST [--arch 90]

LIST has lines "NAME PATH" (modules from `coil emit --target triton-*`).
Every kernel of COIL_LAUNCHES is compiled through Triton's whole pipeline
(TTIR, TTGIR, LLVM IR, PTX, cubin with the ptxas Triton ships) for
sm_<arch>, with the launch's constexprs, pointer dtypes and num_warps.  The
interpreter accepts some programs the compiler rejects (shape mismatches in
tl.where, a store of the wrong rank, the seed's buggy tl.store), so this is
the check that the GPU run will compile.  Prints "ok NAME" or
"FAIL NAME: why" per module."""
import importlib.util
import os
import sys
import traceback

os.environ.pop("TRITON_INTERPRET", None)

PTR = {"float32": "*fp32", "float64": "*fp64", "float16": "*fp16", "bfloat16": "*bf16",
       "int32": "*i32", "int64": "*i64", "bool": "*i1"}


def main():
    args = sys.argv[1:]
    arch = 90
    if "--arch" in args:
        i = args.index("--arch")
        arch = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        work = [line.split()[:2] for line in f if len(line.split()) >= 2]
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except Exception as e:
        for name, _ in work:
            print(f"FAIL {name}: cannot import triton: {type(e).__name__}: {e}", flush=True)
        return 0
    target = GPUTarget("cuda", arch, 32)
    cache = {}
    for n, (name, path) in enumerate(work):
        try:
            spec = importlib.util.spec_from_file_location(f"coil_cc_{n}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            for launch in mod.COIL_LAUNCHES:
                fn = getattr(mod, launch["kernel"])
                sig, consts = {}, {}
                for pname, kind, v in launch["args"]:
                    if kind == "ptr":
                        sig[pname] = PTR[mod.COIL_BUFFERS[v][2]]
                    else:
                        sig[pname] = "constexpr"
                        consts[pname] = v
                key = (fn.src, tuple(sorted(sig.items())), tuple(sorted(consts.items())), launch["num_warps"])
                if key in cache:
                    continue
                triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target,
                               options={"num_warps": launch["num_warps"]})
                cache[key] = True
            print(f"ok {name}", flush=True)
        except Exception as e:
            msg = " ".join(str(e).split())[:500]
            tb = traceback.extract_tb(e.__traceback__)
            print(f"FAIL {name}: {type(e).__name__}: {msg}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
