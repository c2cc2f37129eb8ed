/* The generated code's double exp, log and tanh (c_expd, c_logd, c_tanhd
 * in the C prelude, emit_c.c) against expl, logl and tanhl, libm's long double functions
 * (64-bit mantissa: their error is far below a double's ulp).  The prelude
 * is compiled the way kernels are into a vectorised loop and a plain call
 * per function, and both run over random doubles across the range, random
 * bit patterns (NaNs, infinities, subnormals, every exponent), dense runs
 * where the polynomials alone decide (near 0 for exp, near 1 for log), the
 * ends and the special values.  Each result must lie within 1.5 ulp of the
 * long double function's, within 2 ulp of libm's double one, and the
 * vector loop must give the plain call's bits.  Prints "ok unit/NAME" or
 * "FAIL unit/NAME: ..." like the other unit tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

typedef void (*VecFn)(const double *x, double *y, int64_t n);
typedef double (*OneFn)(double x);

static const char test_src[] =
    "void coil_test_expd_vec(const double *restrict x, double *restrict y, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = c_expd(x[i]);\n"
    "}\n"
    "double coil_test_expd_one(double x) { return c_expd(x); }\n"
    "void coil_test_logd_vec(const double *restrict x, double *restrict y, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = c_logd(x[i]);\n"
    "}\n"
    "double coil_test_logd_one(double x) { return c_logd(x); }\n"
    "double coil_test_sigmoidd_one(double x) { return c_sigmoidd(x); }\n"
    "void coil_test_tanhd_vec(const double *restrict x, double *restrict y, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = c_tanhd(x[i]);\n"
    "}\n"
    "double coil_test_tanhd_one(double x) { return c_tanhd(x); }\n"
    "#define COIL_TEST_FAST(f) \\\n"
    "  void coil_test_##f##_fastvec(const double *restrict x, double *restrict y, uint64_t *restrict off, int64_t n) { \\\n"
    "    _Pragma(\"omp simd\") for (int64_t i = 0; i < n; i++) y[i] = f##_fast(x[i]), off[i] = f##_off(x[i]); \\\n"
    "  } \\\n"
    "  uint64_t coil_test_##f##_offone(double x) { return f##_off(x); }\n"
    "COIL_TEST_FAST(c_expd)\n"
    "COIL_TEST_FAST(c_logd)\n"
    "COIL_TEST_FAST(c_sigmoidd)\n";

/* One function under test: the generated vector loop and plain call, the
 * long double function and libm's double one. */
typedef struct Fn {
  const char *name;
  VecFn vec;
  OneFn one;
  long double (*exact)(long double);
  double (*libm)(double);
} Fn;

static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static double from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* Error of y in ulp of the double nearest to exact (a subnormal's ulp is
 * 2^-1074); infinities must match exactly. */
static double ulp_error(double y, long double exact) {
  double ed = (double)exact;
  if (isinf(ed)) return isinf(y) && signbit(y) == signbit(ed) ? 0 : INFINITY;
  if (exact == 0) return y == 0 ? 0 : fabs(y) / 0x1p-1074;
  if (isinf(y) || isnan(y)) return INFINITY;
  int ex;
  frexpl(exact, &ex);
  long double ulp = ldexpl(1.0L, ex - 53);
  if (ulp < 0x1p-1074L) ulp = 0x1p-1074L;
  return (double)(fabsl((long double)y - exact) / ulp);
}

/* Distance in representable doubles between two results (of any signs). */
static uint64_t distance(double a, double b) {
  int64_t u = (int64_t)bits(a), v = (int64_t)bits(b);
  u = u < 0 ? -(u & INT64_MAX) : u; /* order the bit patterns like the values */
  v = v < 0 ? -(v & INT64_MAX) : v;
  return u > v ? (uint64_t)(u - v) : (uint64_t)(v - u);
}

