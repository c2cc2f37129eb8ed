#!/bin/sh
# Prints the compiler flag that finds <dlpack/dlpack.h> for the C API: none
# where the system has it (libdlpack-dev), else -I of a folder holding
# PyTorch's copy of the header (the H200 image has no libdlpack-dev).
#   make OPT="-O2 -g $(sh tools/device/dlpack_shim.sh)" ...
set -eu
for d in /usr/include /usr/local/include; do
  if [ -f "$d/dlpack/dlpack.h" ]; then exit 0; fi
done
shim=${TMPDIR:-/tmp}/coil-dlpack-shim
mkdir -p "$shim/dlpack"
torch=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__))")
cp "$torch/include/ATen/dlpack.h" "$shim/dlpack/dlpack.h"
echo "-I$shim"
