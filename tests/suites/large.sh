#!/bin/sh
# More than 2^31 elements: a 2.2 GB bool tensor, so offsets pass 2^31 and
# 32-bit index arithmetic would wrap.  Its sums must be exact.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/big.py" <<'PY'
def big_bool(m: "bool[2, 1100000000] arange"):
    return m.sum(1), m.flatten().amax(), m.flatten().sum()
PY
if "$COIL" run "$tmp/big.py" --save "$tmp/out" >"$tmp/log" 2>&1 &&
   python3 - "$tmp/out" <<'PY'
import sys, numpy as np
d = sys.argv[1]
assert np.load(d + "/out0.npy").tolist() == [550000000, 550000000]
assert bool(np.load(d + "/out1.npy")) is True
assert int(np.load(d + "/out2.npy")) == 1100000000
PY
then echo "ok large/bool_2_2e9_elements"
else echo "FAIL large/bool_2_2e9_elements: $(tail -n 3 "$tmp/log" | tr '\n' ' ')"; fi
