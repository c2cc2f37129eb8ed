#!/bin/sh
# Regression tests: each tests/regress/*.py reproduced a bug (its header
# says which).  coil run must pass on every target (C, and the two Triton
# dialects through coil's executor), and the C outputs must match PyTorch
# (bit for bit in files with a line "# exact"; NaN equal to NaN in files with
# a line "# equal-nan").
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tests/regress/*.py; do
  name=$(basename "$f" .py)
  nan=
  grep -q '^# equal-nan' "$f" && nan=--equal-nan
  # shellcheck disable=SC2086
  if ! "$COIL" run "$f" $nan --save "$tmp/$name" >"$tmp/$name.log" 2>&1; then
    echo "FAIL regress/$name: $(tail -n 2 "$tmp/$name.log" | tr '\n' ' ')"
  elif ! python3 tests/torch/compare.py "$f" "$tmp/$name" $nan $(grep -q '^# exact' "$f" && echo --exact) >"$tmp/$name.cmp" 2>&1; then
    echo "FAIL regress/$name: vs PyTorch: $(tail -n 2 "$tmp/$name.cmp" | tr '\n' ' ')"
  else
    echo "ok regress/$name"
  fi
  for t in triton-npu triton-gpu; do
    # shellcheck disable=SC2086
    if "$COIL" run "$f" $nan --target $t >"$tmp/$name.$t.log" 2>&1; then echo "ok regress/$name/$t"
    else echo "FAIL regress/$name/$t: $(tail -n 2 "$tmp/$name.$t.log" | tr '\n' ' ')"; fi
  done
done
