#!/bin/sh
# api: the public C API (include/coil.h) as a program outside coil uses it
# (tests/api/api_test.c: source text and graphs built node by node, errors
# as values, tensors checked, threads), and the example program that builds
# the seed case with it (examples/api/rms_grad.c).
: "${BUILD:?BUILD must name the build directory}"
"$BUILD"/test/api_test || echo "FAIL api/api_test: exited with status $?"
if out=$("$BUILD"/examples/rms_grad 2>&1); then echo "ok api/example_rms_grad"
else echo "FAIL api/example_rms_grad: $(echo "$out" | tail -n 2)"; fi
