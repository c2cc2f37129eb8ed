#!/usr/bin/env python3
"""Variants of a GPU module whose reduction loop sums in f64 (var, std of f32):
    python3 tools/device/probe_fold.py MODULE.py OUTDIR LABEL [FOLD]
writes OUTDIR/<stem>.<LABEL>.py and prints LABEL=PATH for
tools/device/gpu_bench.py.  MODULE.py is a `coil emit --target triton-gpu
--harness` module (any --gpu-tile); its first kernel with a loop
`for roffset in range(0, N, RBLOCK)` and [XBLOCK, RBLOCK] f64 accumulators
are rewritten:
  FOLD 0     every f64 of the kernel in f32 (a bound on speed: the precision
             of the f64 is lost)
  FOLD k     the loop body in f32, its accumulators reset every k steps and
             folded, summed over RBLOCK, into [XBLOCK, 1] f64 sums: no lane
             adds more than k values in f32, and the f64 registers no longer
             grow with the tile
The parts the kernel stores stay f64, so the combine kernel is unchanged.
Stops (status 1) when k steps do not divide the loop."""
import re
import sys

from probe_common import write_variant


def rewrite(src, fold):
    m = next(m for m in re.finditer(r"\n@triton.jit\ndef (coil_\w+?)\(.*?(?=\n@triton.jit|\n# ---- what coil chose)", src, re.S)
             if re.search(r"    for roffset in (?:tl\.)?range\(0, ", m.group(0)))
    kernel = m.group(0)
    name = m.group(1)
    lines = kernel.split("\n")
    head_re = r"    for roffset in (?:tl\.)?range\(0, (\w+), RBLOCK(?:, [^)]*)?\):"
    loop = next(i for i, l in enumerate(lines) if re.match(head_re, l))
    trip = re.match(head_re, lines[loop]).group(1)
    end = next(i for i in range(loop + 1, len(lines)) if lines[i] and not lines[i].startswith("        "))
    accs = [re.match(r"    (_tmp\d+) = tl.full\(\[XBLOCK, RBLOCK\], 0.0, tl.float64\)", l) for l in lines[:loop]]
    accs = [a.group(1) for a in accs if a]
    body = [l.replace("tl.float64", "tl.float32") for l in lines[loop + 1:end]]
    head = [l.replace("tl.float64", "tl.float32") for l in lines[:loop]]
    tail = lines[end:]
    if fold == 0:
        tail = [l.replace("tl.float64", "tl.float32") for l in tail]
        return src.replace(kernel, "\n".join(head + [lines[loop]] + body + tail)), name, trip
    new = [l for l in head]
    for a in accs:
        new.append(f"    {a}_f64 = tl.zeros([XBLOCK, 1], tl.float64)")
    new.append(f"    for rfold in range(0, {trip}, {fold} * RBLOCK):")
    for a in accs:
        new.append(f"        {a} = tl.zeros([XBLOCK, RBLOCK], tl.float32)")
    new.append(f"        for rstep in range(0, {fold} * RBLOCK, RBLOCK):")
    new.append("            roffset = rfold + rstep")
    new += ["    " + l for l in body]
    for a in accs:
        new.append(f"        {a}_f64 += tl.sum({a}, 1)[:, None].to(tl.float64)")
    for l in tail:
        for a in accs:
            l = l.replace(f"{a[1:]} = tl.sum({a}, 1)[:, None]", f"{a[1:]} = {a}_f64")
        new.append(l)
    return src.replace(kernel, "\n".join(new)), name, trip


def main():
    src_path, out, label = sys.argv[1:4]
    fold = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    src = open(src_path).read()
    text, name, trip = rewrite(src, fold)
    launch = src[src.index("COIL_LAUNCHES = ["):]
    launch = launch[launch.index(f"'kernel': '{name}'"):]
    val = lambda k: int(re.search(rf"'{k}', 'constexpr', (\d+)", launch).group(1))
    steps = val(trip) // val("RBLOCK")
    if fold and (val(trip) % val("RBLOCK") or steps % fold):
        sys.exit(f"probe_fold: {steps} steps of {name} are no multiple of {fold}")
    write_variant(src_path, out, label, text)


if __name__ == "__main__":
    main()
