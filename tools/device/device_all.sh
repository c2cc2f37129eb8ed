#!/bin/bash
# Everything coil measures on the lent H200 host, in one device call: OUT=DIR bash tools/device/device_all.sh
# One call because device time is short and every machine starts bare.
# From the repository root:
#     OUT=/some/dir [STEPS="fuzz tx sweep check cpu16"] bash tools/device/device_all.sh
# Steps, in this order (STEPS picks a subset; the default is all of them):
#   fuzz   a long differential fuzz run of one seed on 12 of the 16 CPU cores
#          (`coil fuzz --seed $FUZZ_SEED --count $FUZZ_COUNT --jobs 12`), in
#          the background while the GPU steps run;
#   tx     the Triton executor against real Triton (tools/device/gpu_tx_agree.py);
#   sweep  the seed's GPU-dialect variants (tools/device/gpu_seed_sweep.py) beside
#          coil's modules with pointer and TMA loads;
#   timing the seed's module, torch.sum and a read-only kernel timed four ways
#          (do_bench, clean flush, no flush, CUDA graph: tools/device/gpu_timing_method.py);
#   check  every example and test function in both Triton dialects on the GPU,
#          the seed timed against eager and torch.compile (tools/device/gpu_check.sh;
#          GPU_LOADS=tma checks the GPU dialect with tensor-descriptor loads);
#   cpu16  after the fuzzer: the 16-core CPU bench of the seed (tools/device/cpu16_bench.sh).
# Only a few files come back from the device, so the work goes to a temp dir
# and $OUT gets summary.txt, appended as each step ends (a call cut short
# still reports what it measured), and results.tar.gz at the end.
set -u
FINAL=${OUT:-/tmp/coil-out}
STEPS=" ${STEPS:-fuzz tx sweep timing check cpu16} "
FUZZ_SEED=${FUZZ_SEED:-3001}
FUZZ_COUNT=${FUZZ_COUNT:-30000}
mkdir -p "$FINAL"
W=$(mktemp -d)
OUT=$W
mkdir -p "$OUT/fuzz"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export COIL_CACHE_DIR=/tmp/coil-cache
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/steps.log" "$FINAL/summary.txt"; }
want() { case "$STEPS" in *" $1 "*) return 0 ;; esac; return 1; }
pack() { tar -czf "$FINAL/results.tar.gz" -C "$W" . 2>/dev/null; }

log "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1); steps:$STEPS"
make -j"$(nproc)" OPT="-O2 -g $(sh tools/device/dlpack_shim.sh)" build/coil >"$OUT/build.log" 2>&1 || { log "build failed"; tail -20 "$OUT/build.log"; exit 1; }
log "built"

fuzz_pid=
if want fuzz; then
  fuzz_start=$(date +%s)
  ( OMP_NUM_THREADS=1 COIL_CACHE_DIR=/tmp/coil-fuzz-cache \
      ./build/coil fuzz --seed "$FUZZ_SEED" --count "$FUZZ_COUNT" --jobs 12 --out "$OUT/fuzz" \
      >"$OUT/fuzz/fuzz.log" 2>&1 ) &
  fuzz_pid=$!
  log "fuzz started: coil fuzz --seed $FUZZ_SEED --count $FUZZ_COUNT --jobs 12"
fi

if want tx; then
  timeout 120 python3 tools/device/gpu_tx_agree.py build/coil "$OUT" >"$OUT/tx_agree.log" 2>&1
  log "executor vs real Triton: status $?"
  cat "$OUT/tx_agree.md" >>"$FINAL/summary.txt" 2>/dev/null || tail -n 20 "$OUT/tx_agree.log" >>"$FINAL/summary.txt"
fi

if want sweep; then
  mods=
  for loads in pointer tma; do
    if build/coil emit --target triton-gpu --gpu-loads $loads --harness examples/rms_norm_weight_grad.py \
        >"$OUT/seed_$loads.py" 2>"$OUT/seed_$loads.err"; then mods="$mods $OUT/seed_$loads.py"
    else log "emit --gpu-loads $loads failed: $(head -c 300 "$OUT/seed_$loads.err")"; fi
  done
  OUT="$OUT/sweep" timeout "${SWEEP_TIMEOUT:-300}" python3 tools/device/gpu_seed_sweep.py $mods >"$OUT/sweep.log" 2>&1
  log "sweep: status $?"
  { cat "$OUT/sweep/sweep.md" 2>/dev/null || tail -n 30 "$OUT/sweep.log"; } >>"$FINAL/summary.txt"
  pack
fi

if want timing; then
  build/coil emit --target triton-gpu --harness examples/rms_norm_weight_grad.py >"$OUT/seed_gpu.py"
  OUT="$OUT/timing" timeout 240 python3 tools/device/gpu_timing_method.py "$OUT/seed_gpu.py" >"$OUT/timing.log" 2>&1
  log "timing method: status $?"
  { cat "$OUT/timing/timing_method.md" 2>/dev/null || tail -n 30 "$OUT/timing.log"; } >>"$FINAL/summary.txt"
  pack
fi

if want check; then
  COIL=build/coil OUT="$OUT/gpu" GPU_LOADS="${GPU_LOADS:-}" REP=100 TIMEOUT=290 BENCH='rms_norm_weight_grad' timeout 400 sh tools/device/gpu_check.sh \
    >"$OUT/gpu_check.log" 2>&1
  log "gpu_check: status $?"
  head -n 60 "$OUT/gpu/gpu_check.md" >>"$FINAL/summary.txt" 2>/dev/null
  pack
fi

if [ -n "$fuzz_pid" ]; then
  wait "$fuzz_pid"
  log "fuzz: status $? after $(( $(date +%s) - fuzz_start )) s: $(grep -h '^fuzz:' "$OUT/fuzz/fuzz.log")"
  grep -h -A 30 "reproducer" "$OUT/fuzz/fuzz.log" >>"$FINAL/summary.txt" 2>/dev/null
  for f in $(ls "$OUT"/fuzz/fuzz_*.py 2>/dev/null | head -n 3); do cp "$f" "$FINAL/"; done
  pack
fi

if want cpu16; then
  timeout "${CPU16_TIMEOUT:-140}" sh tools/device/cpu16_bench.sh >"$OUT/cpu16.log" 2>&1
  log "cpu16 bench: status $?"
  { echo "== cpu16"; tail -n 40 "$OUT/cpu16.log"; } >>"$FINAL/summary.txt"
fi
pack
tail -n 80 "$FINAL/summary.txt"
