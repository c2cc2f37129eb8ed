#!/usr/bin/env python3
# python3 tools/device/probe_align.py MODULE.py OUTDIR LABEL  -> prints LABEL=PATH
"""A row reduction whose rows do not start on a 16-byte boundary, read
through aligned windows.

coil's row loop loads `in_ptr + (S*x0 + r1)` masked by `rindex < rnumel`.
When S elements are not a multiple of 16 bytes, Triton cannot prove any
alignment of a row's start, so every thread loads one element at a time
(case 10: bf16 rows of 13001).  The variant loads each row from the 16-byte
boundary at or before its start (abase), over rnumel + V - 1 elements,
masked only by the end of the buffer rounded up to a whole vector (a mask
constant over each vector of V), and drops the lanes outside the row with
the reduction's own where:

    abase = (S*x0) // V * V; lead = S*x0 - abase
    for roffset in range(0, rnumel + V - 1, RBLOCK):
        rindex = roffset + rbase
        flat = abase + rindex
        rmask = (rindex >= lead) & (rindex < lead + rnumel)
        tmp0 = tl.load(in_ptr0 + flat, flat < NEND, other=0)

NEND rounds the buffer's end up to V elements: the last row may read up to
V - 1 elements past it, inside the 16-byte granule of its last element (a
probe only; coil would load that tail apart).  Exits 1 where the module
has no such loop.
"""
import re
import sys

from probe_common import write_variant

ELEM = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}


def rewrite(text):
    load = re.search(r"tmp(\d+) = tl\.load\(in_ptr0 \+ \((\d+)\*x0 \+ r1\), rmask, other=0\)", text)
    if not load:
        return None
    stride = int(load.group(2))
    dtype = re.search(r"\('\w+', 'input', '(\w+)', \(([\d, ]+)\), 0\)", text)
    elem = ELEM[dtype.group(1)]
    numel = 1
    for d in dtype.group(2).split(","):
        if d.strip():
            numel *= int(d)
    v = 16 // elem
    if stride % v == 0:
        return None
    nend = (numel + v - 1) // v * v
    head = "    for roffset in range(0, rnumel, RBLOCK):\n        rindex = roffset + rbase\n        rmask = rindex < rnumel\n"
    if head not in text:
        return None
    text = text.replace(
        head,
        f"    abase = ({stride}*x0) // {v} * {v}\n    lead = {stride}*x0 - abase\n"
        f"    for roffset in range(0, rnumel + {v - 1}, RBLOCK):\n        rindex = roffset + rbase\n"
        f"        flat = abase + rindex\n        rmask = (rindex >= lead) & (rindex < lead + rnumel)\n")
    return text.replace(load.group(0), f"tmp{load.group(1)} = tl.load(in_ptr0 + flat, flat < {nend}, other=0)")


def main():
    src, out, label = sys.argv[1:4]
    with open(src) as f:
        text = rewrite(f.read())
    if text is None:
        sys.exit(1)
    write_variant(src, out, label, text)


if __name__ == "__main__":
    main()
