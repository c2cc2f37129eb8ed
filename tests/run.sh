#!/bin/sh
# coil's test runner.  Every tests/suites/*.sh is a suite: it is run with
# COIL=<path to coil> and BUILD=<build dir> and prints one line per test,
# "ok NAME" or "FAIL NAME: why".  This script counts them and ends with the
# line "N passed, N failed".  A suite that exits non-zero without printing a
# FAIL line counts as one failure, so a crashing suite cannot look green.
BUILD=${1:-build}
COIL=$(cd "$BUILD" && pwd)/coil
export BUILD COIL
export COIL_CACHE_DIR=${COIL_CACHE_DIR:-$(mktemp -d)/coil-cache}
pass=0; fail=0
log=$(mktemp)
for suite in tests/suites/*.sh; do
  name=$(basename "$suite" .sh)
  if [ -n "$SUITES" ] && ! echo " $SUITES " | grep -q " $name "; then continue; fi
  echo "== $name"
  sh "$suite" >"$log" 2>&1; rc=$?
  cat "$log"
  p=$(grep -c '^ok ' "$log"); f=$(grep -c '^FAIL ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: suite exited with status $rc"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f))
done
rm -f "$log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
