#!/bin/sh
# One bench case at several tiles, in one process against torch.compile and a read:
#   OUT=DIR CASE=bench/cases/NAME.py TILES="X,R,S,W ..." sh tools/device/probe_tiles.sh
# FN=NAME picks one function of a file with several (bench/probes/*.py).
# Each tile is a `--gpu-tile X,R,S,W` (XBLOCK, RBLOCK, split parts, num_warps;
# powers of two, 0 the model's); the model's own module is labelled coil.
# Times them with tools/device/gpu_bench.py: $OUT/bench.md, bench.jsonl.
set -e
. tools/device/probe_env.sh
n=$(basename "$CASE" .py)${FN:+.$FN}
"$COIL" emit --target triton-gpu --harness ${FN:+--fn "$FN"} "$CASE" >"$M/$n.py"
args="coil=$M/$n.py"
for t in $TILES; do
  l=t$(echo "$t" | tr ',' '_')
  "$COIL" emit --target triton-gpu --harness --gpu-tile "$t" ${FN:+--fn "$FN"} "$CASE" >"$M/$n.$l.py"
  args="$args $l=$M/$n.$l.py"
done
# shellcheck disable=SC2086
OUT=$OUT PYTHONUNBUFFERED=1 python3 tools/device/gpu_bench.py $args
