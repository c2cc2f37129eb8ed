#!/bin/sh
# The bench suite in the GPU dialect against torch.compile and a pure read, on a GPU:
#   OUT=DIR sh tools/device/gpu_bench.sh [OLD_COIL]
# Builds coil (make build/coil) unless $COIL names a binary, emits every
# bench/cases/*.py with `coil emit --target triton-gpu --harness` (and, given
# OLD_COIL, the same with that binary, labelled "before"), and times them all
# in one process with tools/device/gpu_bench.py: $OUT/bench.md, bench.jsonl.
# EXTRA="--gpu-tile 0,0,0,8" adds a variant labelled "extra" with those options;
# VARIANTS="u2:--gpu-unroll 2;w4:--gpu-tile 0,0,0,4" one variant per LABEL:OPTIONS.
set -e
OUT=${OUT:-gpu_bench_out}
mkdir -p "$OUT/modules"
COIL=$(LOG="$OUT/make.log" sh tools/device/coil_bin.sh) || exit 2
args=""
for f in bench/cases/*.py; do
  n=$(basename "$f" .py)
  if [ -n "${1:-}" ]; then
    "$1" emit --target triton-gpu --harness "$f" >"$OUT/modules/$n.before.py"
    args="$args before=$OUT/modules/$n.before.py"
  fi
  "$COIL" emit --target triton-gpu --harness "$f" >"$OUT/modules/$n.py"
  args="$args coil=$OUT/modules/$n.py"
  if [ -n "${EXTRA:-}" ]; then
    # shellcheck disable=SC2086
    "$COIL" emit --target triton-gpu --harness $EXTRA "$f" >"$OUT/modules/$n.extra.py"
    args="$args extra=$OUT/modules/$n.extra.py"
  fi
  if [ -n "${VARIANTS:-}" ]; then
    rest=$VARIANTS
    while [ -n "$rest" ]; do
      v=${rest%%;*}
      case $rest in *";"*) rest=${rest#*;} ;; *) rest= ;; esac
      label=${v%%:*}
      # shellcheck disable=SC2086
      "$COIL" emit --target triton-gpu --harness ${v#*:} "$f" >"$OUT/modules/$n.$label.py"
      args="$args $label=$OUT/modules/$n.$label.py"
    done
  fi
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
