#!/bin/sh
# python: the coil package (python/coil: the binding over include/coil.h,
# coil.compile, the torch.compile backend, explain, emit), by pytest over
# tests/python.  One line per test: pytest's PASSED, FAILED, ERROR and
# SKIPPED become "ok", "FAIL" and "skip" lines.  The package is imported
# from BUILD/python (make builds it); run.sh sets PYTHONPATH and the Python.
: "${BUILD:?BUILD must name the build directory}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -c 'import coil._C' 2>"$tmp/err"; then
  echo "FAIL python/import: $(tail -n 1 "$tmp/err")"
  exit 0
fi
python3 -m pytest -q -rA -p no:cacheprovider ${PYTEST_ARGS:-} tests/python >"$tmp/log" 2>&1
rc=$?
sed -n 's/^PASSED \(.*\)$/ok python\/\1/p; s/^FAILED \([^ ]*\)\( - \(.*\)\)\{0,1\}$/FAIL python\/\1: \3/p; s/^ERROR \([^ ]*\)\( - \(.*\)\)\{0,1\}$/FAIL python\/\1: error: \3/p; s/^SKIPPED \[[0-9]*\] \([^:]*:[0-9]*\): \(.*\)$/skip python\/\1: \2/p' "$tmp/log" |
  sed 's|python/tests/python/|python/|'
# pytest's exit status 1 means tests failed (listed above); anything else
# with no test lines (a crash, a collection error) must not look green.
if [ $rc -ne 0 ] && [ $rc -ne 1 ] || ! grep -q '^\(PASSED\|FAILED\|ERROR\|SKIPPED\)' "$tmp/log"; then
  echo "FAIL python/pytest: exited $rc: $(grep -m 3 -i 'error' "$tmp/log" | tr '\n' ' ' | cut -c1-400)"
  tail -n 30 "$tmp/log"
fi
