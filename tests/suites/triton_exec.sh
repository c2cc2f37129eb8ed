#!/bin/sh
# The Triton executor (src/tx/): unit tests, the command line, the seed's
# kernels at full size, and agreement with Triton's own interpreter.
#
# The command is `coil triton-run` (src/cmd/triton_run.c).
BUILD=${BUILD:-build}
T=tests/triton
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

: "${COIL:?COIL must name the coil binary}"
TX="$COIL"

# Unit tests: broadcasting, shapes, reductions, promotion, masks, errors.
"$BUILD/test/tx_test" || [ $? -eq 1 ] || echo "FAIL tx_test: crashed"

# The seed's buggy kernel, as published, from the command line at full
# size: Triton's broadcast error at its tl.store, as file:line:col.  Its
# loads run before the store, so the arguments have the seed's sizes.
seed_args="in_ptr0=zeros:f32[2,64,4096,128] in_ptr1=zeros:bf16[2,4096,64,128]
  in_ptr2=zeros:f32[2,4096,64] out_ptr1=zeros:f32[128] x0_numel=128 r3_numel=2
  r2_numel=4096 r1_numel=64 X0BLOCK=16 X0BLOCK_SUB=16 R3BLOCK_SUB=2 R2BLOCK_SUB=16
  R1BLOCK_SUB=16"
# shellcheck disable=SC2086
"$TX" triton-run $T/seed_buggy.py --grid 8 $seed_args >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] &&
   grep -q "^$T/seed_buggy.py:46:17: error: Cannot make_shape_compatible: incompatible dimensions at index 3: 16 and 512" "$tmp/err" &&
   grep -q "tl.store(out_ptr1" "$tmp/err"; then
  echo "ok cli_seed_buggy_store_error"
else
  echo "FAIL cli_seed_buggy_store_error: status $rc: $(head -3 "$tmp/err")"
fi

# The fixed kernel from the command line (all zeros in, zeros out), saved.
# shellcheck disable=SC2086
if "$TX" triton-run $T/seed_fixed.py --grid 8 $seed_args --save "$tmp/save" 2>"$tmp/err" &&
   [ -s "$tmp/save/out_ptr1.npy" ] && [ -s "$tmp/save/in_ptr1.npy" ]; then
  echo "ok cli_seed_fixed_runs_and_saves"
else
  echo "FAIL cli_seed_fixed_runs_and_saves: $(head -3 "$tmp/err")"
fi

# Command-line errors are the user's: status 2 and a message.
"$TX" triton-run $T/seed_fixed.py --grid 8 in_ptr0=@"$tmp/missing.npy" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "missing.npy" "$tmp/err"; then
  echo "ok cli_missing_input_file"
else
  echo "FAIL cli_missing_input_file: status $rc: $(head -2 "$tmp/err")"
fi
"$TX" triton-run $T/seed_fixed.py --grid 8 x0_numel=128 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "missing argument for parameter 'in_ptr0'" "$tmp/err"; then
  echo "ok cli_missing_argument"
else
  echo "FAIL cli_missing_argument: status $rc: $(head -2 "$tmp/err")"
fi

# The full seed size (67M elements) in process: fixed kernel against a
# float64 reference with dividing blocks and with tails, the buggy kernel's
# error and its wrong partial sums with a broadcasting store, and a timing
# against a plain C loop.
"$BUILD/test/tx_seed" $T || [ $? -eq 1 ] || echo "FAIL tx_seed: crashed"

# Agreement with real Triton (its interpreter, on small shapes).  The
# script prints FAIL itself when numpy, torch or triton are missing.
if command -v python3 >/dev/null 2>&1; then
  python3 $T/compare_triton.py "$TX" triton-run 2>"$tmp/err" || [ $? -eq 1 ] ||
    echo "FAIL compare_triton: crashed: $(tail -3 "$tmp/err")"
else
  echo "FAIL compare_triton: python3 not found"
fi
# coil's own Triton output (both dialects, several examples) run by the
# executor, launch by launch, against Triton's interpreter and PyTorch.
if [ "$TX" = "$COIL" ]; then
  python3 $T/run_emitted.py "$COIL" 2>"$tmp/err" || [ $? -eq 1 ] ||
    echo "FAIL run_emitted: crashed: $(tail -3 "$tmp/err")"
else
  echo "FAIL run_emitted: $COIL does not run triton-run"
fi
# Arg-reductions (tests/run/argred.py, and aten.py's ATen spellings) and
# scans (tests/run/scans.py, whose long axes are scanned block by block) in
# both dialects through the executor at their annotated sizes, where the
# plans split the long rows: coil run checks them against its reference
# (the ops suite checks that against PyTorch).
python3 tests/torch/list_fns.py tests/run/argred.py tests/run/scans.py >"$tmp/argred" || echo "FAIL argred/list: cannot list the functions"
echo "tests/run/aten.py argreductions" >>"$tmp/argred"
while read -r f fn; do
  for t in triton-npu triton-gpu; do
    if "$COIL" run "$f" --fn "$fn" --target $t >"$tmp/argred.log" 2>&1; then echo "ok argred/$fn/$t"
    else echo "FAIL argred/$fn/$t: $(grep -m 1 -i 'error\|differ' "$tmp/argred.log" | cut -c1-300)"; fi
  done
done <"$tmp/argred"
# Splits whose parts a second launch or the last part's block combines
# (coil run takes coil emit's --gpu-* options), through the executor: its
# programs run on several threads, so the last block's count and loads of
# the parts cross threads as they cross blocks on a GPU.
for fn in scaled_col_sum col_argmax full_sum col_stats col_var; do
  for m in launch last; do
    # The summary's first line names the launches that ran: the forced
    # form must be the one the executor ran.
    case $m in
      last) form="launch: coil_${fn}_k0 (.*) combined by the block whose part ends last$" ;;
      *) form="launches: coil_${fn}_k0 (.*), coil_${fn}_k0_combine (.*)$" ;;
    esac
    if "$COIL" run tests/triton_golden/last_combine.py --fn $fn --target triton-gpu --gpu-combine $m >"$tmp/lc.log" 2>&1; then
      if head -n 1 "$tmp/lc.log" | grep -q "$form"; then echo "ok combine/$fn/$m"
      else echo "FAIL combine/$fn/$m: ran another form: $(head -n 1 "$tmp/lc.log" | cut -c1-300)"; fi
    else
      echo "FAIL combine/$fn/$m: $(grep -m 1 -i 'error\|differ' "$tmp/lc.log" | cut -c1-300)"
    fi
  done
done
# coil run's Triton options: not for the C target, and not emit's own
"$COIL" run tests/triton_golden/last_combine.py --fn full_sum --gpu-combine last >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "need --target triton-npu or triton-gpu" "$tmp/out"; then echo "ok cli_run_triton_option_needs_target"
else echo "FAIL cli_run_triton_option_needs_target: status $rc: $(head -2 "$tmp/out")"; fi
"$COIL" run tests/triton_golden/last_combine.py --fn full_sum --target triton-gpu --harness >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "are options of coil emit" "$tmp/out"; then echo "ok cli_run_emit_only_option"
else echo "FAIL cli_run_emit_only_option: status $rc: $(head -2 "$tmp/out")"; fi
exit 0
