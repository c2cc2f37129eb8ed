#!/usr/bin/env python3
"""Variants of bench case 14's GPU module (NHWC per-channel variance) whose
split reduction keeps Welford's state in f32 instead of shifted sums in f64:
    python3 tools/device/probe_welford.py MODULE.py OUTDIR
prints LABEL=PATH for tools/device/gpu_bench.py.  MODULE.py is the case's
`coil emit --target triton-gpu --harness` module, whose first kernel is split
into even parts (no rmask; coil's even_split) and whose combine kernel holds
every part in one SBLOCK; the script stops if either is not so.
  welford      per lane: mean += d / k, m2 += d * (x - mean), the count k the
               same in every lane (a scalar 1 / k per step); lanes and parts
               merged by Chan's formula for equal counts (two tl.sum each)
  welford_div  the same with a count per lane and a division per element
               (what a masked loop needs)
  shift_f32    today's shifted sums in f32 (a bound on speed, not a candidate)"""
import re
import sys

from probe_common import write_variant

PART = '''
@triton.jit
def coil_nhwc_var_k0(in_ptr0, ws_ptr0, ws_ptr1, xnumel: tl.constexpr, rnumel: tl.constexpr, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr, RSPLIT_CHUNK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    x0 = xindex
    rsplit = tl.program_id(1)
    rbase = tl.arange(0, RBLOCK)[None, :]
    _mean = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)
    _m2 = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)
%(n_init)s    for roffset in range(0, RSPLIT_CHUNK, RBLOCK):
        rindex = rsplit * RSPLIT_CHUNK + roffset + rbase
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (x0 + 160*r1))
%(step)s        _m2 = _m2 + delta * (tmp0 - _mean)
%(merge)s    tl.store(ws_ptr0 + (rsplit * xnumel + xindex), mean)
    tl.store(ws_ptr1 + (rsplit * xnumel + xindex), m2)

@triton.jit
def coil_nhwc_var_k0_combine(ws_ptr0, ws_ptr1, out_ptr0, xnumel: tl.constexpr, RSPLIT: tl.constexpr, XBLOCK: tl.constexpr, SBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    x0 = xindex
    sbase = tl.arange(0, SBLOCK)[None, :]
    smask = sbase < RSPLIT
    pm = tl.load(ws_ptr0 + (sbase * xnumel + xindex), smask, other=0.0)
    pq = tl.load(ws_ptr1 + (sbase * xnumel + xindex), smask, other=0.0)
    mean = tl.sum(pm, 1)[:, None] / RSPLIT
    d = tl.where(smask, pm - mean, 0.0)
    m2 = tl.sum(pq, 1)[:, None] + (rnumel_total // RSPLIT) * tl.sum(d * d, 1)[:, None]
    tl.store(out_ptr0 + (x0), tl.maximum(m2, 0.0) / rnumel_total)

'''

UNIFORM = dict(
    n_init="",
    step="        w = 1.0 / (roffset // RBLOCK + 1)\n        delta = tmp0 - _mean\n        _mean = _mean + delta * w\n",
    merge="    mean = tl.sum(_mean, 1)[:, None] / RBLOCK\n    d = _mean - mean\n"
          "    m2 = tl.sum(_m2, 1)[:, None] + (RSPLIT_CHUNK // RBLOCK) * tl.sum(d * d, 1)[:, None]\n")
DIV = dict(
    n_init="    _n = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)\n",
    step="        _n = _n + 1.0\n        delta = tmp0 - _mean\n        _mean = _mean + delta / _n\n",
    merge="    n = tl.sum(_n, 1)[:, None]\n    mean = tl.sum(_n * _mean, 1)[:, None] / n\n    d = _mean - mean\n"
          "    m2 = tl.sum(_m2, 1)[:, None] + tl.sum(_n * d * d, 1)[:, None]\n")


def main():
    src_path, out = sys.argv[1], sys.argv[2]
    src = open(src_path).read()
    m = re.search(r"\n@triton.jit\ndef coil_nhwc_var_k0\(.*?(?=\n# ---- what coil chose)", src, re.S)
    launches = src[src.index("COIL_LAUNCHES = ["):]
    if not m or "rmask" in m.group(0):
        sys.exit("probe_welford: case 14's first kernel is not an even split here")
    rsplit = int(re.search(r"'RSPLIT', 'constexpr', (\d+)", launches).group(1))
    sblock = int(re.search(r"'SBLOCK', 'constexpr', (\d+)", launches).group(1))
    if sblock < rsplit:
        sys.exit("probe_welford: the combine kernel loops over its parts here")
    variants = {
        "welford": (PART % UNIFORM).replace("rnumel_total", "200704"),
        "welford_div": (PART % DIV).replace("rnumel_total", "200704"),
    }
    for name, kernels in variants.items():
        text = src[:m.start()] + kernels + src[m.end():]
        text = text.replace("'scratch', 'float64'", "'scratch', 'float32'")
        write_variant(src_path, out, name, text)
    text = src.replace(".to(tl.float64)", ".to(tl.float32)").replace("0.0, tl.float64)", "0.0, tl.float32)")
    text = text.replace("'scratch', 'float64'", "'scratch', 'float32'")
    write_variant(src_path, out, "shift_f32", text)


if __name__ == "__main__":
    main()
