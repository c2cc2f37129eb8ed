#!/bin/sh
# torch.compile(backend="coil") on the H200: build the package, then tools/device/backend_cuda.py; output in $OUT/backend_cuda.txt.
# The image has no libdlpack-dev: tools/device/dlpack_shim.sh finds the C API's header.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
SHIM=$(sh tools/device/dlpack_shim.sh)
python3 -c "import sysconfig, os; p = sysconfig.get_paths()['include']; print(p, os.path.exists(p + '/Python.h'))" >"$OUT/backend_cuda.txt"
make -j"$(nproc)" OPT="-O2 -g $SHIM" all >"$OUT/build.log" 2>&1 || { echo "build failed"; tail -20 "$OUT/build.log"; }
ls build/python/coil >>"$OUT/backend_cuda.txt" 2>&1
PYTHONUNBUFFERED=1 COIL_CACHE_DIR=/tmp/coil-cache python3 tools/device/backend_cuda.py >>"$OUT/backend_cuda.txt" 2>&1
cat "$OUT/backend_cuda.txt"
