#!/usr/bin/env python3
# python3 tools/device/check_retile.py MODULE.py...   (DEV=cuda by default; cpu runs Triton's interpreter)
"""Each module's pointwise launches at other tiles, checked against eager.

A miscompile that shows at some tiles only (Triton 3.6 on the H200 got
max_pool2d's indices wrong at four or more elements per thread: docs/gpu.md,
2026-12-04) passes the check of the module as emitted.  For every module this
checks the module as emitted, then again with each 1-D launch that masks its
x block (XBLOCK and xnumel among its arguments, no reduction block) run at
num_warps in WARPS and XBLOCK in XBLOCKS; the other launches keep their tiles.
A launch emitted without masks (XBLOCK divides xnumel) keeps its tile: a
larger XBLOCK would read past its buffers.

Prints "ok NAME" or "FAIL NAME warps W XBLOCK B: problems" per module and
tile, then "RETILE: N failing of M"; exits 1 when any fails."""
import copy
import importlib.util
import os
import sys

DEV = os.environ.get("DEV", "cuda")
WARPS = [int(w) for w in os.environ.get("WARPS", "1 2 4 8").split()]
XBLOCKS = [int(b) for b in os.environ.get("XBLOCKS", "64 128 256 512 1024").split()]
if DEV == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"


def load(path):
    name = "coil_retile_" + os.path.splitext(os.path.basename(path))[0].replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def kernel_source(m, kernel):
    """The kernel's text in the module's file (the interpreter's kernels have no .src)."""
    text = open(m.__file__).read()
    start = text.index(f"def {kernel}(")
    end = text.find("\n\n\n", start)
    return text[start:end if end >= 0 else len(text)]


def retilable(m, launch):
    names = [a[0] for a in launch["args"]]
    if "XBLOCK" not in names or "xnumel" not in names or tuple(launch["grid"][1:]) != (1, 1):
        return False
    if any(n == "rnumel" or (n.endswith("BLOCK") and n != "XBLOCK") for n in names):
        return False
    return "xmask" in kernel_source(m, launch["kernel"])


def retile(launch, warps, xblock):
    xnumel = dict((a[0], a[2]) for a in launch["args"])["xnumel"]
    launch["args"] = [(a[0], a[1], xblock) if a[0] == "XBLOCK" else a for a in launch["args"]]
    launch["grid"] = ((xnumel + xblock - 1) // xblock, 1, 1)
    launch["num_warps"] = warps


def main():
    failing = total = 0
    for path in sys.argv[1:]:
        m = load(path)
        name = os.path.basename(path)
        emitted = copy.deepcopy(m.COIL_LAUNCHES)
        tiles = [(None, None)] + [(w, b) for w in WARPS for b in XBLOCKS]
        if not any(retilable(m, launch) for launch in emitted):
            tiles = tiles[:1]
        before = failing
        for warps, xblock in tiles:
            m.COIL_LAUNCHES[:] = copy.deepcopy(emitted)
            if warps is not None:
                for launch in m.COIL_LAUNCHES:
                    if retilable(m, launch):
                        retile(launch, warps, xblock)
            label = "as emitted" if warps is None else f"warps {warps} XBLOCK {xblock}"
            total += 1
            try:
                problems = m.coil_check(DEV)
            except Exception as e:  # a crash at one tile is that tile's failure
                problems = [f"{type(e).__name__}: {str(e)[:200]}"]
            if problems:
                failing += 1
                print(f"FAIL {name} {label}: " + " | ".join(problems)[:400], flush=True)
        if failing == before:
            print(f"ok {name} ({len(tiles)} tilings)", flush=True)
    print(f"RETILE: {failing} failing of {total}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