typedef struct Stats {
  double worst, worst_x;
  uint64_t worst_libm;
  double worst_libm_x;
  long nan_wrong, mismatch, n;
} Stats;

static void check_values(const Fn *f, const double *x, int64_t n, Stats *st) {
  double *y = malloc(sizeof(double) * (size_t)n);
  if (!y) abort();
  f->vec(x, y, n);
  for (int64_t i = 0; i < n; i++) {
    st->n++;
    if (bits(f->one(x[i])) != bits(y[i])) st->mismatch++;
    double want = f->libm(x[i]);
    if (isnan(want) || isnan(y[i])) {
      st->nan_wrong += isnan(want) != isnan(y[i]);
      continue;
    }
    double e = ulp_error(y[i], f->exact((long double)x[i]));
    if (e > st->worst) st->worst = e, st->worst_x = x[i];
    uint64_t d = distance(y[i], want);
    if (d > st->worst_libm) st->worst_libm = d, st->worst_libm_x = x[i];
  }
  free(y);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

static void report(const Fn *f, const char *what, const Stats *st) {
  printf("  %s: %s (%ld doubles): max %.3f ulp (x = %a), max %llu ulp from libm (x = %a)\n", f->name, what, st->n, st->worst, st->worst_x,
         (unsigned long long)st->worst_libm, st->worst_libm_x);
}

enum { N = 1 << 22 };

static void test_expd(const Fn *f, double *x) {
  OneFn one = f->one;

  Stats range = {0};
  for (int64_t i = 0; i < N; i++) x[i] = -746.0 + (710.0 + 746.0) * (double)(next() >> 11) * 0x1p-53;
  check_values(f, x, N, &range);
  report(f, "uniform in [-746, 710]", &range);
  CHECK("expd_range_within_1.5_ulp", range.worst <= 1.5);
  CHECK("expd_range_within_2_ulp_of_libm", range.worst_libm <= 2);
  CHECK("expd_vector_equals_plain_call", range.mismatch == 0);

  Stats pattern = {0};
  for (int64_t i = 0; i < N; i++) x[i] = from_bits(next());
  check_values(f, x, N, &pattern);
  report(f, "random bit patterns", &pattern);
  CHECK("expd_patterns_within_1.5_ulp", pattern.worst <= 1.5 && pattern.worst_libm <= 2 && pattern.mismatch == 0);
  CHECK("expd_nan_where_libm_nan", pattern.nan_wrong == 0);

  Stats near0 = {0};
  for (int64_t i = 0; i < N; i++) x[i] = ldexp((double)(next() >> 11) * 0x1p-53 - 0.5, -(int)(next() % 60));
  check_values(f, x, N, &near0);
  report(f, "near 0, |x| down to 2^-61", &near0);
  CHECK("expd_near_zero_within_1.5_ulp", near0.worst <= 1.5 && near0.mismatch == 0);

  /* The ends: overflow and subnormal results. */
  Stats ends = {0};
  for (int64_t i = 0; i < N; i++) x[i] = i % 2 ? 709.0 + (double)(next() >> 11) * 0x1p-53 : -746.0 + 38.0 * (double)(next() >> 11) * 0x1p-53;
  check_values(f, x, N, &ends);
  report(f, "[709, 710] and [-746, -708]", &ends);
  CHECK("expd_ends_within_1.5_ulp", ends.worst <= 1.5 && ends.worst_libm <= 2 && ends.mismatch == 0);

  CHECK("expd_zero", one(0.0) == 1.0 && one(-0.0) == 1.0);
  CHECK("expd_inf", one(INFINITY) == INFINITY && one(-INFINITY) == 0.0 && one(710.0) == INFINITY && one(1e300) == INFINITY);
  CHECK("expd_underflow", one(-746.0) == 0.0 && one(-1e300) == 0.0 && one(-745.0) > 0.0);
  CHECK("expd_nan", isnan(one(NAN)) && isnan(one(from_bits(0x7ff0000000000001u))));
  CHECK("expd_e", distance(one(1.0), 2.718281828459045) <= 1 && one(0x1p-60) == 1.0);
}

static void test_logd(const Fn *f, double *x) {
  OneFn one = f->one;
  Stats pos = {0};
  for (int64_t i = 0; i < N; i++) x[i] = from_bits(next() & INT64_MAX); /* every positive pattern: subnormals, inf, NaN */
  check_values(f, x, N, &pos);
  report(f, "random positive bit patterns", &pos);
  CHECK("logd_patterns_within_1.5_ulp", pos.worst <= 1.5);
  CHECK("logd_patterns_within_2_ulp_of_libm", pos.worst_libm <= 2);
  CHECK("logd_vector_equals_plain_call", pos.mismatch == 0);
  CHECK("logd_nan_where_libm_nan", pos.nan_wrong == 0);

  Stats near1 = {0};
  for (int64_t i = 0; i < N; i++) x[i] = 0.5 + 1.5 * (double)(next() >> 11) * 0x1p-53;
  check_values(f, x, N, &near1);
  report(f, "uniform in [0.5, 2]", &near1);
  CHECK("logd_near_one_within_1.5_ulp", near1.worst <= 1.5 && near1.worst_libm <= 2 && near1.mismatch == 0);

  Stats close1 = {0};
  for (int64_t i = 0; i < N; i++) x[i] = 1.0 + ldexp((double)(next() >> 11) * 0x1p-53 - 0.5, -(int)(next() % 50));
  check_values(f, x, N, &close1);
  report(f, "1 + |d| down to 2^-51", &close1);
  CHECK("logd_closest_to_one_within_1.5_ulp", close1.worst <= 1.5 && close1.mismatch == 0);

  Stats sub = {0};
  for (int64_t i = 0; i < N; i++) x[i] = from_bits(next() & UINT64_C(0x000fffffffffffff));
  check_values(f, x, N, &sub);
  report(f, "subnormal inputs", &sub);
  CHECK("logd_subnormal_inputs_within_1.5_ulp", sub.worst <= 1.5 && sub.mismatch == 0);

  Stats neg = {0};
  for (int64_t i = 0; i < N; i++) x[i] = -from_bits(next() & INT64_MAX);
  check_values(f, x, N, &neg);
  CHECK("logd_negative_nan", neg.nan_wrong == 0 && neg.mismatch == 0);

  CHECK("logd_one", one(1.0) == 0.0 && !signbit(one(1.0)));
  CHECK("logd_zero", one(0.0) == -INFINITY && one(-0.0) == -INFINITY);
  CHECK("logd_inf", one(INFINITY) == INFINITY && isnan(one(-INFINITY)));
  CHECK("logd_nan", isnan(one(NAN)) && isnan(one(from_bits(0x7ff0000000000001u))));
  CHECK("logd_ends", distance(one(0x1p-1074), -744.4400719213812) <= 1 && distance(one(0x1.fffffffffffffp+1023), 709.782712893384) <= 1);
}

/* The fast forms (c_expd_fast, c_logd_fast, c_sigmoidd_fast; CSched.
 * fast_math): where their check (_off) lets them through they must give
 * the exact function's bits, and the check must be exactly their range.
 * Over random bit patterns, random values of the range, every double
 * within 2^18 of the range's ends, and the specials. */
typedef void (*FastVecFn)(const double *x, double *y, uint64_t *off, int64_t n);
typedef uint64_t (*OffFn)(double x);

static bool expd_fast_range(double x) { return fabs(x) <= 708.0; }
static bool logd_fast_range(double x) { return x >= 0x1p-1022 && x < INFINITY; }

static void test_fast(JitLib *lib, const char *name, OneFn exact, bool (*in_range)(double), double edge, double span,
                      double *x) {
  char vn[64], on[64];
  snprintf(vn, sizeof vn, "coil_test_%s_fastvec", name);
  snprintf(on, sizeof on, "coil_test_%s_offone", name);
  FastVecFn vec = (FastVecFn)(uintptr_t)jit_symbol(lib, vn);
  OffFn off1 = (OffFn)(uintptr_t)jit_symbol(lib, on);
  double *y = malloc(sizeof(double) * N);
  uint64_t *off = malloc(sizeof(uint64_t) * N);
  if (!y || !off) abort();
  if (!vec || !off1 || !exact) {
    printf("FAIL unit/%s_fast_compile: symbols missing\n", name);
    failures++;
    free(y), free(off);
    return;
  }
  long n_all = 0, passed = 0, wrong_off = 0, vec_off = 0, not_exact = 0;
  double first_bad = 0;
  for (int round = 0; round < 3; round++) {
    int64_t n = 0;
    if (round == 0)
      while (n < N) x[n++] = from_bits(next());
    else if (round == 1)
      while (n < N) x[n++] = ((double)(next() >> 11) * 0x1p-53 * 2 - 1) * span;
    else {
      const double ends[] = {edge, -edge, 0x1p-1022, 0x1.fffffffffffffp1023};
      for (int e = 0; e < 4; e++)
        for (int64_t d = -(1 << 18); d <= (1 << 18); d++) x[n++] = from_bits(bits(ends[e]) + (uint64_t)d);
      const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0, 0x1p-1074, -0x1p-1074};
      for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) x[n++] = sp[i];
    }
    vec(x, y, off, n);
    for (int64_t i = 0; i < n; i++) {
      bool bad = false;
      n_all++;
      if ((off[i] != 0) == in_range(x[i])) wrong_off++, bad = true;
      if ((off1(x[i]) != 0) != (off[i] != 0)) vec_off++, bad = true;
      if (!off[i]) {
        passed++;
        if (bits(y[i]) != bits(exact(x[i]))) not_exact++, bad = true;
      }
      if (bad && !first_bad) first_bad = x[i] ? x[i] : 0x1p-1074;
    }
  }
  printf("  %s_fast: %ld doubles, %ld let through; %ld checks off their range, %ld vector/plain check differences, %ld not exact "
         "(first bad x = %a)\n",
         name, n_all, passed, wrong_off, vec_off, not_exact, first_bad);
  char what[96];
  snprintf(what, sizeof what, "%s_fast_check_is_its_range", name);
  CHECK(what, wrong_off == 0 && vec_off == 0 && passed > 0);
  snprintf(what, sizeof what, "%s_fast_equals_exact_on_range", name);
  CHECK(what, not_exact == 0);
  free(y);
  free(off);
}

