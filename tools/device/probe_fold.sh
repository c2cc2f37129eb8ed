#!/bin/sh
# f64-sum column reductions (bench/probes/f64_col_stats.py, bench case 14) at
# the model's tile against the loop in f32 folded into f64 sums every few
# steps, at larger tiles (tools/device/probe_fold.py), with errors against
# f64 (ERR=1), in one process with tools/device/gpu_bench.py:
#   OUT=DIR sh tools/device/probe_fold.sh
set -e
. tools/device/probe_env.sh
args=""
variants() { # NAME XBLOCK FILE [--fn FN]
  n=$1 x=$2; shift 2
  "$COIL" emit --target triton-gpu --harness "$@" >"$M/$n.py"
  args="$args coil=$M/$n.py"
  args="$args $(python3 tools/device/probe_fold.py "$M/$n.py" "$M" f32 0)"
  for t in "$x,$((8192 / x)),0,8" "$x,$((4096 / x)),0,8" "$x,$((4096 / x)),0,4"; do
    l=$(echo "$t" | cut -d, -f2-2)r$(echo "$t" | cut -d, -f4)w
    "$COIL" emit --target triton-gpu --harness --gpu-tile "$t" "$@" >"$M/$n.t$l.py"
    for f in 8 4 2; do
      if v=$(python3 tools/device/probe_fold.py "$M/$n.t$l.py" "$M" "fold$l" $f 2>/dev/null); then
        args="$args $v"
        break
      fi
    done
    if [ "$t" = "$x,$((8192 / x)),0,8" ]; then
      args="$args $(python3 tools/device/probe_fold.py "$M/$n.t$l.py" "$M" "f32_$l" 0)"
    fi
  done
}
variants c14 32 bench/cases/14_nhwc_col_var_f32.py
variants nhwc 32 bench/probes/f64_col_stats.py --fn nhwc_var --arg 'x=f32[64, 56, 56, 160] uniform(100, 101)'
variants col_var 128 bench/probes/f64_col_stats.py --fn col_var
variants col_std3 128 bench/probes/f64_col_stats.py --fn col_std3
variants narrow_var 32 bench/probes/f64_col_stats.py --fn narrow_var
variants col_var_mean 128 bench/probes/f64_col_stats.py --fn col_var_mean
# shellcheck disable=SC2086
ERR=1 OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
