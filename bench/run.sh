#!/bin/sh
# make bench: the benchmark table (bench/compare.py) for every case in
# bench/cases/, coil beside PyTorch eager and torch.compile, all measured in
# this run on this machine.  Usage: sh bench/run.sh [BUILD_DIR] [compare.py options]
BUILD=${1:-build}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 2
echo "coil bench suite: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cpus, OMP_NUM_THREADS=${OMP_NUM_THREADS:-default}"
exec python3 bench/compare.py --coil "$BUILD/coil" "$@"
