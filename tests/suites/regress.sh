#!/bin/sh
# Regression tests: each tests/regress/*.py reproduced a bug (its header
# says which).  coil run must pass, and its saved outputs must match PyTorch.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tests/regress/*.py; do
  name=$(basename "$f" .py)
  if ! "$COIL" run "$f" --save "$tmp/$name" >"$tmp/$name.log" 2>&1; then
    echo "FAIL regress/$name: $(tail -n 2 "$tmp/$name.log" | tr '\n' ' ')"
  elif ! python3 tests/torch/compare.py "$f" "$tmp/$name" >"$tmp/$name.cmp" 2>&1; then
    echo "FAIL regress/$name: vs PyTorch: $(tail -n 2 "$tmp/$name.cmp" | tr '\n' ' ')"
  else
    echo "ok regress/$name"
  fi
done
