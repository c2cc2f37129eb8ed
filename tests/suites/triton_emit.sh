#!/bin/sh
# triton_emit: the Triton backends (coil emit --target triton-npu|triton-gpu).
#
#  golden/   tests/triton_golden/NAME.py emitted with the arguments listed
#            below must equal tests/triton_golden/NAME.TAG.out: the seed's
#            NPU and GPU modules and tile models, a harness script, and a few
#            others (three kernels with temps, // and % loads with two x
#            axes, integers with two reduction groups, int64 indices past
#            2^31 elements, padded reads and index values), and GPU modules with --gpu-loads tma (tensor
#            descriptors; one of a strided input).  Rewrite them with COIL_UPDATE_GOLDEN=1 make check.
#  interp/   every annotated function of examples/*.py, tests/run/*.py (and
#            the subsets tests/run/gen_subsets.py writes), tests/golden/*.py,
#            tests/triton_golden/*.py, tests/triton_interp/extra.py and
#            tests/triton_interp/tma.py, in both dialects (and the GPU
#            dialect with --gpu-loads tma where some load takes a
#            descriptor), emitted with --harness and run under
#            TRITON_INTERPRET=1 on the CPU by tests/triton_interp/run.py,
#            which checks every output against eager PyTorch.  Large
#            annotated shapes are replaced (--arg) by small odd ones; the seed
#            runs at reduced shapes with tails; some runs take a small tile
#            model (--npu-cores, --npu-ub-kb) so that every axis has several
#            sub-blocks and a tail, and x blocks loop.
#  compile/  the modules of examples/, tests/golden/, tests/triton_golden/,
#            extra.py and tma.py at their annotated shapes (the tma modules
#            too), compiled by real Triton for sm_90 (to cubin, with the
#            ptxas Triton ships; no GPU needed): what the GPU run will
#            compile (tests/triton_interp/compile_check.py).
#            tests/run's functions are left to tools/device/gpu_check.sh, for time.
#  autotune/ modules emitted with --autotune: every candidate checked, the
#            cache of the choice (tests/triton_interp/autotune.py).
#  reference/ the harness's check on a device: an output that differs from
#            that device's eager passes where CPU eager gives it
#            (tests/triton_interp/reference.py).
#  repeat/   splits whose last part's block combines, called three times on
#            one set of buffers: right every time, their counters zero
#            again after each call (tests/triton_interp/repeat.py).
#  control/  modules broken on purpose must FAIL that check: the seed's bug
#            (the accumulator reset inside the reduction loops), a masked
#            lane that contributes 0 to an amax of negative numbers, and a
#            descriptor load that ignores the tile's start.
#  cli/      unknown targets and misplaced options are errors (status 2).
#
# If python3 cannot import torch and triton, the interp and control tests
# print FAIL: this suite never passes without running the kernels.
: "${COIL:?COIL must name the coil binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- golden
golden() { # TAG ARGS... (the file is the last argument)
  tag=$1; shift
  want=tests/triton_golden/$tag.out
  "$COIL" emit "$@" >"$tmp/golden.out" 2>&1
  if [ -n "$COIL_UPDATE_GOLDEN" ]; then cp "$tmp/golden.out" "$want"; fi
  if [ ! -f "$want" ]; then
    echo "FAIL triton/golden/$tag: no expected output $want"
  elif cmp -s "$tmp/golden.out" "$want"; then
    echo "ok triton/golden/$tag"
  else
    echo "FAIL triton/golden/$tag: output differs from $want:"
    diff "$want" "$tmp/golden.out" | head -20
  fi
}
G=tests/triton_golden
golden seed.npu --target triton-npu $G/seed.py
golden seed.gpu --target triton-gpu $G/seed.py
golden seed.npu.tile --target triton-npu -d triton $G/seed.py
golden seed.gpu.tile --target triton-gpu -d triton $G/seed.py
golden seed.npu.cores8 --target triton-npu --npu-cores 8 --npu-ub-kb 64 -d triton $G/seed.py
golden seed.gpu.harness --target triton-gpu --harness $G/seed.py
golden softmax.npu --target triton-npu $G/softmax.py
golden softmax.gpu --target triton-gpu $G/softmax.py
golden views.npu --target triton-npu $G/views.py
golden views.gpu --target triton-gpu $G/views.py
golden ints.npu --target triton-npu $G/ints.py
golden ints.gpu --target triton-gpu $G/ints.py
golden wide.npu --target triton-npu $G/wide.py
golden wide.gpu --target triton-gpu $G/wide.py
# chains (a row statistic and the kernels that read it back, one launch;
# --gpu-sms 2 so that 6 rows are enough): the row held in registers and read
# once, its tile model, the same in a loop over the row with tails (x and r),
# and a column chain (softmax over NCHW channels)
golden softmax.gpu.chain --target triton-gpu --gpu-sms 2 $G/softmax.py
golden softmax.gpu.chain.tile --target triton-gpu --gpu-sms 2 -d triton $G/softmax.py
golden softmax.gpu.chain.loop --target triton-gpu --gpu-sms 2 --gpu-tile 4,16,0,1 $G/softmax.py
golden column_chain.gpu.chain --target triton-gpu --gpu-sms 2 tests/golden/column_chain.py
# padded reads as masked loads (the guard joins the tile's mask, other= the
# fill) and index values from the axis variables
golden cat_pad.npu --target triton-npu $G/cat_pad.py
# --gpu-loads tma: the seed's module and tile model (two 2-D descriptors, a
# pointer load, NUM_STAGES), int64 starts cast to int32 coordinates, // and %
# loads beside a descriptor, a 3-D box split and permuted to the tile
golden seed.gpu.tma --target triton-gpu --gpu-loads tma $G/seed.py
golden seed.gpu.tma.tile --target triton-gpu --gpu-loads tma -d triton $G/seed.py
golden wide.gpu.tma --target triton-gpu --gpu-loads tma $G/wide.py
golden views.gpu.tma --target triton-gpu --gpu-loads tma $G/views.py
golden tma_permuted.gpu.tma --target triton-gpu --gpu-loads tma tests/triton_interp/tma.py --fn permuted
golden even_split.gpu --target triton-gpu --fn even tests/triton_golden/even_split.py
golden f64_columns.gpu.tile --target triton-gpu -d triton $G/f64_columns.py
golden uneven_split.gpu --target triton-gpu --fn uneven tests/triton_golden/even_split.py
golden tma_split_tail.gpu.tma --target triton-gpu --gpu-loads tma tests/triton_interp/tma.py --fn split_tail
# an input handed over as a view (stride(...)): its descriptor takes the
# caller's row stride, and COIL_INPUT_STRIDES tells coil_alloc its layout
golden tma_strided_rows.gpu.tma --target triton-gpu --gpu-loads tma tests/triton_interp/tma.py --fn strided_rows
# --gpu-evict-first: evict_first only on streamed loads, read once by one
# point each (a chain's row held in registers, a variance's loop load), not
# on a weight every row reads, a variance's shift, or a row a looping chain
# reads in each of its kernels
golden rms_norm.gpu.chain.evict --target triton-gpu --gpu-sms 2 --gpu-evict-first examples/rms_norm.py
golden softmax.gpu.chain.loop.evict --target triton-gpu --gpu-sms 2 --gpu-tile 4,16,0,1 --gpu-evict-first $G/softmax.py
golden even_split.gpu.evict --target triton-gpu --gpu-evict-first --fn even $G/even_split.py
# --gpu-unroll N: loop_unroll_factor on a split part's loop and a looping
# chain's loops; the model unrolls only a variance's f64 column sums
# (f64_columns.gpu.tile, even_split.gpu), and --gpu-unroll 1 turns that off
golden uneven_split.gpu.unroll --target triton-gpu --gpu-unroll 2 --fn uneven $G/even_split.py
golden even_split.gpu.unroll1 --target triton-gpu --gpu-unroll 1 --fn even $G/even_split.py
# a split whose last part's block combines (one launch): the module, with
# an epilogue's pointer renamed (c_in_ptr0), and the model's choice on both
# sides of its 4 KiB of parts an x block
golden last_combine.gpu --target triton-gpu --fn scaled_col_sum $G/last_combine.py
golden last_combine.gpu.tile --target triton-gpu -d triton --fn scaled_col_sum $G/last_combine.py
golden last_combine.gpu.var.tile --target triton-gpu -d triton --fn col_var $G/last_combine.py
golden last_combine.gpu.forced.tile --target triton-gpu -d triton --gpu-combine launch --fn col_stats $G/last_combine.py
golden softmax.gpu.chain.loop.unroll --target triton-gpu --gpu-sms 2 --gpu-tile 4,16,0,1 --gpu-unroll 2 $G/softmax.py
# --autotune: the candidates the plan offers (the seed's split kernel: warps,
# RBLOCK, XBLOCK, parts, stages; softmax's three kernels, their masks and loops)
golden seed.gpu.autotune.tile --target triton-gpu --autotune -d triton $G/seed.py
golden softmax.gpu.autotune.tile --target triton-gpu --autotune -d triton $G/softmax.py

