#!/bin/bash
# Everything coil measures on the lent H200 host, in one call (the device
# time is short and a machine starts bare).  From the repository root:
#     OUT=/some/dir bash tools/device_all.sh
#   1. build coil there (gcc and OpenSSL are in the image);
#   2. start a long differential fuzz run on 12 of the 16 CPU cores;
#   3. on the GPU: the executor against real Triton (tools/gpu_tx_agree.py),
#      then every example and test function in both Triton dialects, with the
#      seed timed against eager and torch.compile (tools/gpu_check.sh);
#   4. wait for the fuzzers, then the 16-core CPU bench of the seed case on
#      an idle CPU (tools/cpu16_bench.sh).
# Each step writes under $OUT as it goes, so a run cut short still returns
# what it did.
set -u
# Only a few files come back from the device: the work goes to $W, and $OUT
# gets summary.txt (appended as steps finish) and, at the end, results.tar.gz.
FINAL=${OUT:-/tmp/coil-out}
mkdir -p "$FINAL"
W=$(mktemp -d)
OUT=$W
mkdir -p "$OUT/fuzz"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export COIL_CACHE_DIR=/tmp/coil-cache
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/steps.log" "$FINAL/summary.txt"; }

log "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1)"
make -j"$(nproc)" build/coil >"$OUT/build.log" 2>&1 || { log "build failed"; tail -20 "$OUT/build.log"; exit 1; }
log "built"

FUZZ_SECONDS=${FUZZ_SECONDS:-270}
fuzz_start=$(date +%s)
for i in $(seq 0 11); do
  ( OMP_NUM_THREADS=1 COIL_CACHE_DIR=/tmp/coil-fuzz-cache-$i \
      ./build/coil fuzz --seed $((1000 + i)) --count 1000000 --seconds "$FUZZ_SECONDS" --out "$OUT/fuzz" \
      >"$OUT/fuzz/seed$((1000 + i)).log" 2>&1 ) &
done
log "fuzz started: 12 processes, seeds 1000-1011, $FUZZ_SECONDS s each"

timeout 120 python3 tools/gpu_tx_agree.py build/coil "$OUT" >"$OUT/tx_agree.log" 2>&1
log "executor vs real Triton: status $?"
# Each table goes into the returned file as soon as it exists: a call cut
# short by the device's time limit still reports what it measured.
cat "$OUT/tx_agree.md" >>"$FINAL/summary.txt" 2>/dev/null || tail -n 20 "$OUT/tx_agree.log" >>"$FINAL/summary.txt"

COIL=build/coil OUT="$OUT/gpu" REP=100 TIMEOUT=200 BENCH='rms_norm_weight_grad' timeout 300 sh tools/gpu_check.sh \
  >"$OUT/gpu_check.log" 2>&1
log "gpu_check: status $?"
head -n 60 "$OUT/gpu/gpu_check.md" >>"$FINAL/summary.txt" 2>/dev/null

wait
grep -h -A 20 "reproducer" "$OUT"/fuzz/seed*.log >>"$FINAL/summary.txt" 2>/dev/null
log "fuzz done after $(( $(date +%s) - fuzz_start )) s: $(cat "$OUT"/fuzz/seed*.log | grep -h '^fuzz:' | \
  awk '{p += $2; f += $4} END {print p " passed, " f " failed"}')"

timeout 140 sh tools/cpu16_bench.sh >"$OUT/cpu16.log" 2>&1
log "cpu16 bench: status $?"
{ echo "== cpu16"; tail -n 40 "$OUT/cpu16.log"; } >>"$FINAL/summary.txt"
tar -czf "$FINAL/results.tar.gz" -C "$W" . 2>/dev/null
tail -n 60 "$FINAL/summary.txt"
