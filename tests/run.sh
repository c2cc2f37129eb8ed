#!/bin/sh
# coil's test runner.  Every tests/suites/*.sh is a suite: it is run with
# COIL=<path to coil> and BUILD=<build dir> and prints one line per test,
# "ok NAME", "FAIL NAME: why" or "skip NAME: why" (a test that could not
# run; never a pass).  This script counts them, prints "N skipped" when
# any were, and ends with the line "N passed, N failed".  A suite that exits
# non-zero without printing a FAIL line counts as one failure, so a crashing
# suite cannot look green.  COIL_NO_SKIPS=1 (CI) counts each skip as a
# failure too.  SUITES="a b" runs only those; SKIP_SUITES="c" all but those.
#
# Python: the tests run with python3 when it has tests/requirements.txt,
# else with a virtual environment under BUILD/venv that tests/pyenv.sh
# makes; BUILD/python holds the coil package (make builds it).
BUILD=${1:-build}
COIL=$(cd "$BUILD" && pwd)/coil
export BUILD COIL
venv=$(sh tests/pyenv.sh "$BUILD") || { echo "FAIL pyenv: cannot make the Python test environment"; echo "0 passed, 1 failed"; exit 1; }
[ -n "$venv" ] && PATH=$venv:$PATH
PYTHONPATH=$(cd "$BUILD" && pwd)/python${PYTHONPATH:+:$PYTHONPATH}
export PATH PYTHONPATH
export COIL_CACHE_DIR=${COIL_CACHE_DIR:-$(mktemp -d)/coil-cache}
pass=0; fail=0; skip=0
log=$(mktemp)
for suite in tests/suites/*.sh; do
  name=$(basename "$suite" .sh)
  if [ -n "$SUITES" ] && ! echo " $SUITES " | grep -q " $name "; then continue; fi
  if echo " $SKIP_SUITES " | grep -q " $name "; then continue; fi
  echo "== $name"
  t0=$(date +%s)
  sh "$suite" >"$log" 2>&1; rc=$?
  cat "$log"
  echo "== $name: $(($(date +%s) - t0)) s"
  p=$(grep -c '^ok ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^skip ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: suite exited with status $rc"; f=1
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
rm -f "$log"
if [ "$skip" -gt 0 ]; then
  echo "$skip skipped"
  [ "${COIL_NO_SKIPS:-0}" = 1 ] && { echo "FAIL skips: COIL_NO_SKIPS=1 and $skip tests were skipped"; fail=$((fail + skip)); }
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