# ------------------------------------------------------------------- cli
cli() { # NAME WANT_STATUS WANT_TEXT ARGS...
  name=$1 want=$2 text=$3; shift 3
  "$COIL" emit "$@" >"$tmp/cli.out" 2>&1
  rc=$?
  if [ $rc -ne "$want" ]; then echo "FAIL triton/cli/$name: status $rc, want $want: $(head -c 300 "$tmp/cli.out")"
  elif ! grep -q -- "$text" "$tmp/cli.out"; then echo "FAIL triton/cli/$name: no '$text' in: $(head -c 300 "$tmp/cli.out")"
  else echo "ok triton/cli/$name"; fi
}
cli unknown_target 2 "unknown target 'triton-tpu'" --target triton-tpu $G/softmax.py
cli harness_needs_triton 2 "need --target triton" --harness $G/softmax.py
cli bad_cores 2 "--npu-cores needs an integer" --target triton-npu --npu-cores 0 $G/softmax.py
cli help 0 "triton-npu or triton-gpu" --help
cli module 0 "COIL_LAUNCHES = \[" --target triton-gpu $G/softmax.py
cli user_error 2 "error:" --target triton-npu --arg x=f32[0,3] $G/softmax.py
cli bad_loads 2 "--gpu-loads needs pointer or tma" --target triton-gpu --gpu-loads dma $G/softmax.py
cli loads_need_triton 2 "need --target triton" --gpu-loads tma $G/softmax.py
cli bad_tile 2 "--gpu-tile needs XBLOCK,RBLOCK,SPLIT,WARPS" --target triton-gpu --gpu-tile 3,0,0,0 $G/softmax.py
cli bad_sms 2 "--gpu-sms needs an integer" --target triton-gpu --gpu-sms 0 $G/softmax.py
cli sms_missing 2 "--gpu-sms needs an integer" --target triton-gpu $G/softmax.py --gpu-sms
cli bad_ub_suffix 2 "--npu-ub-kb needs an integer" --target triton-npu --npu-ub-kb 64k $G/softmax.py
cli ub_kb 0 "unified buffer 64 KiB" -d triton --target triton-npu --npu-ub-kb 64 $G/softmax.py
cli bad_unroll 2 "--gpu-unroll needs an integer in 1..16" --target triton-gpu --gpu-unroll 0 $G/softmax.py
cli bad_combine 2 "--gpu-combine needs launch or last" --target triton-gpu --gpu-combine first $G/softmax.py
cli autotune_needs_gpu 2 "--autotune needs --target triton-gpu" --target triton-npu --autotune $G/softmax.py
cli autotune_help 0 "autotune.json" --help