/* c_sigmoidd where 1 + e^-x rounds to 1 (x from about 36.7 to 37.4) and
 * where e^-x would overflow (x below -709.8, results subnormal): against
 * the long double formula, rounded. */
static void test_sigmoidd(OneFn one) {
  long one_too_early = 0, tiny_wrong = 0, n = 0;
  for (double x = 36.0; x <= 38.0; x += 0x1p-20, n++) {
    double want = (double)(1.0L / (1.0L + expl(-(long double)x)));
    one_too_early += want < 1.0 && one(x) == 1.0;
  }
  for (double x = -745.0; x <= -700.0; x += 0x1p-12, n++) {
    long double want = 1.0L / (1.0L + expl(-(long double)x));
    tiny_wrong += fabsl((long double)one(x) - want) > 2 * 0x1p-1074L + 0x1p-50L * want;
  }
  printf("  sigmoidd: %ld points, %ld at 1 too early, %ld tiny results off\n", n, one_too_early, tiny_wrong);
  CHECK("sigmoidd_below_one_where_rounded_result_is", one_too_early == 0);
  CHECK("sigmoidd_tiny_results", tiny_wrong == 0);
  CHECK("sigmoidd_ends", one(INFINITY) == 1.0 && one(-INFINITY) == 0.0 && one(0.0) == 0.5 && isnan(one(NAN)));
}

