#!/bin/sh
# Probes of bench cases 14 and 15 on a GPU (issue 23: under 85% of the read):
#   OUT=DIR sh tools/device/probe_14_15.sh
# Emits both cases' modules, writes hand-edited variants of them
# (tools/device/probe_variants.py) and times them all in one process with
# tools/device/gpu_bench.py: $OUT/bench.md.  The edits match the modules
# coil emitted before its even splits (commit a91a8d3: case 14 in 105 parts);
# on later modules probe_variants.py stops at the first edit that no longer
# matches, naming it.
set -e
OUT=${OUT:-probe_out}
M=$OUT/modules
mkdir -p "$M"
COIL=${COIL:-$PWD/build/coil}
$COIL emit --target triton-gpu --harness bench/cases/14_nhwc_col_var_f32.py >"$M/c14.py"
$COIL emit --target triton-gpu --harness bench/cases/15_logsumexp_bf16.py >"$M/c15.py"
P="python3 tools/device/probe_variants.py"
R64="('RBLOCK', 'constexpr', 64), ('RSPLIT_CHUNK', 'constexpr', 1920)"
R128="('RBLOCK', 'constexpr', 128), ('RSPLIT_CHUNK', 'constexpr', 1920)"
W8="'grid': (5, 105, 1), 'num_warps': 8"
S112="$W8=>'grid': (5, 112, 1), 'num_warps': 8;;$R64=>('RBLOCK', 'constexpr', 64), ('RSPLIT_CHUNK', 'constexpr', 1792);;('RSPLIT', 'constexpr', 105)=>('RSPLIT', 'constexpr', 112);;(16800,)=>(17920,)"
NOMASK="tl.load(in_ptr0 + (x0 + 160*r1), rmask, other=0)=>tl.load(in_ptr0 + (x0 + 160*r1));;tl.where(rmask, tmp5, 0.0)=>tmp5;;tl.where(rmask, tmp4, 0.0)=>tmp4"
F32=".to(tl.float64)=>.to(tl.float32);;tl.full([XBLOCK, RBLOCK], 0.0, tl.float64)=>tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)"
v14=$($P "$M/c14.py" "$M" \
  "w4:$W8=>'grid': (5, 105, 1), 'num_warps': 4" \
  "x16:$W8=>'grid': (10, 105, 1), 'num_warps': 8;;('XBLOCK', 'constexpr', 32), ('RBLOCK'=>('XBLOCK', 'constexpr', 16), ('RBLOCK'" \
  "f32:$F32" \
  "f32r128:$F32;;$R64=>$R128" \
  "split112:$S112" \
  "exact112:$S112;;$NOMASK" \
  "exact112f32:$S112;;$NOMASK;;$F32")
W15="'grid': (8192, 1, 1), 'num_warps': 8"
v15=$($P "$M/c15.py" "$M" \
  "w4:$W15=>'grid': (8192, 1, 1), 'num_warps': 4" \
  "w16:$W15=>'grid': (8192, 1, 1), 'num_warps': 16")
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py coil=$M/c14.py $v14 coil=$M/c15.py $v15
