#!/bin/sh
# Command-line behaviour of coil run/emit/dump: saving and reloading
# inputs, the kernel cache, exit statuses, the check's tolerances, --arg.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COIL_CACHE_DIR="$tmp/cache"
ok() { echo "ok cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; }

cat >"$tmp/f.py" <<'PY'
import torch
def f(x: "f32[37, 5]", y: "bf16[5] uniform(1, 2)"):
    return (x * y).sum(0), x.amax(1, keepdim=True).to(torch.bfloat16), (x > 0).sum()
PY

# 1. A run passes, and its second run compiles nothing.
out=$("$COIL" run "$tmp/f.py" 2>&1); rc=$?
case "$out" in *"check=passed"*) [ $rc -eq 0 ] && ok run_passes || fail run_passes "status $rc";; *) fail run_passes "$out";; esac
case "$out" in *"(cc)"*) ok first_run_compiles;; *) fail first_run_compiles "expected a cc build: $out";; esac
out=$("$COIL" run "$tmp/f.py" 2>&1)
case "$out" in *"(cached)"*) ok second_run_cached;; *) fail second_run_cached "$out";; esac

# 2. The cache directory is private.
mode=$(stat -c %a "$COIL_CACHE_DIR")
[ "$mode" = 700 ] && ok cache_dir_0700 || fail cache_dir_0700 "mode $mode"
mkdir -p "$tmp/open" && chmod 777 "$tmp/open"
out=$(COIL_CACHE_DIR="$tmp/open" "$COIL" run "$tmp/f.py" 2>&1); rc=$?
case "$out" in *"writable by other users"*) [ $rc -eq 2 ] && ok cache_refuses_world_writable || fail cache_refuses_world_writable "status $rc";;
  *) fail cache_refuses_world_writable "$out";; esac

