/* The generated code's expf (c_expf in the C prelude, emit_c.c) against
 * libm.  The prelude is compiled the way kernels are (jit_compile, the
 * kernels' flags) into a vectorised loop and a plain call, and both are run
 * over a sample of every float's bit pattern, every float whose exp is
 * subnormal, the overflow threshold and the special values.  Each result
 * must lie within 1.5 ulp of exp computed in double (the prelude's comment
 * promises about 1) and within 2 ulp of libm's expf.  Prints "ok unit/NAME"
 * or "FAIL unit/NAME: ..." like the other unit tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coil.h"

static int failures;

#define CHECK(name, cond)                                                                  \
  do {                                                                                     \
    if (cond) printf("ok unit/%s\n", name);                                                \
    else { printf("FAIL unit/%s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); failures++; } \
  } while (0)

typedef void (*VecFn)(const float *x, float *y, int64_t n);
typedef float (*OneFn)(float x);

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Error of y in units in the last place of the float nearest to exact (a
 * subnormal's ulp is 2^-149).  Infinities must match exactly. */
static double ulp_error(float y, double exact) {
  float ef = (float)exact;
  if (isinf(ef)) return isinf(y) && y > 0 ? 0 : INFINITY;
  if (isinf(y) || isnan(y)) return INFINITY;
  int ex;
  frexp(exact, &ex);
  double ulp = ldexp(1.0, ex - 24);
  if (ulp < 0x1p-149) ulp = 0x1p-149;
  return fabs((double)y - exact) / ulp;
}

/* Distance in representable floats between two non-negative results. */
static uint32_t float_distance(float a, float b) {
  uint32_t u = to_bits(a), v = to_bits(b);
  return u > v ? u - v : v - u;
}

typedef struct Stats {
  double worst;       /* ulp error against exp in double */
  float worst_x;
  uint32_t worst_libm; /* distance from libm's expf */
  float worst_libm_x;
  long nan_wrong;     /* NaN in, not NaN out (or the reverse) */
  long mismatch;      /* vector and plain call disagree */
  long n;
} Stats;

static void check_values(VecFn vec, OneFn one, const float *x, int64_t n, Stats *st) {
  float *y = malloc(sizeof(float) * (size_t)n);
  if (!y) abort();
  vec(x, y, n);
  for (int64_t i = 0; i < n; i++) {
    float xi = x[i], yi = y[i];
    st->n++;
    if (to_bits(one(xi)) != to_bits(yi)) st->mismatch++;
    if (isnan(xi) || isnan(yi)) {
      st->nan_wrong += isnan(xi) != isnan(yi);
      continue;
    }
    double e = ulp_error(yi, exp((double)xi));
    if (e > st->worst) st->worst = e, st->worst_x = xi;
    uint32_t d = float_distance(yi, expf(xi));
    if (d > st->worst_libm) st->worst_libm = d, st->worst_libm_x = xi;
  }
  free(y);
}

/* Every float from lo up to hi (both of one sign, lo nearer zero in bits). */
static void check_range(VecFn vec, OneFn one, float from, float to, Stats *st) {
  uint32_t a = to_bits(from), b = to_bits(to);
  if (a > b) { uint32_t t = a; a = b; b = t; }
  enum { BATCH = 1 << 20 };
  float *x = malloc(sizeof(float) * BATCH);
  if (!x) abort();
  for (uint64_t u = a; u <= b;) {
    int64_t n = 0;
    while (n < BATCH && u <= b) x[n++] = from_bits((uint32_t)u++);
    check_values(vec, one, x, n, st);
  }
  free(x);
}

static const char test_src[] =
    "void coil_test_expf_vec(const float *restrict x, float *restrict y, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = c_expf(x[i]);\n"
    "}\n"
    "float coil_test_expf_one(float x) { return c_expf(x); }\n";

