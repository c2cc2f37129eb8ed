#!/bin/sh
# Every bench case as emitted (Triton's default num_stages, 3) beside the same
# module launched with num_stages=1 (Inductor's choice for reductions) and 2,
# in one process with gpu_bench.py:
#   OUT=DIR [CASES="bench/cases/02_row_sum_f32.py ..."] [STAGES="1 2"] sh tools/device/probe_stages.sh
set -e
. tools/device/probe_env.sh
CASES=${CASES:-$(ls bench/cases/*.py)}
STAGES=${STAGES:-1 2}
opts="COIL_LAUNCH_OPTIONS = {'enable_reflect_ftz': False}"
args=""
for f in $CASES; do
  n=$(basename "$f" .py)
  "$COIL" emit --target triton-gpu --harness "$f" >"$M/$n.py"
  args="$args coil=$M/$n.py"
  for s in $STAGES; do
    new="COIL_LAUNCH_OPTIONS = {'enable_reflect_ftz': False, 'num_stages': $s}"
    args="$args $(python3 tools/device/probe_variants.py "$M/$n.py" "$M" "s$s:$opts=>$new")"
  done
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
