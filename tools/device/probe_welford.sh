#!/bin/sh
# Bench case 14 with Welford's state in f32 against coil's f64 shifted sums:
#   OUT=DIR sh tools/device/probe_welford.sh
# Emits the case's module, writes the variants (tools/device/probe_welford.py)
# and times them in one process with tools/device/gpu_bench.py: $OUT/bench.md.
set -e
. tools/device/probe_env.sh
"$COIL" emit --target triton-gpu --harness bench/cases/14_nhwc_col_var_f32.py >"$M/c14.py"
v=$(python3 tools/device/probe_welford.py "$M/c14.py" "$M")
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py coil=$M/c14.py $v