# 3. A corrupted cached library is rebuilt, not loaded.
for so in "$COIL_CACHE_DIR"/*.so; do printf 'garbage' >"$so"; done
out=$("$COIL" run "$tmp/f.py" 2>&1); rc=$?
case "$out" in *"(cc)"*"check=passed"*) ok corrupt_cache_rebuilt;; *) fail corrupt_cache_rebuilt "status $rc: $out";; esac

# 4. --save writes inputs and outputs; --inputs reads them back and gives
#    the same outputs bit for bit.
"$COIL" run "$tmp/f.py" --seed 7 --save "$tmp/s1" >/dev/null 2>&1
if [ -f "$tmp/s1/x.npy" ] && [ -f "$tmp/s1/y.npy" ] && [ -f "$tmp/s1/out0.npy" ] && [ -f "$tmp/s1/out2.npy" ]; then ok save_writes_files
else fail save_writes_files "$(ls "$tmp/s1" 2>&1)"; fi
"$COIL" run "$tmp/f.py" --inputs "$tmp/s1" --save "$tmp/s2" >/dev/null 2>&1
if cmp -s "$tmp/s1/out0.npy" "$tmp/s2/out0.npy" && cmp -s "$tmp/s1/out1.npy" "$tmp/s2/out1.npy"; then ok inputs_roundtrip
else fail inputs_roundtrip "outputs differ after reloading the inputs"; fi
[ ! -f "$tmp/s2/x.npy" ] && ok inputs_not_resaved || fail inputs_not_resaved "inputs read with --inputs were written again"
python3 - "$tmp/s1" <<'PY' && ok saved_dtypes || fail saved_dtypes "numpy check failed"
import sys, numpy as np
d = sys.argv[1]
assert np.load(d + "/out1.npy").dtype == np.float32       # bf16 saved as f32
assert np.load(d + "/out1.npy").shape == (37, 1)
assert np.load(d + "/out2.npy").shape == () and np.load(d + "/out2.npy").dtype == np.int64
assert np.load(d + "/y.npy").dtype == np.float32
PY

# 4b. A strided input (stride(...)): coil run fills the storage its strides
#     span (arange counts storage elements), --save writes the tensor the
#     view is, and --inputs lays the file out into the storage again.
cat >"$tmp/strided.py" <<'PY'
def f(x: "f32[3, 4] stride(1, 5) arange", y: "f32[3, 4] stride(0, 2)"):
    return x.sum(0), x * y
PY
"$COIL" run "$tmp/strided.py" --save "$tmp/t1" >"$tmp/t1.log" 2>&1 &&
"$COIL" run "$tmp/strided.py" --inputs "$tmp/t1" --save "$tmp/t2" >/dev/null 2>&1 &&
cmp -s "$tmp/t1/out0.npy" "$tmp/t2/out0.npy" && cmp -s "$tmp/t1/out1.npy" "$tmp/t2/out1.npy" &&
python3 - "$tmp/t1" <<'PY' && ok strided_save_and_inputs || fail strided_save_and_inputs "$(tail -3 "$tmp/t1.log")"
import sys, numpy as np
d = sys.argv[1]
x, y = np.load(d + "/x.npy"), np.load(d + "/y.npy")
# x[i, j] is storage element i + 5 j, and arange's storage holds its index
assert x.shape == (3, 4) and (x == np.add.outer(np.arange(3), 5 * np.arange(4))).all(), x
# y's rows are one row of the storage (stride 0), its elements 2 apart
assert (y == y[0]).all() and len(set(y[0].tolist())) == 4, y
assert np.array_equal(np.load(d + "/out0.npy"), x.sum(0, dtype=np.float32))
PY
# the loads index by the strides: x's sum over dim 0 (r1) steps 1, its
# columns (x0) 5; y's rows (stride 0) do not appear
"$COIL" dump -d kernel "$tmp/strided.py" >"$tmp/t.kernel" 2>&1
grep -q "load x\[5\*x0 + r1\]" "$tmp/t.kernel" && grep -q "load y\[2\*x1\]" "$tmp/t.kernel" && ok strided_load_index ||
  fail strided_load_index "$(grep load "$tmp/t.kernel" | head -3)"

# 5. Different seeds give different inputs; one seed gives the same.
"$COIL" run "$tmp/f.py" --seed 8 --save "$tmp/s3" >/dev/null 2>&1
"$COIL" run "$tmp/f.py" --seed 7 --save "$tmp/s4" >/dev/null 2>&1
if ! cmp -s "$tmp/s1/x.npy" "$tmp/s3/x.npy" && cmp -s "$tmp/s1/x.npy" "$tmp/s4/x.npy"; then ok seeds
else fail seeds "seed 7 vs 8 vs 7"; fi

# 6. A mismatch exits 1: zero tolerance on a long f32 sum summed in
#    another order than the double-accumulated reference.
cat >"$tmp/long.py" <<'PY'
def long_sum(x: "f32[64, 20000]"):
    return x.sum(1)
PY
"$COIL" run "$tmp/long.py" --rtol 0 --atol 0 >"$tmp/o" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "check=FAILED" "$tmp/o" && ok mismatch_exits_1 || fail mismatch_exits_1 "status $rc"
"$COIL" run "$tmp/long.py" >/dev/null 2>&1 && ok long_sum_default_tolerance || fail long_sum_default_tolerance "default tolerances rejected a long sum"

# 7. NaN: equal only with --equal-nan.
cat >"$tmp/nan.py" <<'PY'
def nan_log(x: "f32[16]"):
    return x.log()
PY
"$COIL" run "$tmp/nan.py" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok nan_not_equal || fail nan_not_equal "status $rc"
"$COIL" run "$tmp/nan.py" --equal-nan >/dev/null 2>&1 && ok equal_nan || fail equal_nan "status $?"

# 8. --arg compiles an unannotated function, and overrides annotations.
cat >"$tmp/plain.py" <<'PY'
import torch
def g(a, b):
    return (a * b.unsqueeze(0)).sum(dim=(0, 2))
def main():
    print(g(torch.ones(2, 3, 4), torch.ones(3, 4)))
if __name__ == "__main__":
    main()
PY
out=$("$COIL" run "$tmp/plain.py" --arg 'a=f32[5,3,7]' --arg 'b=bf16[3,7]' 2>&1)
case "$out" in *"out.shape=(3,) dtype=f32"*"check=passed"*) ok arg_unannotated;; *) fail arg_unannotated "$out";; esac
out=$("$COIL" run "$tmp/f.py" --arg 'x=f32[3,5]' 2>&1)
case "$out" in *"out1.shape=(3, 1)"*) ok arg_overrides;; *) fail arg_overrides "$out";; esac

# 9. The seed example's output names the kernel and the check.
out=$("$COIL" run tests/run/seed.py --fn seed_odd 2>&1)
case "$out" in *"1 kernel (sum over 3 axes: 3x5x7 -> 11)"*"check=passed"*) ok seed_summary;; *) fail seed_summary "$out";; esac

# 10. Help texts and usage errors.
"$COIL" --help | grep -q "run FILE.py" && ok help || fail help "no usage"
"$COIL" run --help | grep -q -- "--equal-nan" && ok run_help || fail run_help "no options"
"$COIL" run >/dev/null 2>&1; [ $? -eq 2 ] && ok no_file_status_2 || fail no_file_status_2 "status $?"
"$COIL" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok unknown_command || fail unknown_command "status $?"

# 11. dump shows every stage; emit prints compilable C.
out=$("$COIL" dump -d all "$tmp/f.py" 2>&1)
n=$(printf '%s\n' "$out" | grep -c '^=== ')
[ "$n" -eq 7 ] && ok dump_all_stages || fail dump_all_stages "$n stages"
"$COIL" emit --target c "$tmp/f.py" >"$tmp/k.c" && cc -std=c11 -fopenmp -c "$tmp/k.c" -o "$tmp/k.o" 2>"$tmp/cc.log" \
  && ok emit_c_compiles || fail emit_c_compiles "$(head -5 "$tmp/cc.log")"

# 12. Eight runs at once on a cold cache all pass and compile once.
cat >"$tmp/conc.py" <<'PY'
def conc(x: "f32[33, 17]"):
    return (x * x).sum(0) + 0.25
PY
mkdir -p "$tmp/cold"
for i in 1 2 3 4 5 6 7 8; do
  COIL_CACHE_DIR="$tmp/cold/c" "$COIL" run "$tmp/conc.py" >"$tmp/conc$i.log" 2>&1 &
done
wait
passed=$(grep -l "check=passed" "$tmp"/conc*.log | wc -l)
built=$(grep -l "(cc)" "$tmp"/conc*.log | wc -l)
[ "$passed" -eq 8 ] && [ "$built" -eq 1 ] && ok concurrent_cold_cache || fail concurrent_cold_cache "$passed passed, $built compiled"

# The relative error printed is over elements whose reference is above
# atol: an f16 result that rounds tiny values to 0 printed "max rel err 1".
cat >"$tmp/tiny.py" <<'PY'
import torch
def tiny(x: "f16[64, 64]"):
    return (x.float() * 1e-7).half(), x.float() * 2
PY
out=$("$COIL" run "$tmp/tiny.py" 2>&1)
rels=$(printf '%s\n' "$out" | sed -n 's/.*max rel err \([^ ]*\) where |ref| > atol.*/\1/p' | tr '\n' ' ')
case "$rels" in "0 0 ") ok rel_err_above_atol_only;; *) fail rel_err_above_atol_only "rel errs '$rels': $out";; esac

