#!/bin/sh
# Golden tests: each tests/golden/NAME.py starts with a line
#   # coil: ARGS
# naming the coil command (e.g. "dump -d kernel"); its output must equal
# tests/golden/NAME.out.  These pin design decisions (one kernel for the
# seed, where accumulators live, the loads' affine indices, fusion counts).
# Regenerate an expected file with: COIL_UPDATE_GOLDEN=1 make check.
for f in tests/golden/*.py; do
  name=$(basename "$f" .py)
  args=$(sed -n '1s/^# coil: //p' "$f")
  want=tests/golden/$name.out
  got=$(mktemp)
  # shellcheck disable=SC2086
  "$COIL" $args "$f" >"$got" 2>&1
  if [ -n "$COIL_UPDATE_GOLDEN" ]; then cp "$got" "$want"; fi
  if [ ! -f "$want" ]; then
    echo "FAIL golden/$name: no expected output $want"
  elif cmp -s "$got" "$want"; then
    echo "ok golden/$name"
  else
    echo "FAIL golden/$name: output differs from $want:"
    diff "$want" "$got" | head -20
  fi
  rm -f "$got"
done
