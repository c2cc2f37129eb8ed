#!/bin/sh
# Where a row chain's time goes on this CPU: sh tools/lse_probe.sh (from the repository root, after make).
# The logsumexp bench case's C (bench/cases/15_logsumexp_bf16.py), timed
# single-threaded as emitted and with one part removed at a time (the
# next-row prefetch, the exp, the max pass's NaN lanes), and with 512-bit
# vectors preferred.
set -e
t=$(mktemp -d)
build/coil emit bench/cases/15_logsumexp_bf16.py > "$t/base.c"
cat > "$t/main.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void coil_lse_k0(void *const *bufs);
static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6; }
int main(void) {
  size_t n = (size_t)8192 * 8192;
  uint16_t *x = malloc(n * 2);
  float *out = malloc(8192 * 4), *buf = malloc(8192 * 4);
  for (size_t i = 0; i < n; i++) {
    float f = (float)((i * 2654435761u) % 1000u) / 250.0f - 2.0f;
    uint32_t b; memcpy(&b, &f, 4); x[i] = (uint16_t)(b >> 16);
  }
  void *bufs[3] = {x, out, buf};
  coil_lse_k0(bufs);
  double best = 1e30;
  for (int k = 0; k < 5; k++) { double t0 = now(); coil_lse_k0(bufs); double t1 = now() - t0; if (t1 < best) best = t1; }
  printf("%8.2f ms  (%.2f ns per element)  out[0]=%g\n", best, best * 1e6 / (double)n, out[0]);
  return 0;
}
C
sed '/c_prefetch(&/d' "$t/base.c" > "$t/noprefetch.c"
sed 's/c_exp(v3)/(v3)/' "$t/base.c" > "$t/noexp.c"
sed '/nan0\[l\] = v/d' "$t/base.c" > "$t/nonan.c"
F="-O3 -march=native -fopenmp -fwrapv -fno-math-errno"
for v in base noprefetch noexp nonan; do
  cc $F "$t/$v.c" "$t/main.c" -o "$t/$v" -lm
  printf '%-12s' "$v"; OMP_NUM_THREADS=1 "$t/$v"
done
cc $F -mprefer-vector-width=512 "$t/base.c" "$t/main.c" -o "$t/w512" -lm
printf '%-12s' "base w512"; OMP_NUM_THREADS=1 "$t/w512"
cc $F -mprefer-vector-width=512 "$t/noexp.c" "$t/main.c" -o "$t/noexp512" -lm
printf '%-12s' "noexp w512"; OMP_NUM_THREADS=1 "$t/noexp512"
rm -rf "$t"