# --huge-pages changes where buffers live, not what is computed: the same
# outputs bit for bit, for generated inputs and for inputs read back with
# --inputs, at sizes that are not multiples of 2 MiB (4 MB, 2 KB).
cat >"$tmp/big.py" <<'PY'
import torch
def big(x: "f32[1000, 1001]", y: "bf16[1001] uniform(1, 2)"):
    return (x * y).sum(0), torch.softmax(x, dim=1).to(torch.bfloat16)
PY
"$COIL" run "$tmp/big.py" --seed 3 --save "$tmp/h1" >/dev/null 2>&1; rc1=$?
"$COIL" run "$tmp/big.py" --seed 3 --huge-pages --save "$tmp/h2" >"$tmp/h2.log" 2>&1; rc2=$?
"$COIL" run "$tmp/big.py" --huge-pages --inputs "$tmp/h1" --save "$tmp/h3" >/dev/null 2>&1; rc3=$?
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && grep -q "check=passed" "$tmp/h2.log" &&
   cmp -s "$tmp/h1/out0.npy" "$tmp/h2/out0.npy" && cmp -s "$tmp/h1/out1.npy" "$tmp/h2/out1.npy" &&
   cmp -s "$tmp/h1/out0.npy" "$tmp/h3/out0.npy" && cmp -s "$tmp/h1/out1.npy" "$tmp/h3/out1.npy" &&
   cmp -s "$tmp/h1/x.npy" "$tmp/h2/x.npy"; then
  ok huge_pages_same_outputs
else
  fail huge_pages_same_outputs "status $rc1 $rc2 $rc3: $(head -c 300 "$tmp/h2.log")"
fi

# A light f32 row reduction is marked narrow in the C, and the prelude turns
# that into 128-bit vectors only where the compiler targets AMD Zen (where
# narrow loads stream faster); on an Intel target the mark asks for nothing.
cat >"$tmp/rows.py" <<'PY'
def f(x: "f32[8, 4096]"):
    return x.sum(-1)
PY
"$COIL" emit "$tmp/rows.py" >"$tmp/rows.c" 2>"$tmp/rows.err"
zen=$(cc -march=znver3 -E -dM "$tmp/rows.c" 2>&1 | grep '^#define COIL_NARROW')
intel=$(cc -march=sapphirerapids -E -dM "$tmp/rows.c" 2>&1 | grep '^#define COIL_NARROW')
if grep -q '^COIL_NARROW int64_t coil_f_k0' "$tmp/rows.c" &&
   [ "$zen" = '#define COIL_NARROW __attribute__((target("prefer-vector-width=128")))' ] &&
   [ "$intel" = '#define COIL_NARROW ' ]; then
  ok narrow_rows_on_zen_only
else
  fail narrow_rows_on_zen_only "zen: '$zen'; intel: '$intel'; $(head -c 200 "$tmp/rows.err")"
fi

# coil ops: docs/ops.md is its output, the JSON parses and lists the same
# spellings, and spellings outside the table are refused by name.
if "$COIL" ops | cmp -s - docs/ops.md; then ok ops_doc_generated
else fail ops_doc_generated "docs/ops.md differs from \`coil ops\` (regenerate: build/coil ops > docs/ops.md)"; fi
if "$COIL" ops --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = [s["name"] for s in d["spellings"]]
assert "sum" in names and "permute" in names, names
assert d["targets"] == ["c", "triton-npu", "triton-gpu"], d["targets"]
assert all(s["forms"] and s["dtypes"] for s in d["spellings"])
md = open("docs/ops.md").read()
assert all("| `%s` |" % n in md for n in names)
' 2>"$tmp/ops.err"; then ok ops_json
else fail ops_json "$(tail -3 "$tmp/ops.err")"; fi
"$COIL" ops --frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok ops_bad_option || fail ops_bad_option "status $?"

