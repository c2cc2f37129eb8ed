#!/bin/sh
# temporary: backend_cuda.sh (build + checks + times), then backend_profile.py; outputs in $OUT
OUT=$OUT sh tools/device/backend_cuda.sh > /dev/null 2>&1
grep -v "^|" $OUT/backend_cuda.txt | tail -14; grep "Llama\|RMSNorm +" $OUT/backend_cuda.txt
COIL_CACHE_DIR=/tmp/coil-cache python3 tools/device/backend_profile.py >$OUT/profile.txt 2>&1
grep -A12 "Llama 2 layers \[8,256\] fw+bw: coil's groups" $OUT/profile.txt | grep -v "^$" | head -8
grep "^| Llama\|^| rms\|^| tiny" $OUT/profile.txt | tail -12
