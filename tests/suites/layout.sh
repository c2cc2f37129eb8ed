#!/bin/sh
# layout: the house rules (docs/architecture.md), read from this build's
# objects: calls between folders go one way, and no files outside the
# executor call each other around a loop.  The checker's own selftest
# plants each kind of violation and must see it.
: "${BUILD:?BUILD must name the build directory}"
python3 tests/layout/check.py --selftest
python3 tests/layout/check.py "$BUILD/obj" src
