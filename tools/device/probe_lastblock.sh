#!/bin/sh
# Every bench case whose module has a split reduction, as emitted and with
# the combine run by the last part's block (tools/device/probe_lastblock.py),
# in one process with tools/device/gpu_bench.py:
#   OUT=DIR sh tools/device/probe_lastblock.sh
set -e
. tools/device/probe_env.sh
args=""
for f in bench/cases/*.py; do
  n=$(basename "$f" .py)
  "$COIL" emit --target triton-gpu --harness "$f" >"$M/$n.py"
  if v=$(python3 tools/device/probe_lastblock.py "$M/$n.py" "$M" last 2>/dev/null); then
    args="$args coil=$M/$n.py $v"
  fi
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
