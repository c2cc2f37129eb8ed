#!/bin/sh
# The CPU bench on the 16 cores of the lent GPU host: sh tools/device/cpu16_bench.sh [--suite]
# The 16-core measurement (docs/bench.md, "H200 host's 16-core CPU"), from the
# repository root:
#
#     sh tools/device/cpu16_bench.sh            # the seed case: coil, eager, torch.compile
#     sh tools/device/cpu16_bench.sh --suite    # and every bench/cases/*.py
#     CASES=14_,15_ sh tools/device/cpu16_bench.sh   # the seed and the cases named
#
# It builds coil, prints the machine, runs `coil bench` on the seed with one
# thread per core (the read ceiling is measured in the same process), times a
# plain hand-fused C loop for the seed (tools/device/seed_loop.c: the 96 GB/s
# reference of the issue) and then bench/compare.py (coil beside PyTorch
# eager and torch.compile, same threads).  Paste its output into
# docs/bench.md.  torch.compile's first compile of the seed takes about a
# minute there; it happens before any timing.
set -e
cd "$(dirname "$0")/../.."
ncpu=$(nproc)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$ncpu}
export COIL_CACHE_DIR=${COIL_CACHE_DIR:-$(mktemp -d)/coil-cache}
echo "== machine: $(date -u '+%Y-%m-%d %H:%M UTC')"
lscpu | grep -E "^(Model name|CPU\(s\)|Thread|Core|Socket|L3|NUMA node0)" || true
echo "OMP_NUM_THREADS=$OMP_NUM_THREADS $(cc --version | head -n 1)"
python3 -c 'import torch; print("torch", torch.__version__, "threads", torch.get_num_threads())' 2>/dev/null || echo "torch: not installed"
make -j"$ncpu" OPT="-O2 -g $(sh tools/device/dlpack_shim.sh)" build/coil >/dev/null
echo "== coil bench, seed case ($OMP_NUM_THREADS threads)"
build/coil dump -d schedule bench/cases/01_seed.py | sed -n '2,$p'
build/coil bench --runs 30 bench/cases/01_seed.py
build/coil bench --json --runs 30 bench/cases/01_seed.py
echo "== hand-fused C loop, seed case (tools/device/seed_loop.c)"
cc -std=c11 -O3 -march=native -fopenmp -fno-math-errno tools/device/seed_loop.c -o "${TMPDIR:-/tmp}/coil_seed_loop" -lm
"${TMPDIR:-/tmp}/coil_seed_loop"
echo "== coil beside torch eager and torch.compile"
if [ "${1:-}" = "--suite" ]; then
  python3 bench/compare.py --coil build/coil
else
  # CASES (comma-separated prefixes, as compare.py --cases) adds cases to the seed
  python3 bench/compare.py --coil build/coil --cases "01_seed${CASES:+,$CASES}"
fi
