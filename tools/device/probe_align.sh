#!/bin/sh
# Case 10 (bf16 rows of 13001: no row starts on 16 bytes) as emitted and read
# through aligned windows (tools/device/probe_align.py), at the model's tile
# and at TILES (`--gpu-tile X,R,S,W`), in one process with gpu_bench.py:
#   OUT=DIR [CASE=bench/cases/NAME.py] [TILES="1,2048,0,8 ..."] sh tools/device/probe_align.sh
set -e
. tools/device/probe_env.sh
CASE=${CASE:-bench/cases/10_odd_row_sumsq_bf16.py}
TILES=${TILES:-1,2048,0,8 1,2048,0,16 1,4096,0,8 1,4096,0,16 1,8192,0,16}
n=$(basename "$CASE" .py)
"$COIL" emit --target triton-gpu --harness "$CASE" >"$M/$n.py"
args="coil=$M/$n.py $(python3 tools/device/probe_align.py "$M/$n.py" "$M" align)"
for t in $TILES; do
  l=$(echo "$t" | tr ',' '_')
  "$COIL" emit --target triton-gpu --harness --gpu-tile "$t" "$CASE" >"$M/$n.t$l.py"
  args="$args t$l=$M/$n.t$l.py $(python3 tools/device/probe_align.py "$M/$n.t$l.py" "$M" a$l)"
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
