#!/bin/sh
# Spellings of the C prelude's NaN-propagating max/min, measured: sh tools/max_forms.sh > forms.txt
# From the repository root.  Each spelling of c_max and c_min (below) is
# built into a copy of coil: tests/unit/vector_test's verdict (which loops
# the compiler left scalar) and one `coil bench` per case.  Run on
# 2026-11-30 on the 2-core development machine (gcc 12) and on the 16-core
# host (gcc 13); docs/bench.md ("Column max vectorised") has the table.
# Each form replaces both spellings (c_max and c_maxv, c_min and c_minv),
# so it is measured in every kind of loop.
gcc --version | head -1
i=0
while IFS='@' read -r mx mn; do
  i=$((i + 1))
  d=/tmp/f$i; rm -rf $d; mkdir -p $d
  tar --exclude=./build --exclude=./ab_old --exclude=./.git -cf - . | tar -xf - -C $d
  python3 - "$d/src/cpu/emit.c" "$mx" "$mn" <<'PY'
import sys, re
p, mx, mn = sys.argv[1:]
s = open(p).read()
for name, form in (("c_max", mx), ("c_min", mn), ("c_maxv", mx), ("c_minv", mn)):
    s = re.sub(r'"#define %s\(a, b\) .*\\n"' % name, lambda m: '"#define %s(a, b) %s\\n"' % (name, form), s)
open(p, 'w').write(s)
PY
  (cd $d && make -j16 build/coil build/test/vector_test >/dev/null 2>&1)
  nfail=$($d/build/test/vector_test 2>/dev/null | grep -c FAIL)
  fails=$($d/build/test/vector_test 2>/dev/null | grep FAIL | sed 's/.*vector_//; s/_column_blocks_vectorised.*//' | tr '\n' ' ')
  t=""
  for c in bench/cases/08_many_short_rows_f32.py bench/probes/col_amax_bf16.py bench/probes/col_amax_f32.py bench/cases/18_channel_softmax_f32.py bench/cases/11_softmax_f32.py; do
    ms=$(COIL_CACHE_DIR=/tmp/cache$i $d/build/coil bench --json $c 2>/dev/null | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["kernel_ms"])')
    t="$t $ms"
  done
  echo "form $i: $mx | vector_test fails $nfail ($fails) | ms 08 cmax_bf16 cmax_f32 18 11:$t"
done <<'FORMS'
(((a) != (a)) ? (a) : (a) > (b) ? (a) : (b))@(((a) != (a)) ? (a) : (a) < (b) ? (a) : (b))
((a) > (b) ? (a) : (a) != (a) ? (a) : (b))@((a) < (b) ? (a) : (a) != (a) ? (a) : (b))
(((a) > (b)) || ((a) != (a)) ? (a) : (b))@(((a) < (b)) || ((a) != (a)) ? (a) : (b))
(((a) != (a)) | ((a) > (b)) ? (a) : (b))@(((a) != (a)) | ((a) < (b)) ? (a) : (b))
(__builtin_isunordered(a, b) ? (a) + (b) : (a) > (b) ? (a) : (b))@(__builtin_isunordered(a, b) ? (a) + (b) : (a) < (b) ? (a) : (b))
(((a) > (b)) | ((a) != (a)) ? (a) : (b))@(((a) < (b)) | ((a) != (a)) ? (a) : (b))
(((a) != (a)) || ((a) > (b)) ? (a) : (b))@(((a) != (a)) || ((a) < (b)) ? (a) : (b))
((a) >= (b) || (a) != (a) ? (a) : (b))@((a) <= (b) || (a) != (a) ? (a) : (b))
((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))@((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))
((a) >= (b) ? (a) : (a) != (a) ? (a) : (b))@((a) <= (b) ? (a) : (a) != (a) ? (a) : (b))
FORMS
