#!/bin/bash
# Everything coil measures on the lent H200 host, in one call (the device
# time is short and a machine starts bare):
#   1. build coil there (gcc and OpenSSL are in the image);
#   2. the 16-core CPU bench of the seed case (tools/cpu16_bench.sh), on an
#      idle CPU;
#   3. in the background, a long differential fuzz run on the CPU cores;
#   4. on the GPU: the executor against real Triton (tools/gpu_tx_agree.py)
#      and every example in both Triton dialects (tools/gpu_check.sh);
#   5. the fuzz run's result.
# Each step writes under $OUT as it goes, so a run cut short still returns
# what it did.  Usage (from the repository root): bash tools/device_all.sh
set -u
OUT=${OUT:-/tmp/coil-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export COIL_CACHE_DIR=/tmp/coil-cache
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/steps.log"; }

log "machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1)"
log "build"
make -j"$(nproc)" build/coil >"$OUT/build.log" 2>&1 || { log "build failed"; tail -20 "$OUT/build.log"; exit 1; }

if [ -x tools/cpu16_bench.sh ] || [ -f tools/cpu16_bench.sh ]; then
  log "cpu16 bench"
  timeout 200 bash tools/cpu16_bench.sh "$OUT" >"$OUT/cpu16.log" 2>&1; log "cpu16 bench status $?"
fi

FUZZ_SECONDS=${FUZZ_SECONDS:-240}
log "fuzz: $(nproc) processes for up to $FUZZ_SECONDS s"
fuzz_start=$(date +%s)
mkdir -p "$OUT/fuzz"
for i in $(seq 0 $(( $(nproc) - 2 ))); do
  ( OMP_NUM_THREADS=1 COIL_CACHE_DIR=/tmp/coil-fuzz-cache-$i timeout "$FUZZ_SECONDS" \
      ./build/coil fuzz --seed $((1000 + i)) --count 100000 --seconds $((FUZZ_SECONDS - 40)) --out "$OUT/fuzz" >"/tmp/fuzz$i.log" 2>&1
    echo "exit $?" >>"/tmp/fuzz$i.log" ) &
done

log "gpu: executor vs real Triton"
timeout 240 python3 tools/gpu_tx_agree.py build/coil "$OUT" >"$OUT/tx_agree.log" 2>&1; log "agree status $?"
if [ -f tools/gpu_check.sh ]; then
  log "gpu: every example in both dialects"
  timeout 400 bash tools/gpu_check.sh "$OUT" >"$OUT/gpu_check.log" 2>&1; log "gpu_check status $?"
fi

wait
fuzz_end=$(date +%s)
{
  echo "fuzz: $(nproc) processes, seeds 1000.., $((fuzz_end - fuzz_start)) s wall"
  for f in /tmp/fuzz*.log; do tail -n 2 "$f" | tr '\n' ' '; echo; done
} >"$OUT/fuzz_summary.txt"
cat /tmp/fuzz*.log >"$OUT/fuzz/all.log" 2>/dev/null
log "done"
cat "$OUT/steps.log"; cat "$OUT/fuzz_summary.txt"; cat "$OUT/tx_agree.md" 2>/dev/null
