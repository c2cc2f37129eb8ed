#!/bin/sh
# bench_smoke: `coil bench` runs and reports what it promises.  Correctness
# only: no time is ever compared with a bar here (timing belongs to
# `make bench`), only that the fields exist, are numbers, are consistent
# with each other, and that the byte count is the floor's (inputs read once,
# outputs written once).  One line per check: ok NAME / FAIL NAME: why.
: "${COIL:?COIL must name the coil binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COIL_CACHE_DIR="$tmp/cache"
case_py=examples/softmax.py   # f32[64, 1000] in, f32[64, 1000] out: 512000 bytes

if "$COIL" bench --json --runs 10 --min-ms 0 "$case_py" >"$tmp/out.json" 2>"$tmp/err"; then
  echo "ok bench/json_exit_0"
else
  echo "FAIL bench/json_exit_0: exit $?: $(head -c 300 "$tmp/err")"
fi
if python3 - "$tmp/out.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
need = ["kernel_ms", "bytes", "gbps", "ceiling_gbps", "fraction", "compile_ms", "cached_compile_ms", "peak_rss_mb"]
bad = [k for k in need if not isinstance(d.get(k), (int, float)) or not math.isfinite(d[k]) or d[k] <= 0]
if bad:
    sys.exit("missing, non-numeric or non-positive: %s" % bad)
if d["bytes"] != 512000:
    sys.exit("bytes %r, expected 512000 (64x1000 f32 in + out)" % d["bytes"])
if d["runs"] < 10:
    sys.exit("only %d runs" % d["runs"])
gbps = d["bytes"] / d["kernel_ms"] / 1e6
if abs(gbps - d["gbps"]) > 1e-3 * gbps + 1e-3:
    sys.exit("gbps %r is not bytes / kernel_ms (%r)" % (d["gbps"], gbps))
if abs(d["fraction"] - d["gbps"] / d["ceiling_gbps"]) > 1e-3 * d["fraction"] + 1e-4:
    sys.exit("fraction %r is not gbps / ceiling_gbps" % d["fraction"])
if not d["kernel_ms_min"] <= d["kernel_ms"] <= d["kernel_ms_max"]:
    sys.exit("median outside [min, max]")
PY
then echo "ok bench/json_fields"
else echo "FAIL bench/json_fields: $(python3 -c 'print(open("'"$tmp/out.json"'").read()[:300])' 2>/dev/null)"
fi
# The private cold-build cache is removed; the user's cache is never written.
if [ -z "$(ls -A "$COIL_CACHE_DIR" 2>/dev/null)" ]; then echo "ok bench/leaves_user_cache_alone"
else echo "FAIL bench/leaves_user_cache_alone: $(ls "$COIL_CACHE_DIR" | head -3)"; fi

if "$COIL" bench --runs 10 --min-ms 0 "$case_py" >"$tmp/out.txt" 2>&1 &&
   grep -q '^kernels ' "$tmp/out.txt" && grep -q '^ceiling ' "$tmp/out.txt" &&
   grep -q 'of the read ceiling' "$tmp/out.txt" && grep -q '^compile .* cold .* cached' "$tmp/out.txt" &&
   grep -q '^memory .*peak RSS' "$tmp/out.txt"; then
  echo "ok bench/text"
else
  echo "FAIL bench/text: $(head -c 300 "$tmp/out.txt")"
fi

# Strided inputs (stride(...)) count what the kernels read of them: every
# other row of x (64 rows of 1000 f32 out of a 128-row storage), one row of
# b (stride 0), and the 64 sums out.
cat >"$tmp/strided.py" <<'PY'
def f(x: "f32[64, 1000] stride(2000, 1)", b: "f32[64, 1000] stride(0, 1)"):
    return (x + b).sum(1)
PY
if "$COIL" bench --json --runs 3 --min-ms 0 "$tmp/strided.py" >"$tmp/s.json" 2>"$tmp/err" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["input_bytes"] == (64 + 1) * 1000 * 4 and d["output_bytes"] == 64 * 4 else 1)' "$tmp/s.json"; then
  echo "ok bench/strided_input_bytes"
else
  echo "FAIL bench/strided_input_bytes: $(head -c 300 "$tmp/err") $(head -c 300 "$tmp/s.json")"
fi

# Several kernels (a multi-output function), --fn and --arg.
if "$COIL" bench --json --runs 10 --min-ms 0 --arg 'x=f32[24, 16, 80] uniform(0.9, 1.1)' examples/reductions.py >"$tmp/r.json" 2>"$tmp/err" &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["kernels"] >= 2 and d["bytes"] > 24*16*80*4 else 1)' "$tmp/r.json"; then
  echo "ok bench/multi_kernel_arg"
else
  echo "FAIL bench/multi_kernel_arg: $(head -c 300 "$tmp/err") $(head -c 300 "$tmp/r.json")"
fi

"$COIL" bench --help >"$tmp/help" 2>&1 && grep -q -- '--json' "$tmp/help" && echo "ok bench/help" || echo "FAIL bench/help"
"$COIL" bench --frobnicate "$case_py" >/dev/null 2>&1
[ $? -eq 2 ] && echo "ok bench/bad_option_status_2" || echo "FAIL bench/bad_option_status_2"
"$COIL" bench tests/errors/undefined_name.py >/dev/null 2>&1
[ $? -eq 2 ] && echo "ok bench/user_error_status_2" || echo "FAIL bench/user_error_status_2"