int main(void) {
  StrBuf src = {0};
  emit_c_prelude(&src);
  sb_puts(&src, test_src);
  JitLib lib;
  CoilErr *e = jit_compile(src.data, &lib);
  sb_free(&src);
  if (e) {
    printf("FAIL unit/expf_compile: %s\n", e->msg);
    coil_error_free(e);
    return 1;
  }
  VecFn vec = (VecFn)(uintptr_t)jit_symbol(&lib, "coil_test_expf_vec");
  OneFn one = (OneFn)(uintptr_t)jit_symbol(&lib, "coil_test_expf_one");
  if (!vec || !one) {
    printf("FAIL unit/expf_compile: symbols missing\n");
    return 1;
  }

  /* A sample of all 2^32 bit patterns: every 61st (61 is odd, so every
   * mantissa residue and exponent is hit), with NaNs and infinities. */
  Stats all = {0};
  {
    enum { BATCH = 1 << 20 };
    float *x = malloc(sizeof(float) * BATCH);
    if (!x) abort();
    for (uint64_t u = 0; u < (1ull << 32);) {
      int64_t n = 0;
      while (n < BATCH && u < (1ull << 32)) x[n++] = from_bits((uint32_t)u), u += 61;
      check_values(vec, one, x, n, &all);
    }
    free(x);
  }
  printf("  sample of %ld floats: max %.3f ulp (x = %a), max %u ulp from libm expf (x = %a)\n", all.n, all.worst,
         all.worst_x, all.worst_libm, all.worst_libm_x);
  CHECK("expf_sample_within_1.5_ulp", all.worst <= 1.5);
  CHECK("expf_sample_within_2_ulp_of_libm", all.worst_libm <= 2);
  CHECK("expf_nan_in_nan_out", all.nan_wrong == 0);
  CHECK("expf_vector_equals_plain_call", all.mismatch == 0);

  /* Every x around [-1, 1] in steps of 2^-20 (where the polynomial alone
   * decides the result; r = x for |x| < ln2/2). */
  Stats mid = {0};
  {
    int64_t n = 2 * (1 << 20) + 1;
    float *x = malloc(sizeof(float) * (size_t)n);
    if (!x) abort();
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i - (1 << 20)) * 0x1p-20f;
    check_values(vec, one, x, n, &mid);
    free(x);
  }
  printf("  [-1, 1] step 2^-20: max %.3f ulp (x = %a)\n", mid.worst, mid.worst_x);
  CHECK("expf_unit_interval_within_1.5_ulp", mid.worst <= 1.5 && mid.worst_libm <= 2);

  /* Every float whose exp is subnormal or rounds to zero or to the
   * smallest normal, and every float around the overflow threshold. */
  Stats sub = {0}, over = {0};
  check_range(vec, one, -87.0f, -105.0f, &sub);
  printf("  every x in [-105, -87] (%ld): max %.3f ulp (x = %a)\n", sub.n, sub.worst, sub.worst_x);
  CHECK("expf_subnormal_results_within_1.5_ulp", sub.worst <= 1.5 && sub.worst_libm <= 2);
  check_range(vec, one, 88.0f, 90.0f, &over);
  printf("  every x in [88, 90] (%ld): max %.3f ulp (x = %a)\n", over.n, over.worst, over.worst_x);
  CHECK("expf_overflow_threshold", over.worst <= 1.5 && over.worst_libm <= 2);

  /* Special values, exactly. */
  CHECK("expf_zero", one(0.0f) == 1.0f && one(-0.0f) == 1.0f);
  CHECK("expf_inf", isinf(one(INFINITY)) && one(INFINITY) > 0);
  CHECK("expf_minus_inf", one(-INFINITY) == 0.0f && !signbit(one(-INFINITY)));
  CHECK("expf_nan", isnan(one(NAN)) && isnan(one(-NAN)) && isnan(one(from_bits(0x7f800001u))) &&
                        isnan(one(from_bits(0xff800001u))));
  CHECK("expf_largest_finite", one(0x1.62e42ep+6f) == 0x1.ffff08p+127f);
  CHECK("expf_first_overflow", isinf(one(0x1.62e430p+6f)));
  CHECK("expf_huge", isinf(one(200.0f)) && isinf(one(1e30f)) && isinf(one(0x1.fffffep+127f)));
  CHECK("expf_tiny", one(-200.0f) == 0.0f && one(-1e30f) == 0.0f && one(-0x1.fffffep+127f) == 0.0f);
  CHECK("expf_smallest_subnormal", one(-103.9f) == 0x1p-149f && one(-104.0f) == 0.0f);
  CHECK("expf_tiny_inputs", one(0x1p-149f) == 1.0f && one(-0x1p-149f) == 1.0f && one(0x1p-30f) == 1.0f);
  CHECK("expf_one", float_distance(one(1.0f), 2.71828183f) <= 1);
  jit_close(&lib);
  return failures ? 1 : 0;
}
