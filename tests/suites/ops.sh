#!/bin/sh
# ops: every annotated function in tests/run/*.py, plus the generated subset
# tests (tests/run/gen_subsets.py: sum, amax and mean over each non-empty
# subset of the dims of a permuted 3x5x7x11 input), is run with
# `coil run FILE --fn NAME --save DIR` (must exit 0: coil's compiled code
# matches its own eager reference) and what coil saved is compared with
# PyTorch eager (tests/torch/compare.py).  One line per function,
# "ok FILE:NAME" or "FAIL FILE:NAME: why".
#
# First, compare.py itself must be able to fail: outputs that PyTorch saved
# (tests/torch/torch_save.py) must pass, and the same outputs with one value,
# the shape or the dtype changed must not.
: "${COIL:?COIL must name the coil binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
have_torch=1
python3 -c 'import torch, numpy' 2>/dev/null || have_torch=0

# --- compare.py self-test (needs torch, not coil)
if [ $have_torch -eq 1 ]; then
  for case in "seed.py seed_small" "promotion.py int_reductions" "pointwise.py comparisons" \
              "promotion.py bf16_scalars" "reductions.py sum_forms"; do
    set -- $case
    f=tests/run/$1 fn=$2
    d="$tmp/self_$fn"
    if ! python3 tests/torch/torch_save.py "$f" "$d" --fn "$fn" >"$d.log" 2>&1; then
      echo "FAIL compare_self_$fn: torch_save: $(tail -n 1 "$d.log")"
      continue
    fi
    python3 tests/torch/compare.py "$f" "$d" --fn "$fn" >"$d.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] && echo "ok compare_self_${fn}_accepts_torch" ||
      echo "FAIL compare_self_${fn}_accepts_torch: status $rc: $(cat "$d.log")"
    for kind in value shape dtype; do
      dc="$d.$kind"
      python3 tests/torch/torch_save.py "$f" "$dc" --fn "$fn" --corrupt $kind >/dev/null 2>&1
      python3 tests/torch/compare.py "$f" "$dc" --fn "$fn" >"$dc.log" 2>&1
      rc=$?
      [ $rc -eq 1 ] && echo "ok compare_self_${fn}_rejects_$kind" ||
        echo "FAIL compare_self_${fn}_rejects_$kind: status $rc (want 1): $(cat "$dc.log")"
    done
  done
fi

# --- the run tests
mkdir "$tmp/gen"
if ! python3 tests/run/gen_subsets.py "$tmp/gen" >"$tmp/gen.log" 2>&1; then
  echo "FAIL gen_subsets: $(tail -n 3 "$tmp/gen.log")"
fi
python3 tests/torch/list_fns.py tests/run/*.py "$tmp"/gen/*.py >"$tmp/fns" || {
  echo "FAIL list_fns: cannot list the test functions"; exit 0; }

# Run coil on each function, $jobs at a time; each job leaves DIR/rc and
# DIR/log.
i=0
while read -r f fn; do
  i=$((i + 1))
  echo "$f $fn $tmp/out/$i"
done <"$tmp/fns" >"$tmp/work"
mkdir "$tmp/out"
run_one='f=$1 fn=$2 d=$3; mkdir -p "$d"
  if command -v timeout >/dev/null; then t="timeout 300"; else t=; fi
  $t "$COIL" run "$f" --fn "$fn" --save "$d" >"$d.log" 2>&1; echo $? >"$d.rc"'
export COIL
xargs -P "$jobs" -L 1 sh -c "$run_one" sh <"$tmp/work"

: >"$tmp/list"
while read -r f fn d; do
  name="$(basename "$f" .py):$fn"
  rc=$(cat "$d.rc" 2>/dev/null || echo "?")
  if [ "$rc" != 0 ]; then
    why=$(grep -m 1 -i 'error' "$d.log" || tail -n 1 "$d.log")
    echo "FAIL $name: coil run exited $rc: $(echo "$why" | cut -c1-300)"
  elif [ $have_torch -eq 0 ]; then
    echo "ok $name # torch not installed: coil run only"
  else
    echo "$f $d $fn" >>"$tmp/list"
  fi
done <"$tmp/work"
if [ -s "$tmp/list" ]; then
  python3 tests/torch/compare.py --batch "$tmp/list"
fi
exit 0
