#!/bin/sh
# Column reductions with f64 sums (var and std of f32: bench/probes/f64_col_stats.py)
# and with f32 sums (bench cases 03 and 09), each at the model's tile and at
# half the warps with the loop unrolled twice (--autotune's candidate), in one
# process with tools/device/gpu_bench.py:
#   OUT=DIR sh tools/device/probe_f64_cols.sh
set -e
. tools/device/probe_env.sh
args=""
emit() { # NAME FILE [--fn FN]
  n=$1; shift
  "$COIL" emit --target triton-gpu --harness "$@" >"$M/$n.py"
  "$COIL" emit --target triton-gpu --harness --gpu-unroll 2 --gpu-tile 0,0,0,4 "$@" >"$M/$n.u2w4.py"
  args="$args coil=$M/$n.py u2w4=$M/$n.u2w4.py"
}
for fn in nhwc_var col_var col_std3 narrow_var col_var_mean; do
  emit "$fn" bench/probes/f64_col_stats.py --fn "$fn"
done
emit c03 bench/cases/03_col_sum_f32.py
emit c09 bench/cases/09_odd_col_mean_f32.py
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