# ---------------------------------------------------------------- interp
# The functions, one "FILE FN" a line.
mkdir "$tmp/gen" "$tmp/m"
if [ -f tests/run/gen_subsets.py ]; then
  python3 tests/run/gen_subsets.py "$tmp/gen" >/dev/null 2>&1 || echo "FAIL triton/interp/gen_subsets: cannot write the subset tests"
fi
python3 tests/torch/list_fns.py --skip-unreadable examples/*.py tests/run/*.py "$tmp"/gen/*.py tests/golden/*.py $G/*.py \
  tests/triton_interp/extra.py tests/triton_interp/tma.py >"$tmp/fns" 2>"$tmp/fns.err"
[ -s "$tmp/fns" ] || echo "FAIL triton/interp/list: no functions found: $(head -c 300 "$tmp/fns.err")"

# Smaller shapes for functions too large for the interpreter (odd sizes keep
# the tails); the seed at several reduced shapes (batch, seq, heads, dim).
seed_args() {
  echo "--arg grad_out_base=f32[$1,$3,$2,$4] --arg q=bf16[$1,$2,$3,$4] --arg q_square_sum=f32[$1,$2,$3]~uniform(1,2)"
}
overrides() { # FILE FN -> lines of extra arguments (one run per line)
  case "$(basename "$1" .py):$2" in
    rms_norm_weight_grad:*) # tails everywhere, splits with and without tails, small tile models
      seed_args 2 3 4 8; seed_args 4 2 3 8; seed_args 3 7 5 11; seed_args 2 64 40 128
      echo "$(seed_args 2 131 17 40)"
      echo "$(seed_args 3 7 5 11) --npu-cores 3 --npu-ub-kb 2"
      echo "$(seed_args 2 16 24 40) --npu-cores 8 --npu-ub-kb 4" ;;
    seed:rms_norm_weight_grad|seed_kernel:*) seed_args 2 5 3 24 ;;
    strided_seed:*) # grad_out the permuted view of a (2, 3, 5, 24) buffer
      echo "--arg grad_out=f32[2,5,3,24]~stride(360,24,120,1) --arg q=bf16[2,5,3,24] --arg q_square_sum=f32[2,5,3]~uniform(1,2)" ;;
    activations:activations) echo "--arg x=f32[13,300]" ;;
    column_stats:column_stats) echo "--arg x=f32[3,5,7,24]" ;;
    column_chain:channel_softmax) echo "--arg x=f32[2,5,7,33]"; echo "--arg x=f32[2,5,7,33] --gpu-sms 2"
      echo "--arg x=f32[2,5,7,33] --gpu-sms 2 --gpu-tile 16,4,0,2" ;;
    layer_norm:layer_norm) echo "--arg x=f32[3,7,96] --arg weight=f32[96] --arg bias=f32[96]"
      echo "--arg x=f32[3,7,96] --arg weight=f32[96] --arg bias=f32[96] --gpu-sms 2"
      echo "--arg x=f32[3,7,96] --arg weight=f32[96] --arg bias=f32[96] --gpu-sms 2 --gpu-tile 0,32,0,0" ;;
    log_softmax:log_softmax) echo "--arg logits=f16[5,1031]"; echo "--arg logits=f16[5,1031] --gpu-sms 2" ;;
    logsumexp:logsumexp_2d) echo "--arg scores=f32[5,6,67]"; echo "--arg scores=f32[5,6,67] --gpu-sms 2" ;;
    masked_mean:masked_mean) echo "--arg x=f32[7,131] --arg keep=f32[7,131]~uniform(0,1)" ;;
    mixed_precision:mixed_precision) echo "--arg a=bf16[9,67] --arg b=f16[9,67] --arg scale=f32[67]~uniform(0.5,1.5)" ;;
    reductions:reductions) echo "--arg x=f32[6,5,33]~uniform(0.9,1.1)"; echo "--arg x=f32[6,5,33]~uniform(0.9,1.1) --npu-ub-kb 1" ;;
    rms_norm:rms_norm) echo "--arg x=bf16[3,5,96] --arg weight=f32[96]"; echo "--arg x=bf16[3,5,96] --arg weight=f32[96] --gpu-sms 2" ;;
    softmax:softmax|softmax_schedule:softmax) echo "--arg x=f32[7,1031]"; echo "--arg x=f32[7,1031] --gpu-sms 2"
      echo "--arg x=f32[7,1031] --gpu-sms 2 --gpu-tile 2,256,0,4"
      echo "--arg x=f32[7,1031] --gpu-sms 2 --gpu-tile 2,256,0,4 --gpu-unroll 3" ;;
    tails:*) echo "--npu-ub-kb 16" ;;
    # arg-reductions: split rows (a forced GPU split; the NPU splits from
    # 32768 points a row), and a GPU chain of a row's absmax and its use
    argred:long_rows) echo "--arg x=f32[2,3001]~uniform(0,1000) --arg t=i32[2,6007]~uniform(0,50) --gpu-tile 1,256,4,2"
      echo "--arg x=f32[1,32800]~uniform(0,1000) --arg t=i32[2,301]~uniform(0,50)" ;;
    argred:absmax_scale) echo ""; echo "--gpu-sms 2" ;;
    extra:two_groups) echo ""; echo "--npu-ub-kb 1 --npu-cores 3" ;;
    wide:wide) echo "--arg x=bf16[5,6001] --arg y=f32[6001,5]" ;;
    even_split:even) echo "--arg x=f32[2,7,8,160]"; echo "--arg x=f32[16,16,16,160] --gpu-sms 2"
      echo "--arg x=f32[16,16,16,160] --gpu-sms 2 --gpu-unroll 3" ;;
    even_split:uneven) echo "--arg x=f32[301,160]" ;;
    last_combine:*) echo ""; echo "--gpu-combine launch"; echo "--gpu-combine last" ;;
    f64_columns:col_var) echo "--arg x=f32[600,256] --gpu-sms 1"; echo "--arg x=f32[2001,512] --gpu-sms 8"
      echo "--arg x=f32[4001,64] --gpu-sms 4" ;;
    *) echo "" ;;
  esac
}

# Emit every module: $tmp/m/N.npu.py, $tmp/m/N.gpu.py, $tmp/m/N.tma.py (the
# GPU dialect with --gpu-loads tma, kept where some load takes a tensor
# descriptor) and the run lists; and, at the annotated shapes, the modules
# the real compiler checks.
target_args() { # npu | gpu | tma
  case $1 in tma) echo "--target triton-gpu --gpu-loads tma" ;; *) echo "--target triton-$1" ;; esac
}
: >"$tmp/list.npu"; : >"$tmp/list.gpu"; : >"$tmp/list.tma"; : >"$tmp/list.cc"
n=0
set -f # the arguments hold [ ]: no globbing
while read -r f fn; do
  n=$((n + 1))
  case "$f" in tests/run/*|"$tmp"/*) cc=0 ;; *) cc=1 ;; esac # (time: tools/device/gpu_check.sh compiles those)
  for t in npu gpu tma; do
    [ $cc -eq 1 ] || continue
    if "$COIL" emit $(target_args $t) "$f" --fn "$fn" >"$tmp/m/$n.$t.cc.py" 2>"$tmp/emit.err"; then
      # tma: only the modules where some load takes a descriptor
      if [ $t != tma ] || grep -q make_tensor_descriptor "$tmp/m/$n.$t.cc.py"; then
        echo "$(basename "$f" .py):$fn/$t $tmp/m/$n.$t.cc.py" >>"$tmp/list.cc"
      fi
    else
      echo "FAIL triton/compile/$(basename "$f" .py):$fn/$t: coil emit exited $?: $(head -c 300 "$tmp/emit.err")"
    fi
  done
  overrides "$f" "$fn" >"$tmp/ov"
  while IFS= read -r extra; do
    n=$((n + 1))
    label="$(basename "$f" .py):$fn"
    [ -n "$extra" ] && label="$label[$(echo "$extra" | sed 's/--arg //g; s/ /,/g')]"
    for t in npu gpu tma; do
      out="$tmp/m/$n.$t.py"
      # '~' stands for a space (f32[4]~uniform(1,2) reads as 'f32[4] uniform(1,2)')
      set -- $(target_args $t) --harness "$f" --fn "$fn"
      for a in $extra; do set -- "$@" "$(echo "$a" | tr '~' ' ')"; done
      if "$COIL" emit "$@" >"$out" 2>"$tmp/emit.err"; then
        if [ $t != tma ] || grep -q make_tensor_descriptor "$out"; then echo "$label/$t $out" >>"$tmp/list.$t"; fi
      else
        echo "FAIL triton/interp/$label/$t: coil emit exited $?: $(head -c 300 "$tmp/emit.err")"
      fi
    done
  done <"$tmp/ov"
done <"$tmp/fns"

# --------------------------------------------------------------- control
# Modules broken on purpose; the check must FAIL them.
control() { # NAME TARGET SED FILE ARGS...
  name=$1 target=$2 expr=$3; shift 3
  if "$COIL" emit --target "$target" --harness "$@" >"$tmp/m/$name.ok.py" 2>"$tmp/emit.err"; then
    sed "$expr" "$tmp/m/$name.ok.py" >"$tmp/m/$name.py"
    if cmp -s "$tmp/m/$name.ok.py" "$tmp/m/$name.py"; then
      echo "FAIL triton/control/$name: the module has nothing the edit breaks"
    else
      echo "control/$name $tmp/m/$name.py xfail" >>"$tmp/list.${target#triton-}"
    fi
  else
    echo "FAIL triton/control/$name: coil emit failed: $(head -c 300 "$tmp/emit.err")"
  fi
}
# the seed's bug: the accumulator restarts at every reduction step (a small
# unified buffer gives several steps)
set -- $G/seed.py --npu-ub-kb 1
for a in $(seed_args 3 7 5 11); do set -- "$@" "$(echo "$a" | tr '~' ' ')"; done
control seed_accumulator_reset triton-npu 's/^\( *\)_tmp11 = _tmp11 + tmp11_in$/\1_tmp11 = tmp11_in/' "$@"
# masked lanes of an amax of negative numbers contributing 0, not -inf
control amax_masked_zero triton-gpu 's/tl.where(rmask, \(tmp[0-9]*\), float("-inf"))/tl.where(rmask, \1, 0.0)/' \
  tests/triton_interp/extra.py --fn negative_extremes
control amax_masked_zero_npu triton-npu 's/tl.where(\(x0_mask & r1_mask\), \(tmp[0-9]*\), float("-inf"))/tl.where(\1, \2, 0.0)/' \
  tests/triton_interp/extra.py --fn negative_extremes --npu-ub-kb 1
# an amax that an output needs the NaN of, reduced by tl.max alone as if it
# were quiet (src/nanquiet.c): the rows with a NaN must then differ
control amax_nan_dropped triton-gpu 's/tl.where(tl.sum(([a-z0-9_]* != [a-z0-9_]*).to(tl.int32), 1) > 0, float("nan"), \(tl.m[axin]*([a-z0-9_]*, 1)\))/\1/' \
  tests/triton_interp/extra.py --fn amax_edges
# a descriptor load that ignores the tile's start (every step reads the first rows)
control tma_tile_start triton-gpu 's/desc0.load(\[r1_t,/desc0.load([0 * r1_t,/' --gpu-loads tma tests/triton_interp/tma.py --fn split_tail

# The index checks' status with the asserts taken out, as a GPU without
# Triton's debug mode compiles them: coil_launch must raise IndexError.
python3 tests/triton_interp/status.py "$COIL" 2>"$tmp/err.status" || echo "FAIL triton/status: crashed: $(tail -3 "$tmp/err.status")"

# Splits whose last part's block combines, called three times on one set of
# buffers: the counters must be zero again after every call; a module that
# never sets them back, and one whose counters are not zeroed before the
# first call, must fail.
: >"$tmp/list.repeat"
for fn in scaled_col_sum col_argmax full_sum col_stats col_var; do
  if "$COIL" emit --target triton-gpu --harness --gpu-combine last --fn $fn $G/last_combine.py >"$tmp/m/repeat.$fn.py" 2>"$tmp/emit.err"; then
    echo "triton/repeat/$fn $tmp/m/repeat.$fn.py" >>"$tmp/list.repeat"
  else
    echo "FAIL triton/repeat/$fn: coil emit failed: $(head -c 300 "$tmp/emit.err")"
  fi
done
repeat_control() { # NAME SED
  sed "$2" "$tmp/m/repeat.scaled_col_sum.py" >"$tmp/m/repeat.$1.py"
  if cmp -s "$tmp/m/repeat.scaled_col_sum.py" "$tmp/m/repeat.$1.py"; then
    echo "FAIL triton/repeat/control_$1: the module has nothing the edit breaks"
  else
    echo "triton/repeat/control_$1 $tmp/m/repeat.$1.py xfail" >>"$tmp/list.repeat"
  fi
}
if [ -f "$tmp/m/repeat.scaled_col_sum.py" ]; then
  repeat_control no_reset 's/^        tl.store(done_ptr + tl.program_id(0), 0)$/        pass/'
  repeat_control not_zeroed 's/^            bufs.append(torch.zeros(shape, /            bufs.append(torch.ones(shape, /'
fi
if [ -z "${COIL_EMIT_ONLY:-}" ]; then
  python3 tests/triton_interp/repeat.py "$tmp/list.repeat" 2>"$tmp/err.repeat" ||
    echo "FAIL triton/repeat: crashed: $(tail -3 "$tmp/err.repeat")"
fi

# --autotune: every candidate of a row and a column reduction, the seed
# scaled down and two chains against eager PyTorch, the cache (written,
# reused without timing, corrupt or stale ignored and rewritten), and a
# candidate broken on purpose that must fail
python3 tests/triton_interp/autotune.py "$COIL" 2>"$tmp/err.autotune" || echo "FAIL triton/autotune: crashed: $(tail -3 "$tmp/err.autotune")"

# the harness's reference on a device: that device's eager, else CPU eager
# (coil follows the CPU), with the meta device standing in for a GPU
python3 tests/triton_interp/reference.py "$COIL" 2>"$tmp/err.reference" || echo "FAIL triton/reference: crashed: $(tail -3 "$tmp/err.reference")"

# COIL_EMIT_ONLY=1 (make check-asan): every module above was emitted by the
# sanitized coil, which is what that run checks, so each counts as
# "ok triton/emit/NAME"; what Triton's interpreter and compiler make of the
# text is the same for either build and left to make check's run of this
# suite (nearly all of its time: 455 s of make check's 18 minutes of suites
# in a fresh clone's .ci/run on a 2-core VM, 2026-12-02).
if [ -n "${COIL_EMIT_ONLY:-}" ]; then
  for t in npu gpu tma; do sed "s|^\([^ ]*\) .*|ok triton/emit/\1|" "$tmp/list.$t"; done
  sed "s|^\([^ ]*\) .*|ok triton/emit/compile/\1|" "$tmp/list.cc"
  exit 0
fi

# Both dialects and the compiler at once (one process each: torch and
# triton import once per process).
python3 tests/triton_interp/run.py "$tmp/list.npu" >"$tmp/out.npu" 2>"$tmp/err.npu" &
pid_npu=$!
python3 tests/triton_interp/run.py "$tmp/list.gpu" >"$tmp/out.gpu" 2>"$tmp/err.gpu" &
pid_gpu=$!
python3 tests/triton_interp/run.py "$tmp/list.tma" >"$tmp/out.tma" 2>"$tmp/err.tma" &
pid_tma=$!
TRITON_CACHE_DIR="$tmp/triton-cache" python3 tests/triton_interp/compile_check.py "$tmp/list.cc" >"$tmp/out.cc" 2>"$tmp/err.cc"
rc_cc=$?
wait $pid_npu
rc_npu=$?
wait $pid_gpu
rc_gpu=$?
wait $pid_tma
rc_tma=$?
sed 's/^ok /ok triton\/compile\//; s/^FAIL /FAIL triton\/compile\//' "$tmp/out.cc"
want=$(wc -l <"$tmp/list.cc")
got=$(grep -c -E '^(ok|FAIL) ' "$tmp/out.cc")
[ "$got" -eq "$want" ] && [ $rc_cc -eq 0 ] ||
  echo "FAIL triton/compile/runner: $got results for $want modules, status $rc_cc: $(grep -v -i warn "$tmp/err.cc" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
for t in npu gpu tma; do
  [ -n "$COIL_TRITON_TIMES" ] && cat "$tmp/err.$t" >&2
  sed 's/^ok /ok triton\/interp\//; s/^FAIL /FAIL triton\/interp\//' "$tmp/out.$t"
  want=$(wc -l <"$tmp/list.$t")
  got=$(grep -c -E '^(ok|FAIL) ' "$tmp/out.$t")
  if [ "$got" -ne "$want" ]; then
    echo "FAIL triton/interp/runner.$t: $got results for $want modules: $(tail -n 3 "$tmp/err.$t" | tr '\n' ' ' | cut -c1-300)"
  fi
done
[ "$rc_npu" -eq 0 ] && [ "$rc_gpu" -eq 0 ] && [ "$rc_tma" -eq 0 ] ||
  echo "FAIL triton/interp/runner: exit status npu $rc_npu, gpu $rc_gpu, tma $rc_tma"
exit 0
