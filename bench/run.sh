#!/bin/sh
# The CPU bench suite, run by make bench: sh bench/run.sh [BUILD_DIR] [compare.py options]
# The benchmark table (bench/compare.py) for every case in bench/cases/, coil
# beside PyTorch eager and torch.compile, all measured in this run on this
# machine.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 2
echo "coil bench suite: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-default}"
exec python3 bench/compare.py --coil "$BUILD/coil" "$@"
