#!/bin/sh
# examples: every examples/*.py must compile and run (`coil run FILE --save
# DIR` exits 0: its outputs match coil's own eager reference), and what coil
# saved must match PyTorch eager on the CPU (tests/torch/compare.py: output
# count, shapes, dtypes, values within dtype tolerances).  One line per
# example: ok NAME, or FAIL NAME with the stage that failed.  Each example is
# also a PyTorch script: `python3 FILE` must run (ok script_NAME).
: "${COIL:?COIL must name the coil binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_torch=1
python3 -c 'import torch, numpy' 2>/dev/null || have_torch=0

: >"$tmp/list"
for f in examples/*.py; do
  name=$(basename "$f" .py)
  d="$tmp/$name"
  mkdir -p "$d"
  "$COIL" run "$f" --save "$d" >"$tmp/$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: coil run exited $rc: $(tail -n 3 "$tmp/$name.log" | tr '\n' ' ' | cut -c1-300)"
    continue
  fi
  if [ $have_torch -eq 0 ]; then
    echo "skip $name: torch not installed (coil ran; nothing compared it with PyTorch)"
    continue
  fi
  echo "$f $d" >>"$tmp/list"
done
if [ -s "$tmp/list" ]; then
  python3 tests/torch/compare.py --batch "$tmp/list"
fi
if [ $have_torch -eq 1 ]; then
  ls examples/*.py | xargs -P "${JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 1 sh -c '
    name=$(basename "$1" .py)
    if out=$(python3 "$1" 2>&1); then echo "ok script_$name"
    else echo "FAIL script_$name: python3 $1: $(echo "$out" | tail -n 1)"; fi' sh
fi
exit 0