/* c_tanhd: random doubles over [-25, 25] (both branches and the switch at
 * 0.625), every bit pattern (subnormals, the saturated ends, inf, NaN), a
 * dense run across 0.625, and the special values. */
static void test_tanhd(const Fn *f, double *x) {
  Stats st = {0};
  for (int64_t i = 0; i < N; i++) x[i] = ((double)(next() >> 11) * 0x1p-53 - 0.5) * 50.0;
  check_values(f, x, N, &st);
  for (int64_t i = 0; i < N; i++) x[i] = from_bits(next());
  check_values(f, x, N, &st);
  for (int64_t i = 0; i < N; i++) x[i] = 0.6 + (double)i * (0.05 / N);
  check_values(f, x, N, &st);
  report(f, "random, every pattern, around 0.625", &st);
  CHECK("tanhd_within_1.5_ulp", st.worst <= 1.5);
  CHECK("tanhd_within_3_ulp_of_libm", st.worst_libm <= 3);
  CHECK("tanhd_nan_where_libm_nan", st.nan_wrong == 0);
  CHECK("tanhd_vector_equals_plain_call", st.mismatch == 0);
  OneFn one = f->one;
  CHECK("tanhd_signed_zero", bits(one(0.0)) == bits(0.0) && bits(one(-0.0)) == bits(-0.0));
  CHECK("tanhd_inf", one(INFINITY) == 1.0 && one(-INFINITY) == -1.0 && one(30.0) == 1.0 && one(-30.0) == -1.0);
  CHECK("tanhd_nan", isnan(one(NAN)) && isnan(one(-NAN)));
  CHECK("tanhd_tiny", one(0x1p-1074) == 0x1p-1074 && one(-1e-300) == -1e-300);
}