# --huge-pages: buffers of 2 MiB and more advised onto transparent huge pages
# (4 MB in and out here, sizes that are not multiples of 2 MiB).  Where the
# kernel offers THP for madvise'd memory, some of it must really be on huge
# pages; elsewhere huge_page_mb may be 0, but the field is there.
hp_arg='x=f32[1000, 1001]'
if "$COIL" bench --json --runs 10 --min-ms 0 --huge-pages --arg "$hp_arg" examples/softmax.py >"$tmp/hp.json" 2>"$tmp/err" &&
   "$COIL" bench --json --runs 10 --min-ms 0 --arg "$hp_arg" examples/softmax.py >"$tmp/nohp.json" 2>>"$tmp/err"; then
  echo "ok bench/huge_pages_exit_0"
else
  echo "FAIL bench/huge_pages_exit_0: $(head -c 300 "$tmp/err")"
fi
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if python3 - "$tmp/hp.json" "$tmp/nohp.json" "$thp" <<'PY'
import json, sys
hp, no, thp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
if hp.get("huge_pages") is not True or no.get("huge_pages") is not False:
    sys.exit("huge_pages %r / %r, expected true / false" % (hp.get("huge_pages"), no.get("huge_pages")))
for d in (hp, no):
    if not (d.get("huge_page_mb") is None or d["huge_page_mb"] >= 0):
        sys.exit("huge_page_mb %r" % d.get("huge_page_mb"))
if ("[always]" in thp or "[madvise]" in thp) and not hp["huge_page_mb"] > 0:
    sys.exit("THP is %s but no memory on huge pages with --huge-pages" % thp)
if "[madvise]" in thp and no["huge_page_mb"] not in (0, None):
    sys.exit("THP is madvise-only but %r MB on huge pages without --huge-pages" % no["huge_page_mb"])
PY
then echo "ok bench/huge_pages_json"
else echo "FAIL bench/huge_pages_json: $(head -c 300 "$tmp/hp.json")"
fi

# --cache: cold (the default) flushes the inputs before each timed run, warm
# leaves them; the JSON says which, and which read kernel set the ceiling.
if "$COIL" bench --json --runs 10 --min-ms 0 --cache warm "$case_py" >"$tmp/warm.json" 2>"$tmp/err" &&
   python3 - "$tmp/out.json" "$tmp/warm.json" <<'PY'
import json, sys
cold, warm = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
if cold.get("cache") != "cold" or warm.get("cache") != "warm":
    sys.exit("cache %r / %r, expected cold (the default) / warm" % (cold.get("cache"), warm.get("cache")))
for d in (cold, warm):
    if (d.get("read_streams") not in (1, 2, 4, 8) or d.get("read_bits") not in (128, 512) or
            d.get("read_prefetch") not in (True, False) or d.get("read_split") not in ("static", "dynamic")):
        sys.exit("read kernel: %r streams, %r bits, prefetch %r, split %r" % (
            d.get("read_streams"), d.get("read_bits"), d.get("read_prefetch"), d.get("read_split")))
PY
then echo "ok bench/cache_json"
else echo "FAIL bench/cache_json: $(head -c 300 "$tmp/err") $(head -c 300 "$tmp/warm.json")"
fi
grep -q 'inputs flushed from the caches before each run' "$tmp/out.txt" && grep -q 'streams\{0,1\} each' "$tmp/out.txt" &&
  echo "ok bench/cache_text" || echo "FAIL bench/cache_text: $(head -c 300 "$tmp/out.txt")"
"$COIL" bench --cache hot "$case_py" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--cache takes cold or warm' "$tmp/err" && echo "ok bench/cache_bad_value" ||
  echo "FAIL bench/cache_bad_value: status $rc: $(head -c 300 "$tmp/err")"
"$COIL" bench --cache >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--cache needs a value' "$tmp/err" && echo "ok bench/cache_no_value" ||
  echo "FAIL bench/cache_no_value: status $rc: $(head -c 300 "$tmp/err")"

# bench/compare.py's flush for PyTorch's inputs (--cache cold): it builds,
# says it flushes, leaves freshly written data as it was (dirty lines are
# written back, not dropped) and leaves no build directory behind.
if python3 - "$tmp" <<'PY' 2>"$tmp/err"
import ctypes, os, sys, tempfile
tempfile.tempdir = sys.argv[1]
sys.path.insert(0, "bench")
import compare
ev = compare.build_evict()
buf = bytearray(bytes(range(256)) * 40000)
buf[-5:] = b"dirty"
want = bytes(buf)
addr = ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))
if ev(addr, len(buf)) != 1 or bytes(buf) != want:
    sys.exit("flush returned no 1 or changed the data")
left = [n for n in os.listdir(sys.argv[1]) if n.startswith("coil-evict-")]
if left:
    sys.exit("left behind: %s" % left)
PY
then echo "ok bench/compare_evict"
else echo "FAIL bench/compare_evict: $(head -c 300 "$tmp/err")"
fi
exit 0
