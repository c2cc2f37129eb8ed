#!/bin/sh
# A/B timing of two coil binaries on the CPU: sh tools/ab_bench.sh OLD_COIL NEW_COIL ROUNDS CASE.py...
#
# From the repository root.  The two binaries run alternately in one run on
# the same cases: these machines are shared and noisy, so only timings taken
# side by side compare.
#
# Each round runs `coil bench --json` with the old binary, then the new one,
# on every case.  It prints each run's kernel_ms and the read ceiling the run
# measured, then per case the median kernel_ms of each binary and new/old.
set -e
old=$1 new=$2 rounds=$3
shift 3
log=$(mktemp)
r=1
while [ "$r" -le "$rounds" ]; do
  for c in "$@"; do
    for b in old new; do
      eval bin=\$$b
      printf '%s %s ' "$b" "$c" >>"$log"
      "$bin" bench --json "$c" >>"$log"
    done
  done
  r=$((r + 1))
done
python3 - "$log" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    which, case, js = line.split(" ", 2)
    j = json.loads(js)
    runs.setdefault(case, {"old": [], "new": []})[which].append(j)
    print(f"{which} {case:45s} {j['kernel_ms']:8.3f} ms  ceiling {j['ceiling_gbps']:6.1f} GB/s  fraction {j['fraction']:.2f}")
print(f"{'case':45s} {'old ms':>8s} {'new ms':>8s} {'new/old':>8s}")
for case, r in runs.items():
    o = statistics.median(j["kernel_ms"] for j in r["old"])
    n = statistics.median(j["kernel_ms"] for j in r["new"])
    print(f"{case:45s} {o:8.3f} {n:8.3f} {n / o:8.3f}")
PY
rm -f "$log"
