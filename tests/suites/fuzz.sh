#!/bin/sh
# Differential fuzzing: a fixed-seed batch of 500 random functions, each
# compiled, run and checked against the reference.  A failure prints the
# minimised reproducer.  The batch must keep some nodes in buffers
# (recompute.c: stacked layers), so that path stays covered, must have
# compiled indexed loads (gather), indexed stores (index_add, scatter_add)
# and scans (cumsum, cummax...),
# and must have drawn each family of ops the generator adds last: advanced
# indexing with several index tensors, writes at indices, the composites of
# more_ops (triu, diagonal, logaddexp...), activations and losses.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$COIL" fuzz --seed 1 --count 500 --out "$tmp" >"$tmp/log" 2>&1 &&
   tail -n 1 "$tmp/log" | grep -Eq ', [1-9][0-9]* kept buffers, [1-9][0-9]* indexed loads, [1-9][0-9]* indexed stores, [1-9][0-9]* scans, [1-9][0-9]* multi-index, [1-9][0-9]* index writes, [1-9][0-9]* more ops, [1-9][0-9]* activations, [1-9][0-9]* losses\)$'; then
  echo "ok fuzz/seed1_500: $(tail -n 1 "$tmp/log")"
else
  echo "FAIL fuzz/seed1_500:"
  cat "$tmp/log"
fi
# Large shapes (--large), where the CPU schedule chains kernels and splits
# reductions; the tally must show both kinds of chain were compiled, so the
# batch cannot silently stop covering them.
if "$COIL" fuzz --large --seed 2 --count 200 --jobs 2 --out "$tmp" >"$tmp/large.log" 2>&1 &&
   tail -n 1 "$tmp/large.log" | grep -Eq '^fuzz: 200 passed, 0 failed .*compiled: [1-9][0-9]* row chains, [1-9][0-9]* column chains'; then
  echo "ok fuzz/large_seed2_200: $(tail -n 1 "$tmp/large.log")"
else
  echo "FAIL fuzz/large_seed2_200:"
  tail -n 30 "$tmp/large.log"
fi

# The fuzzer must be able to fail: with every output corrupted it must exit
# 1 and write a minimised reproducer that compiles.
mkdir -p "$tmp/self"
COIL_FUZZ_SELFTEST=1 "$COIL" fuzz --seed 3 --count 2 --out "$tmp/self" >"$tmp/self.log" 2>&1
rc=$?
repro=$(ls "$tmp/self"/fuzz_*.py 2>/dev/null | head -1)
if [ $rc -eq 1 ] && [ -n "$repro" ] && "$COIL" dump -d graph "$repro" >/dev/null 2>&1; then
  echo "ok fuzz/detects_corruption"
else
  echo "FAIL fuzz/detects_corruption: status $rc, reproducer '$repro'"
fi
# --jobs splits the batches among processes; a failure in any worker must
# still make the run fail and write its reproducer, and the passed count must
# add up over the workers.
mkdir -p "$tmp/jobs"
COIL_FUZZ_SELFTEST=1 "$COIL" fuzz --seed 3 --count 4 --batch 1 --jobs 2 --out "$tmp/jobs" >"$tmp/jobs.log" 2>&1
rc=$?
n=$(ls "$tmp/jobs"/fuzz_*.py 2>/dev/null | wc -l)
if [ $rc -eq 1 ] && [ "$n" -eq 2 ] && grep -q '^fuzz: [0-9]* passed, 2 failed' "$tmp/jobs.log"; then
  echo "ok fuzz/jobs_detect_corruption"
else
  echo "FAIL fuzz/jobs_detect_corruption: status $rc, $n reproducers: $(tail -n 1 "$tmp/jobs.log")"
fi
if "$COIL" fuzz --seed 5 --count 60 --batch 10 --jobs 3 --out "$tmp" >"$tmp/j3.log" 2>&1 &&
   grep -q '^fuzz: 60 passed, 0 failed' "$tmp/j3.log"; then
  echo "ok fuzz/jobs_count"
else
  echo "FAIL fuzz/jobs_count: $(tail -n 1 "$tmp/j3.log")"
fi
