#!/bin/sh
# The Triton backends checked and timed on a GPU (the lent H200): OUT=results sh tools/device/gpu_check.sh
#
# Run by tools/device/device_all.sh's check step, or alone:
#
#     OUT=results sh tools/device/gpu_check.sh
#
# On a machine with an NVIDIA GPU and python3 with torch and triton, from the
# repository root:
#   1. builds coil (make build/coil) unless $COIL names a coil binary;
#   2. emits a --harness script for every annotated function of examples/*.py,
#      tests/run/*.py (and the subsets tests/run/gen_subsets.py writes),
#      tests/golden/*.py, tests/triton_golden/*.py and
#      tests/triton_interp/extra.py, in both dialects (triton-npu, triton-gpu);
#   3. checks all of them on the GPU against eager PyTorch, one process per
#      dialect (tests/triton_interp/run.py --device cuda);
#   4. times every example, and the seed, in both dialects: each harness
#      script run on its own, triton.testing.do_bench medians of coil's
#      kernels, eager and torch.compile (the GPU dialect's run; the NPU
#      dialect's skips torch.compile), against the read bandwidth of a
#      torch.sum over 2 GiB measured in the same run (NPU dialect) or of a
#      read of the same bytes by the same method (GPU dialect);
#   5. writes $OUT/gpu_check.md (tables and the seed's bars), $OUT/gpu_check.csv
#      (one row per example and dialect), $OUT/checks.txt (every check line)
#      and $OUT/logs.tar.gz (the scripts and their output).
# Exit status 0 when every check passes and the seed meets its bars in the
# GPU dialect: at least 90% of the measured read bandwidth and faster than
# torch.compile.
#
# Environment: OUT (default gpu_check_out), COIL (a coil binary), REP (do_bench
# rep in ms, default 200), TIMEOUT (seconds per script, default 900), JOBS
# (check processes per dialect, default half the cores, at most 16), BENCH (an
# extended regular expression: time only the examples whose FILE:FN matches),
# FUNCS (the same, for which functions to emit and check at all), DEVICE=cpu
# (a dry run of this script without a GPU: Triton's interpreter, no timing),
# GPU_LOADS (pointer or tma: the GPU dialect's --gpu-loads; default coil's),
# DIALECTS (default "npu gpu": the dialects to emit, check and time).
set -u
OUT=${OUT:-gpu_check_out}
DIALECTS=${DIALECTS:-npu gpu}
REP=${REP:-200}
TIMEOUT=${TIMEOUT:-900}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/scripts" "$work/logs" "$work/gen"

COIL=$(LOG="$work/logs/make.log" sh tools/device/coil_bin.sh) || exit 2
"$COIL" --help >/dev/null 2>&1 || { echo "gpu_check: $COIL does not run"; exit 2; }
DEVICE=${DEVICE:-cuda}
if [ "$DEVICE" = cpu ]; then
  export TRITON_INTERPRET=1
  python3 -c 'import torch, triton; print(f"dry run on the CPU (TRITON_INTERPRET=1); torch {torch.__version__}, triton {triton.__version__}")' >"$work/env.txt" || exit 2
else
  python3 -c 'import torch, triton; assert torch.cuda.is_available(), "no CUDA device"' || exit 2
  python3 - >"$work/env.txt" 2>&1 <<'EOF'
import torch, triton
p = torch.cuda.get_device_properties(0)
print(f"{p.name}, {p.multi_processor_count} SMs, {p.total_memory / 2**30:.0f} GiB; torch {torch.__version__}, triton {triton.__version__}")
EOF
fi

