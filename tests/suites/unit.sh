#!/bin/sh
# Unit tests: every C test binary built from tests/unit/*.c prints its own
# ok/FAIL lines.  (The npy and Triton-executor binaries run in their own
# suites.)
for t in "$BUILD"/test/*_test; do
  case $(basename "$t") in npy_test|tx_*) continue ;; esac
  "$t" || echo "FAIL unit/$(basename "$t"): exited with status $?"
done
