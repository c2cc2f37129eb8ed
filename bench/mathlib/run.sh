#!/bin/sh
# The SLEEF / libmvec / libm measurement of docs/bench.md ("Vector math
# libraries"): builds vecmath.c four ways, times each function over 1M f32
# values (best of REPS), and checks accuracy against double and PyTorch.
# Needs libsleef-dev (Debian) and PyTorch.  Usage: sh bench/mathlib/run.sh [N] [REPS]
set -e
n=${1:-1000000}
reps=${2:-20}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
here=$(dirname "$0")
cc=${CC:-cc}
flags="-std=c11 -O3 -march=native -fno-math-errno -fopenmp"
$cc $flags -DV_LIBM "$here/vecmath.c" -o "$d/libm" -lm
$cc $flags -DV_SIMD "$here/vecmath.c" -o "$d/libmvec" -lmvec -lm
$cc $flags -DV_SIMD "$here/vecmath.c" -o "$d/sleefgnuabi" -lsleefgnuabi -lm
$cc $flags -DV_SLEEF "$here/vecmath.c" -o "$d/sleef" -lsleef -lm
python3 "$here/inputs.py" "$d/in.bin" "$n"
for v in libm libmvec sleefgnuabi sleef; do
  echo "== $v"
  "$d/$v" "$d/in.bin" "$n" "$d/$v" "$reps"
done
python3 "$here/accuracy.py" "$d/in.bin" "$n" "$d/libm" "$d/libmvec" "$d/sleefgnuabi" "$d/sleef"
