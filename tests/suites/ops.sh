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
  mkdir "$tmp/self"
  python3 tests/torch/selftest.py "$tmp/self" tests/run/seed.py:seed_small \
    tests/run/promotion.py:int_reductions tests/run/pointwise.py:comparisons \
    tests/run/promotion.py:bf16_scalars tests/run/reductions.py:sum_forms ||
    echo "FAIL compare_self: selftest.py exited $?"
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
    echo "skip $name: torch not installed (coil ran; nothing compared it with PyTorch)"
  else
    echo "$f $d --fn $fn" >>"$tmp/list"
  fi
done <"$tmp/work"
# --- the same functions through coil run's options: --arg (other shapes and
# dtypes than annotated), --seed, and --inputs with files PyTorch wrote
# (values coil's own generator never makes: negative ints, random bools;
# strided views, which coil lays out into their storage).
# NAME|FILE|OPTIONS; an "inputs_" case first saves torch's inputs in IN.
cat >"$tmp/cli" <<'EOF_CASES'
arg_seed_shape|tests/run/seed.py|--fn seed_small --arg 'grad_out_base=f32[2, 6, 3, 16]' --arg 'q=bf16[2, 3, 6, 16]' --arg 'q_square_sum=f32[2, 3, 6] uniform(1, 2)'
arg_sum_f64|tests/run/reductions.py|--fn sum_forms --arg 'x=f64[4, 6, 9]'
arg_softmax|examples/softmax.py|--arg 'x=f32[3, 17]'
arg_activations_bf16|examples/activations.py|--arg 'x=bf16[5, 33]'
arg_broadcast|tests/run/pointwise.py|--fn binary_broadcast --arg 'a=f32[2, 1, 9]' --arg 'b=f32[4, 1]' --arg 'c=f32[9]'
arg_shape_arithmetic|tests/run/views.py|--fn shape_arithmetic --arg 'x=f32[4, 3, 9]'
seed_7|tests/run/reductions.py|--fn var_std_forms --seed 7
inputs_bool|tests/run/pointwise.py|--fn bool_inputs
inputs_ints|tests/run/promotion.py|--fn int_tensor_ops
inputs_i64|tests/run/promotion.py|--fn i64_ops
inputs_casts|tests/run/casts.py|--fn cast_from_ints
inputs_half|tests/run/promotion.py|--fn half_types
inputs_seed|tests/run/seed.py|--fn seed_odd
inputs_masked_mean|examples/masked_mean.py|
inputs_strided_expanded|tests/run/strides.py|--fn expanded
inputs_strided_seed|tests/run/strides.py|--fn seed_permuted_view
EOF_CASES
: >"$tmp/tsave"
while IFS='|' read -r name f opts; do
  case $name in inputs_*) echo "$f $tmp/cli_$name.in $opts" >>"$tmp/tsave";; esac
done <"$tmp/cli"
if [ -s "$tmp/tsave" ] && [ $have_torch -eq 1 ]; then
  python3 tests/torch/torch_save.py --batch "$tmp/tsave" >"$tmp/tsave.log" 2>&1 ||
    echo "FAIL torch_save_inputs: $(grep -m 1 error "$tmp/tsave.log")"
fi
while IFS='|' read -r name f opts; do
  d="$tmp/cli_$name"
  in=
  case $name in inputs_*)
    [ $have_torch -eq 1 ] || { echo "skip $name: torch not installed"; continue; }
    in="--inputs $d.in";;
  esac
  eval "\"\$COIL\" run \"\$f\" $opts $in --save \"\$d\"" >"$d.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    why=$(grep -m 1 -i 'error' "$d.log" || tail -n 1 "$d.log")
    echo "FAIL $name: coil run $opts exited $rc: $(echo "$why" | cut -c1-300)"
  elif [ $have_torch -eq 0 ]; then
    echo "skip $name: torch not installed (coil ran; nothing compared it with PyTorch)"
  else
    echo "$f $d $opts $in --name $name" >>"$tmp/list"
  fi
done <"$tmp/cli"

if [ -s "$tmp/list" ]; then
  python3 tests/torch/compare.py --batch "$tmp/list"
fi
exit 0
