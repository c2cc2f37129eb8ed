/* libm, glibc's libmvec, SLEEF's GNU-ABI vector functions (what gcc's
 * vectoriser calls) and SLEEF's own vector API (what PyTorch calls) side by
 * side: each f32 function over 1M inputs, timed, outputs written for
 * accuracy.py.  Built once per variant by run.sh:
 *   -DV_LIBM     plain calls of tanf, atan2f, expm1f, log1pf (the loop stays scalar)
 *   -DV_SIMD     the same calls declared simd("notinbranch"), so gcc vectorises the
 *                loop and calls _ZGV*_tanf...: linked with -lmvec (libmvec) or
 *                -lsleefgnuabi (SLEEF's GNU vector ABI)
 *   -DV_SLEEF    SLEEF's API, Sleef_tanf16_u10 and friends, 16 lanes by hand
 * Usage: vecmath IN.bin N OUTPREFIX REPS */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef V_SLEEF
#include <sleef.h>
#endif

#ifdef V_SIMD
__attribute__((simd("notinbranch"))) float tanf(float);
__attribute__((simd("notinbranch"))) float atan2f(float, float);
__attribute__((simd("notinbranch"))) float expm1f(float);
__attribute__((simd("notinbranch"))) float log1pf(float);
#endif

#ifdef V_SLEEF
#define LOOP1(NAME, F16)                                                       \
  static void NAME(const float *x, float *y, int64_t n) {                      \
    int64_t i = 0;                                                             \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, F16(_mm512_loadu_ps(x + i))); \
    for (; i < n; i++) { float b[16] = {x[i]}; __m512 v = F16(_mm512_loadu_ps(b)); _mm512_storeu_ps(b, v); y[i] = b[0]; } \
  }
#define LOOP2(NAME, F16)                                                       \
  static void NAME(const float *x, const float *z, float *y, int64_t n) {      \
    int64_t i = 0;                                                             \
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, F16(_mm512_loadu_ps(x + i), _mm512_loadu_ps(z + i))); \
    for (; i < n; i++) y[i] = Sleef_atan2f_u10(x[i], z[i]);                   \
  }
LOOP1(f_tan, Sleef_tanf16_u10)
LOOP1(f_expm1, Sleef_expm1f16_u10)
LOOP1(f_log1p, Sleef_log1pf16_u10)
LOOP2(f_atan2, Sleef_atan2f16_u10)
#else
static void f_tan(const float *restrict x, float *restrict y, int64_t n) { for (int64_t i = 0; i < n; i++) y[i] = tanf(x[i]); }
static void f_expm1(const float *restrict x, float *restrict y, int64_t n) { for (int64_t i = 0; i < n; i++) y[i] = expm1f(x[i]); }
static void f_log1p(const float *restrict x, float *restrict y, int64_t n) { for (int64_t i = 0; i < n; i++) y[i] = log1pf(x[i]); }
static void f_atan2(const float *restrict x, const float *restrict z, float *restrict y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = atan2f(x[i], z[i]);
}
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 5) return 2;
  int64_t n = atoll(argv[2]);
  int reps = atoi(argv[4]);
  /* IN.bin: four arrays of n floats: tan's, expm1's, log1p's inputs, then atan2's y and x */
  float *in = malloc(sizeof(float) * 5 * n), *out = malloc(sizeof(float) * n);
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(in, sizeof(float), 5 * n, f) != (size_t)(5 * n)) return 2;
  fclose(f);
  const char *names[4] = {"tan", "expm1", "log1p", "atan2"};
  for (int k = 0; k < 4; k++) {
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      if (k == 0) f_tan(in, out, n);
      else if (k == 1) f_expm1(in + n, out, n);
      else if (k == 2) f_log1p(in + 2 * n, out, n);
      else f_atan2(in + 3 * n, in + 4 * n, out, n);
      double t = now() - t0;
      if (t < best) best = t;
    }
    printf("%s %.3f ms\n", names[k], best * 1e3);
    char path[512];
    snprintf(path, sizeof path, "%s_%s.bin", argv[3], names[k]);
    FILE *o = fopen(path, "wb");
    fwrite(out, sizeof(float), n, o);
    fclose(o);
  }
  return 0;
}