# --- the functions, one "FILE FN" a line
if [ -f tests/run/gen_subsets.py ]; then python3 tests/run/gen_subsets.py "$work/gen" >/dev/null 2>&1; fi
python3 tests/torch/list_fns.py --skip-unreadable examples/*.py tests/run/*.py "$work"/gen/*.py tests/golden/*.py tests/triton_golden/*.py \
  tests/triton_interp/extra.py >"$work/fns.all"
while read -r f fn; do
  if echo "$(basename "$f" .py):$fn" | grep -q -E "${FUNCS:-.}"; then echo "$f $fn"; fi
done <"$work/fns.all" >"$work/fns"
if [ ! -s "$work/fns" ]; then
  echo "gpu_check: FUNCS='${FUNCS:-}' matches none of the $(wc -l <"$work/fns.all") functions (names are FILE:FN, e.g. extra:amax_edges)" >&2
  exit 2
fi

# --- emit
: >"$work/list.npu"; : >"$work/list.gpu"; : >"$work/bench"
emit_fail=0
while read -r f fn; do
  base=$(basename "$f" .py)
  case "$f" in examples/*) bench=1 ;; *) bench=0 ;; esac
  for t in $DIALECTS; do
    s="$work/scripts/$base.$fn.$t.py"
    extra=
    [ $t = gpu ] && [ -n "${GPU_LOADS:-}" ] && extra="--gpu-loads $GPU_LOADS"
    # shellcheck disable=SC2086
    if "$COIL" emit --target "triton-$t" $extra --harness "$f" --fn "$fn" >"$s" 2>"$work/logs/emit.$base.$fn.$t.txt"; then
      echo "$base:$fn/$t $s" >>"$work/list.$t"
      if [ $bench -eq 1 ] && echo "$base:$fn" | grep -q -E "${BENCH:-.}"; then echo "$base:$fn $t $s" >>"$work/bench"; fi
    else
      echo "FAIL $base:$fn/$t: coil emit: $(head -c 300 "$work/logs/emit.$base.$fn.$t.txt")" >>"$work/checks.txt"
      emit_fail=$((emit_fail + 1))
    fi
  done
done <"$work/fns"

# --- check every function on the GPU: each dialect's list in JOBS parts,
# all at once (compiling the kernels is what takes the time)
jobs=${JOBS:-$(( $(nproc 2>/dev/null || echo 2) / 2 ))}
[ "$jobs" -ge 1 ] || jobs=1
[ "$jobs" -le 16 ] || jobs=16
pids=""
for t in $DIALECTS; do
  k=0
  while [ $k -lt "$jobs" ]; do
    awk -v j="$jobs" -v k=$k 'NR % j == k' "$work/list.$t" >"$work/list.$t.$k"
    timeout "$TIMEOUT" python3 tests/triton_interp/run.py "$work/list.$t.$k" --device "$DEVICE" --timeout 300 \
      >"$work/check.$t.$k.txt" 2>"$work/logs/check.$t.$k.err" &
    pids="$pids $!"
    k=$((k + 1))
  done
done
for p in $pids; do wait "$p"; done
for t in $DIALECTS; do
  cat "$work"/check.$t.*.txt >"$work/check.$t.txt"
  cat "$work/check.$t.txt" >>"$work/checks.txt"
  want=$(wc -l <"$work/list.$t")
  got=$(grep -c -E '^(ok|FAIL) ' "$work/check.$t.txt")
  [ "$got" -eq "$want" ] || echo "FAIL runner/$t: $got results for $want functions (see logs/check.$t.*.err)" >>"$work/checks.txt"
done
checks_ok=$(grep -c '^ok ' "$work/checks.txt")
checks_fail=$(grep -c '^FAIL ' "$work/checks.txt")

# --- time the examples, each script on its own
echo "function,dialect,check,coil_us,eager_us,compile_us,coil_GBs,coil_pct_read_bw,speedup_vs_eager,speedup_vs_compile,bytes,read_bw_GBs" >"$OUT/gpu_check.csv"
while read -r name t s; do
  log="$work/logs/bench.$name.$t.txt"
  opt=""; [ "$t" = npu ] && opt="--no-compile"
  [ "$DEVICE" = cpu ] && opt="--device cpu"
  timeout "$TIMEOUT" python3 "$s" --rep "$REP" $opt >"$log" 2>&1
  python3 - "$name" "$t" "$log" >>"$OUT/gpu_check.csv" <<'EOF'
import json, sys
name, t, log = sys.argv[1:4]
res = None
for line in open(log, errors="replace"):
    if line.startswith("COIL_RESULT "):
        res = json.loads(line[len("COIL_RESULT "):])
if res is None:
    print(f"{name},{t},ERROR,,,,,,,,,")
    sys.exit(0)
tm = res.get("times_us", {})
coil = tm.get("coil triton-" + t)
eager = tm.get("torch eager")
comp = tm.get("torch.compile")
nbytes, bw = res.get("bytes"), res.get("read_bw_gbs")
read = tm.get("pure read")  # the GPU dialect's script: a read of the same bytes, same method
if bw is None and read and nbytes:
    bw = nbytes / (read * 1e-6) / 1e9
f = lambda v: "" if v is None else f"{v:.1f}"
gbs = nbytes / (coil * 1e-6) / 1e9 if coil and nbytes else None
pct = gbs / bw * 100 if gbs and bw else None
print(",".join([name, t, res["check"], f(coil), f(eager), f(comp), f(gbs), f(pct),
                f(eager / coil if eager and coil else None), f(comp / coil if comp and coil else None),
                str(nbytes or ""), f(bw)]))
EOF
done <"$work/bench"

# --- the report
python3 - "$OUT/gpu_check.csv" "$work/env.txt" "$checks_ok" "$checks_fail" "$work/checks.txt" "$DIALECTS" >"$OUT/gpu_check.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
env = open(sys.argv[2]).read().strip()
ok, fail = int(sys.argv[3]), int(sys.argv[4])
print("# coil Triton backends on the GPU\n")
print(f"{env}\n")
dialects = " and ".join(f"triton-{t}" for t in sys.argv[6].split())
print(f"Checks against eager PyTorch, every function in {dialects}: **{ok} passed, {fail} failed**.\n")
if fail:
    print("```")
    for line in open(sys.argv[5]):
        if line.startswith("FAIL"):
            print(line.rstrip()[:300])
    print("```\n")
print("| function | dialect | check | coil us | eager us | torch.compile us | coil GB/s | % of read bw | x eager | x compile |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['function']} | {r['dialect']} | {r['check']} | {r['coil_us']} | {r['eager_us']} | {r['compile_us']} | "
          f"{r['coil_GBs']} | {r['coil_pct_read_bw']} | {r['speedup_vs_eager']} | {r['speedup_vs_compile']} |")
seed = [r for r in rows if r["function"].startswith("rms_norm_weight_grad") and r["dialect"] == "gpu"]
print("\n## The seed's bars (GPU dialect)\n")
bars_ok = False
if seed and seed[0]["coil_us"]:
    r = seed[0]
    pct, coil, comp = float(r["coil_pct_read_bw"]), float(r["coil_us"]), r["compile_us"]
    faster = comp != "" and coil < float(comp)
    bars_ok = pct >= 90 and faster and r["check"] == "ok"
    print(f"- check: {r['check']}")
    print(f"- {coil:.1f} us, {pct:.1f}% of the measured read bandwidth ({float(r['read_bw_GBs']):.0f} GB/s): "
          f"{'meets' if pct >= 90 else 'misses'} the 90% bar")
    print(f"- torch.compile {comp or '?'} us: coil is {'faster' if faster else 'not faster'}")
else:
    print("- no timing for the seed (see logs)")
print(f"\nRESULT: {'PASS' if bars_ok and fail == 0 else 'FAIL'}")
EOF
cp "$work/checks.txt" "$OUT/checks.txt"
cp "$work/env.txt" "$work/logs/env.txt"
(cd "$work" && tar czf "$OUT/logs.tar.gz" scripts logs check.*.txt)
cat "$OUT/gpu_check.md"
grep -q '^RESULT: PASS' "$OUT/gpu_check.md"
