#!/bin/sh
# Case 10 (bf16 rows of 13001: no row starts on 16 bytes) as emitted and read
# as aligned groups of rows (tools/device/probe_rowgroup.py), at VARIANTS
# ("G,RBLOCK,WARPS ..."), in one process with gpu_bench.py:
#   OUT=DIR [CASE=bench/cases/NAME.py] [VARIANTS="8,4096,8 ..."] sh tools/device/probe_rowgroup.sh
set -e
. tools/device/probe_env.sh
CASE=${CASE:-bench/cases/10_odd_row_sumsq_bf16.py}
VARIANTS=${VARIANTS:-8,1024,4 8,2048,4 8,2048,8 8,4096,8 8,4096,16 8,8192,16 16,4096,8 16,8192,16 32,4096,8}
n=$(basename "$CASE" .py)
"$COIL" emit --target triton-gpu --harness "$CASE" >"$M/$n.py"
args="coil=$M/$n.py"
for v in $VARIANTS; do
  l=g$(echo "$v" | tr ',' '_')
  # shellcheck disable=SC2046
  args="$args $(python3 tools/device/probe_rowgroup.py "$M/$n.py" "$M" "$l" $(echo "$v" | tr ',' ' '))"
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
