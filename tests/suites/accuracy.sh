#!/bin/sh
# accuracy: long sums keep their precision.  The seed case's f32 sum over
# 2x4096x64 = 524288 terms per output (tests/accuracy/seed_f32.py, the seed
# without its final cast to bf16) must be within 1e-5 of the float64 result,
# relative to the result's size (max |got - f64| <= 1e-5 * max |f64|; coil
# run prints the first against its float64 evaluation).  Element by element
# a relative bound cannot hold for outputs that cancel to near zero: the
# products alone, rounded to f32 as PyTorch rounds them, already differ from
# float64 by about 1e-3 in absolute terms.
: "${COIL:?COIL must name the coil binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$COIL" run tests/accuracy/seed_f32.py --save "$tmp/out" >"$tmp/log" 2>&1; then
  echo "FAIL accuracy/seed_f32_run: $(tail -n 3 "$tmp/log" | tr '\n' ' ')"
  exit 0
fi
err=$(sed -n 's/^max abs err \([^,]*\),.*/\1/p' "$tmp/log")
python3 - "$tmp/out/out0.npy" "$err" <<'PY' && echo "ok accuracy/seed_f32_within_1e-5" || echo "FAIL accuracy/seed_f32_within_1e-5"
import sys
import numpy as np
out = np.load(sys.argv[1]).astype(np.float64)
err = float(sys.argv[2])
scale = np.abs(out).max()
rel = err / scale
print("max abs err vs float64 %.3g, max |out| %.6g, relative %.3g (bar 1e-5)" % (err, scale, rel))
sys.exit(0 if rel <= 1e-5 else 1)
PY

# The rest of model code's math (tests/run/math2.py): every float result of
# the C target (SLEEF's vector functions where installed, and libm's calls)
# and the Triton executor within 2 ulp of PyTorch's CPU result, over 32K
# inputs per function and dtype (tests/accuracy/math_ulp.py).
if python3 -c 'import torch, numpy' 2>/dev/null; then
  mkdir "$tmp/ulp"
  python3 tests/accuracy/math_ulp.py "$COIL" "$tmp/ulp" c triton-gpu
  COIL_NO_SLEEF=1 python3 tests/accuracy/math_ulp.py "$COIL" "$tmp/ulp" c
  rm -rf "$tmp/ulp"
else
  echo "skip accuracy/math_ulp: torch not installed"
fi

# The sums do not depend on the number of threads: split reductions combine
# their parts in part order, and each task's work is fixed by its number.
for f in examples/column_stats.py examples/softmax.py tests/golden/seed_emit.py; do
  name=$(basename "$f" .py)
  ok=1
  for t in 1 2 3; do
    OMP_NUM_THREADS=$t "$COIL" run "$f" --save "$tmp/t$t" >/dev/null 2>&1 || ok=0
  done
  for o in "$tmp"/t1/out*.npy; do
    b=$(basename "$o")
    cmp -s "$o" "$tmp/t2/$b" && cmp -s "$o" "$tmp/t3/$b" || ok=0
  done
  [ $ok -eq 1 ] && echo "ok accuracy/same_bits_any_threads_$name" || echo "FAIL accuracy/same_bits_any_threads_$name"
  rm -rf "$tmp"/t1 "$tmp"/t2 "$tmp"/t3
done
exit 0