int main(void) {
  JitLib lib;
  if (!jit_with_prelude(test_src, "mathd", &lib)) return 1;
  Fn fexp = {"expd", (VecFn)(uintptr_t)jit_symbol(&lib, "coil_test_expd_vec"), (OneFn)(uintptr_t)jit_symbol(&lib, "coil_test_expd_one"),
             expl, exp};
  Fn flog = {"logd", (VecFn)(uintptr_t)jit_symbol(&lib, "coil_test_logd_vec"), (OneFn)(uintptr_t)jit_symbol(&lib, "coil_test_logd_one"),
             logl, log};
  if (!fexp.vec || !fexp.one || !flog.vec || !flog.one) {
    printf("FAIL unit/mathd_compile: symbols missing\n");
    return 1;
  }
  double *x = malloc(sizeof(double) * N);
  if (!x) abort();
  test_expd(&fexp, x);
  test_logd(&flog, x);
  test_fast(&lib, "c_expd", fexp.one, expd_fast_range, 708.0, 720.0, x);
  test_fast(&lib, "c_logd", flog.one, logd_fast_range, 0x1p-1022, 1e6, x);
  OneFn sigmoidd = (OneFn)(uintptr_t)jit_symbol(&lib, "coil_test_sigmoidd_one");
  test_sigmoidd(sigmoidd);
  test_fast(&lib, "c_sigmoidd", sigmoidd, expd_fast_range, 708.0, 720.0, x);
  Fn ftanh = {"tanhd", (VecFn)(uintptr_t)jit_symbol(&lib, "coil_test_tanhd_vec"),
              (OneFn)(uintptr_t)jit_symbol(&lib, "coil_test_tanhd_one"), tanhl, tanh};
  if (ftanh.vec && ftanh.one) test_tanhd(&ftanh, x);
  else printf("FAIL unit/tanhd_compile: symbols missing\n");
  free(x);
  jit_close(&lib);
  return failures ? 1 : 0;
}
