#!/usr/bin/env python3
# python3 tools/device/probe_rowgroup.py MODULE.py OUTDIR LABEL G RBLOCK WARPS  -> prints LABEL=PATH
"""A row reduction whose rows do not start on a 16-byte boundary, read as
aligned groups of rows.

When S elements of a row are not a multiple of 16 bytes (case 10: bf16 rows
of 13001), no row's start is aligned and Triton loads one element at a
time.  But G = V / gcd(S, V) consecutive rows (V elements in 16 bytes) span
a multiple of 16 bytes, so a group starts aligned.  The variant gives each
program G rows and walks their flat span in chunks of RBLOCK (<= S, so that
a chunk meets at most one row's end): lanes before the current row's end
add into one accumulator, lanes after it into the next; when the chunk
reaches the row's end the row's sum is stored and the next accumulator
becomes the current one.  Full groups mask by G*S (a multiple of V: a mask
constant over each vector); the last group, if partial, by its own span.

Rewrites the module's one row-reduction kernel (one load of in_ptr0 at
S*x0 + r1, a pointwise body, a sum stored at x0); exits 1 otherwise.
"""
import math
import re
import sys

from probe_common import write_variant

ELEM = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}


def rewrite(text, g, rblock, warps):
    kdef = re.search(r"@triton\.jit\ndef (\w+)\(in_ptr0, out_ptr0, xnumel: tl\.constexpr, rnumel: tl\.constexpr, "
                     r"XBLOCK: tl\.constexpr, RBLOCK: tl\.constexpr\):\n(.*?)\n\n\n", text, re.S)
    if not kdef:
        return None
    name, body = kdef.group(1), kdef.group(2)
    loop = re.search(r"        r1 = rindex\n(.*?)        (tmp\d+)_in = tl\.broadcast_to\(tl\.where\(rmask, (tmp\d+), 0\.0\)", body, re.S)
    load = re.search(r"tl\.load\(in_ptr0 \+ \((\d+)\*x0 \+ r1\), rmask, other=0\)", body)
    if not loop or not load or "tl.sum(" not in body:
        return None
    stride = int(load.group(1))
    if rblock > stride:  # a chunk would meet two rows' ends
        sys.exit(f"probe_rowgroup: RBLOCK {rblock} is over the row's {stride} elements")
    lines, value = loop.group(1), loop.group(3)
    lines = lines.replace(load.group(0), "tl.load(in_ptr0 + (base + f), fmask, other=0)")
    lines = lines.rstrip("\n")
    kernel = f'''@triton.jit
def {name}_group(in_ptr0, out_ptr0, base, row, span, xnumel: tl.constexpr, rnumel: tl.constexpr,
                 G: tl.constexpr, RBLOCK: tl.constexpr, FULL: tl.constexpr):
    lane = tl.arange(0, RBLOCK)
    acc = tl.zeros([RBLOCK], tl.float32)
    nxt = tl.zeros([RBLOCK], tl.float32)
    bound = rnumel
    for off in range(0, G * rnumel, RBLOCK):
        f = off + lane
        if FULL:
            fmask = f < G * rnumel
        else:
            fmask = f < span
{lines}
        v = tl.where(fmask, {value}, 0.0)
        inrow = f < bound
        acc += tl.where(inrow, v, 0.0)
        nxt += tl.where(inrow, 0.0, v)
        if off + RBLOCK >= bound:
            tl.store(out_ptr0 + row, tl.sum(acc, 0), row < xnumel)
            acc = nxt
            nxt = tl.zeros([RBLOCK], tl.float32)
            row += 1
            bound += rnumel


@triton.jit
def {name}(in_ptr0, out_ptr0, xnumel: tl.constexpr, rnumel: tl.constexpr, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    row0 = tl.program_id(0) * XBLOCK
    base = row0 * rnumel
    if row0 + XBLOCK <= xnumel:
        {name}_group(in_ptr0, out_ptr0, base, row0, XBLOCK * rnumel, xnumel, rnumel, XBLOCK, RBLOCK, True)
    else:
        {name}_group(in_ptr0, out_ptr0, base, row0, (xnumel - row0) * rnumel, xnumel, rnumel, XBLOCK, RBLOCK, False)
'''
    text = text.replace(kdef.group(0)[:-3], kernel.rstrip("\n"))
    launch = re.search(r"'grid': \((\d+), 1, 1\), 'num_warps': (\d+),", text)
    rows = int(launch.group(1))
    text = text.replace(launch.group(0), f"'grid': ({math.ceil(rows / g)}, 1, 1), 'num_warps': {warps},")
    text = re.sub(r"\('XBLOCK', 'constexpr', \d+\), \('RBLOCK', 'constexpr', \d+\)",
                  f"('XBLOCK', 'constexpr', {g}), ('RBLOCK', 'constexpr', {rblock})", text)
    return text


def main():
    src, out, label = sys.argv[1], sys.argv[2], sys.argv[3]
    g, rblock, warps = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    text = rewrite(open(src).read(), g, rblock, warps)
    if text is None:
        sys.exit(1)
    write_variant(src, out, label, text)


if __name__ == "__main__":
    main()
