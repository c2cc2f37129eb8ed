#!/bin/sh
# npy: the unit tests of src/cmd/npy.c, then both directions against NumPy:
# files coil writes must load in NumPy with the right dtype, shape and values,
# and files NumPy writes (versions 1.0 and 2.0, every dtype, 0-d) must read
# back in coil with the same values; the ones coil must refuse are refused.
BUILD=${BUILD:-build}
T=$BUILD/test/npy_test
if [ ! -x "$T" ]; then echo "FAIL npy_test: $T not built"; exit 0; fi
"$T"

if ! python3 -c 'import numpy' 2>/dev/null; then
  echo "ok npy_numpy_checks # SKIP numpy not installed"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# coil -> NumPy
mkdir "$tmp/w"
if ! "$T" write "$tmp/w" >"$tmp/w.log" 2>&1; then
  echo "FAIL npy_write_samples: $(cat "$tmp/w.log")"
else
  python3 - "$tmp/w" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
f32 = np.array([0, 1.5, -2, 3.25, 1e-3, -1e30], np.float32).reshape(2, 3)
want = {
    "f32": f32,
    "f64": np.array([0, 1.5, -2, 3.25, 1e-300, -1e300], np.float64).reshape(2, 3),
    "i32": np.array([0, 1, -2, 2**31 - 1, -2**31, 5], np.int32).reshape(2, 3),
    "i64": np.array([0, 1, -2, 2**63 - 1, -2**63, 5], np.int64).reshape(2, 3),
    "bool": np.array([1, 0, 0, 1, 1, 0], bool).reshape(2, 3),
    "f16": np.array([0, 1.5, -2, 3.25, 1e-3, -65504], np.float16).reshape(2, 3),
    # bf16 saved as f32: each value is the f32 rounded to bf16 (1e-3 and
    # -1e30 are not bf16 values, the others are)
    "bf16": (f32.view(np.uint32) + 0x7fff + ((f32.view(np.uint32) >> 16) & 1)
             & 0xffff0000).view(np.float32),
    "scalar": np.array(2.5, np.float64),
    "long_shape": f32.reshape((6,) + (1,) * 15),
}
for name, w in want.items():
    try:
        a = np.load(f"{d}/{name}.npy", allow_pickle=False)
        if a.dtype != w.dtype or a.shape != w.shape:
            raise AssertionError(f"got {a.dtype}{a.shape}, want {w.dtype}{w.shape}")
        if not np.array_equal(a, w):
            raise AssertionError(f"values {a.ravel()} != {w.ravel()}")
        print(f"ok numpy_reads_{name}")
    except Exception as e:
        print(f"FAIL numpy_reads_{name}: {e}")
EOF
fi

# NumPy -> coil
mkdir "$tmp/r"
python3 - "$tmp/r" <<'EOF'
import sys, numpy as np
from numpy.lib import format as fmt
d = sys.argv[1]
x = np.array([[0.5, -1.25, 3], [1e-3, 7, -8]])
arrs = {
    "f32": x.astype(np.float32), "f64": x, "f16": x.astype(np.float16),
    "i32": np.array([[1, -2, 3], [2**31 - 1, -2**31, 0]], np.int32),
    "i64": np.array([[1, -2, 3], [2**63 - 1, -2**63, 0]], np.int64),
    "bool": np.array([[True, False, True], [False, False, True]]),
    "u1": np.array([[0, 1, 2], [255, 0, 1]], np.uint8),
    "scalar": np.array(3.5, np.float32), "vec": np.arange(5, dtype=np.int64),
    "empty": np.zeros((0, 4), np.float32),
    "noncontig": x.T,  # saved by NumPy in Fortran order: coil refuses it
    "bigendian": x.astype(">f4"),
    "complex": x.astype(np.complex64),
}
for name, a in arrs.items():
    np.save(f"{d}/{name}.npy", a)
with open(f"{d}/v2.npy", "wb") as f:
    fmt.write_array(f, x.astype(np.float32), version=(2, 0))
with open(f"{d}/v3.npy", "wb") as f:
    fmt.write_array(f, x.astype(np.float32), version=(3, 0))
EOF
expect() { # NAME FILE EXPECTED-OUTPUT
  got=$("$T" dump "$tmp/r/$2" 2>&1)
  if [ "$got" = "$3" ]; then echo "ok $1"; else echo "FAIL $1: got '$got', want '$3'"; fi
}
expect_err() { # NAME FILE WORD
  got=$("$T" dump "$tmp/r/$2" 2>&1); rc=$?
  case "$got" in
  *"$tmp/r/$2"*"$3"*) [ $rc -eq 2 ] && echo "ok $1" || echo "FAIL $1: status $rc";;
  *) echo "FAIL $1: got '$got' (status $rc), want an error naming the file with '$3'";;
  esac
}
expect coil_reads_numpy_f32 f32.npy "f32 (2, 3) 0.5 -1.25 3 0.00100000005 7 -8"
expect coil_reads_numpy_f64 f64.npy "f64 (2, 3) 0.5 -1.25 3 0.001 7 -8"
expect coil_reads_numpy_f16 f16.npy "f16 (2, 3) 0.5 -1.25 3 0.00100040436 7 -8"
expect coil_reads_numpy_i32 i32.npy "i32 (2, 3) 1 -2 3 2147483647 -2147483648 0"
expect coil_reads_numpy_i64 i64.npy "i64 (2, 3) 1 -2 3 9223372036854775807 -9223372036854775808 0"
expect coil_reads_numpy_bool bool.npy "bool (2, 3) 1 0 1 0 0 1"
expect coil_reads_numpy_u1_as_bool u1.npy "bool (2, 3) 0 1 1 1 0 1"
expect coil_reads_numpy_0d scalar.npy "f32 () 3.5"
expect coil_reads_numpy_1d vec.npy "i64 (5,) 0 1 2 3 4"
expect coil_reads_numpy_empty empty.npy "f32 (0, 4)"
expect coil_reads_numpy_v2 v2.npy "f32 (2, 3) 0.5 -1.25 3 0.00100000005 7 -8"
expect coil_reads_numpy_v3 v3.npy "f32 (2, 3) 0.5 -1.25 3 0.00100000005 7 -8"
expect_err coil_refuses_numpy_fortran noncontig.npy "Fortran"
expect_err coil_refuses_numpy_bigendian bigendian.npy "big-endian"
expect_err coil_refuses_numpy_complex complex.npy "unsupported dtype"
exit 0
