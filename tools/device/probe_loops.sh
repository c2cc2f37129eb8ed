#!/bin/sh
# Bench case 14's reduction loop unrolled, pipelined and prefetched by hand:
#   OUT=DIR sh tools/device/probe_loops.sh
# Emits the case's module as the model gave it before it unrolled a
# variance's loop (8 warps, no unrolling: --gpu-unroll 1 --gpu-tile 0,0,0,8;
# docs/gpu.md, 2026-12-03), writes variants by literal edits
# (tools/device/probe_variants.py) and times them in one process with
# tools/device/gpu_bench.py: $OUT/bench.md.
set -e
. tools/device/probe_env.sh
"$COIL" emit --target triton-gpu --harness --gpu-unroll 1 --gpu-tile 0,0,0,8 bench/cases/14_nhwc_col_var_f32.py >"$M/c14.py"
L="for roffset in range(0, RSPLIT_CHUNK, RBLOCK):"
LOAD="        tmp0 = tl.load(in_ptr0 + (x0 + 160*r1))"
PRE="    nxt = tl.load(in_ptr0 + (x0 + 160*(rsplit * RSPLIT_CHUNK + rbase)))\n    $L"
NEXT="        tmp0 = nxt\n        nxt = tl.load(in_ptr0 + (x0 + 160*(r1 + RBLOCK)), (roffset + RBLOCK + rbase) < RSPLIT_CHUNK, other=0.0)"
v=$(python3 tools/device/probe_variants.py "$M/c14.py" "$M" \
  "unroll2:$L=>for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, loop_unroll_factor=2):" \
  "unroll4:$L=>for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, loop_unroll_factor=4):" \
  "stages2:$L=>for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, num_stages=2):" \
  "stages3:$L=>for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, num_stages=3):" \
  "prefetch:    $L=>$PRE;;$LOAD=>$NEXT" \
  "unroll2w4:$L=>for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, loop_unroll_factor=2):;;'grid': (5, 98, 1), 'num_warps': 8=>'grid': (5, 98, 1), 'num_warps': 4")
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py coil=$M/c14.py $v
