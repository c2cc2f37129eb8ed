#!/bin/sh
# The coil binary a device script runs: $COIL when set, else build/coil, built
# here (the device image lacks libdlpack-dev: dlpack_shim.sh) with its log in
# $LOG; on a failed build the log's tail goes to stderr and the status is 2.
#   COIL=$(LOG=$OUT/make.log sh tools/device/coil_bin.sh) || exit 2
if [ -n "${COIL:-}" ]; then
  echo "$COIL"
  exit 0
fi
log=${LOG:-/dev/null}
if ! make -j"$(nproc)" OPT="-O2 -g $(sh tools/device/dlpack_shim.sh)" build/coil >"$log" 2>&1; then
  echo "make build/coil failed:" >&2
  [ "$log" = /dev/null ] || tail -n 20 "$log" >&2
  exit 2
fi
echo "$PWD/build/coil"
