/* The generated code's float exp, log, tanh and pow (c_expf, c_logf,
 * c_tanhf, c_powf in the C prelude, emit_c.c) against libm.  The prelude is compiled the way
 * kernels are (jit_compile, the kernels' flags) into a vectorised loop and
 * a plain call per function, and both are run over a sample of every
 * float's bit pattern, dense runs where the polynomials alone decide the
 * result, the ranges at the ends (subnormal results and inputs, overflow)
 * and the special values.  Each result must lie within the function's
 * bound in ulp of the function computed in double (expf: 1.5; the prelude's
 * comments promise about 1) and within 2 ulp of libm's, and the vector loop
 * must give the plain call's bits.  Prints "ok unit/NAME" or
 * "FAIL unit/NAME: ..." like the other unit tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

typedef void (*VecFn)(const float *x, float *y, int64_t n);
typedef float (*OneFn)(float x);

/* One function under test: the generated vector loop and plain call, the
 * exact function (in double) and libm's float one. */
typedef struct Fn {
  VecFn vec;
  OneFn one;
  double (*exact)(double);
  float (*libm)(float);
} Fn;

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
  if (isinf(ef)) return isinf(y) && signbit(y) == signbit(ef) ? 0 : INFINITY;
  if (exact == 0) return y == 0 ? 0 : fabs((double)y) / 0x1p-149;
  if (isinf(y) || isnan(y)) return INFINITY;
  int ex;
  frexp(exact, &ex);
  double ulp = ldexp(1.0, ex - 24);
  if (ulp < 0x1p-149) ulp = 0x1p-149;
  return fabs((double)y - exact) / ulp;
}

/* Distance in representable floats between two results (of any signs). */
static uint32_t float_distance(float a, float b) {
  int64_t u = to_bits(a), v = to_bits(b);
  u = u & 0x80000000 ? -(u & 0x7fffffff) : u; /* order the bit patterns like the values */
  v = v & 0x80000000 ? -(v & 0x7fffffff) : v;
  return (uint32_t)(u > v ? u - v : v - u);
}

typedef struct Stats {
  double worst;       /* ulp error against exp in double */
  float worst_x;
  uint32_t worst_libm; /* distance from libm's function */
  float worst_libm_x;
  long nan_wrong;     /* NaN in, not NaN out (or the reverse) */
  long mismatch;      /* vector and plain call disagree */
  long n;
} Stats;

static void check_values(const Fn *f, const float *x, int64_t n, Stats *st) {
  float *y = malloc(sizeof(float) * (size_t)n);
  if (!y) abort();
  f->vec(x, y, n);
  for (int64_t i = 0; i < n; i++) {
    float xi = x[i], yi = y[i];
    st->n++;
    if (to_bits(f->one(xi)) != to_bits(yi)) st->mismatch++;
    float want = f->libm(xi);
    if (isnan(want) || isnan(yi)) {
      st->nan_wrong += isnan(want) != isnan(yi);
      continue;
    }
    double e = ulp_error(yi, f->exact((double)xi));
    if (e > st->worst) st->worst = e, st->worst_x = xi;
    uint32_t d = float_distance(yi, want);
    if (d > st->worst_libm) st->worst_libm = d, st->worst_libm_x = xi;
  }
  free(y);
}

/* Every float from lo up to hi (both of one sign, lo nearer zero in bits). */
static void check_range(const Fn *f, float from, float to, Stats *st) {
  uint32_t a = to_bits(from), b = to_bits(to);
  if (a > b) { uint32_t t = a; a = b; b = t; }
  enum { BATCH = 1 << 20 };
  float *x = malloc(sizeof(float) * BATCH);
  if (!x) abort();
  for (uint64_t u = a; u <= b;) {
    int64_t n = 0;
    while (n < BATCH && u <= b) x[n++] = from_bits((uint32_t)u++);
    check_values(f, x, n, st);
  }
  free(x);
}

/* A sample of all 2^32 bit patterns: every 61st (61 is odd, so every
 * mantissa residue and exponent is hit), with NaNs and infinities. */
static void check_sample(const Fn *f, Stats *st) {
  enum { BATCH = 1 << 20 };
  float *x = malloc(sizeof(float) * BATCH);
  if (!x) abort();
  for (uint64_t u = 0; u < (1ull << 32);) {
    int64_t n = 0;
    while (n < BATCH && u < (1ull << 32)) x[n++] = from_bits((uint32_t)u), u += 61;
    check_values(f, x, n, st);
  }
  free(x);
}

/* Every x in [lo, hi] in steps of step. */
static void check_steps(const Fn *f, float lo, float hi, float step, Stats *st) {
  int64_t n = (int64_t)((hi - lo) / step) + 1;
  float *x = malloc(sizeof(float) * (size_t)n);
  if (!x) abort();
  for (int64_t i = 0; i < n; i++) x[i] = lo + (float)i * step;
  check_values(f, x, n, st);
  free(x);
}

static const char test_src[] =
    "#define COIL_TEST_FN(f) \\\n"
    "  void coil_test_##f##_vec(const float *restrict x, float *restrict y, int64_t n) { \\\n"
    "    _Pragma(\"omp simd\") for (int64_t i = 0; i < n; i++) y[i] = f(x[i]); \\\n"
    "  } \\\n"
    "  float coil_test_##f##_one(float x) { return f(x); }\n"
    "COIL_TEST_FN(c_expf)\n"
    "COIL_TEST_FN(c_logf)\n"
    "COIL_TEST_FN(c_tanhf)\n"
    "COIL_TEST_FN(c_sigmoidf)\n"
    "#define COIL_TEST_FAST(f) \\\n"
    "  void coil_test_##f##_fastvec(const float *restrict x, float *restrict y, uint32_t *restrict off, int64_t n) { \\\n"
    "    _Pragma(\"omp simd\") for (int64_t i = 0; i < n; i++) y[i] = f##_fast(x[i]), off[i] = f##_off(x[i]); \\\n"
    "  } \\\n"
    "  uint32_t coil_test_##f##_offone(float x) { return f##_off(x); }\n"
    "COIL_TEST_FAST(c_expf)\n"
    "COIL_TEST_FAST(c_logf)\n"
    "COIL_TEST_FAST(c_sigmoidf)\n"
    "void coil_test_c_powf_vec(const float *restrict a, const float *restrict b, float *restrict y, int64_t n) {\n"
    "  _Pragma(\"omp simd\") for (int64_t i = 0; i < n; i++) y[i] = c_powf(a[i], b[i]);\n"
    "}\n"
    "float coil_test_c_powf_one(float a, float b) { return c_powf(a, b); }\n";

static bool load(JitLib *lib, const char *name, double (*exact)(double), float (*libm)(float), Fn *f) {
  char vec[64], one[64];
  snprintf(vec, sizeof vec, "coil_test_%s_vec", name);
  snprintf(one, sizeof one, "coil_test_%s_one", name);
  *f = (Fn){(VecFn)(uintptr_t)jit_symbol(lib, vec), (OneFn)(uintptr_t)jit_symbol(lib, one), exact, libm};
  if (!f->vec || !f->one) printf("FAIL unit/%s_compile: symbols missing\n", name);
  return f->vec && f->one;
}

static void report(const char *what, const Stats *st) {
  printf("  %s (%ld floats): max %.3f ulp (x = %a), max %u ulp from libm (x = %a)\n", what, st->n, st->worst, st->worst_x,
         st->worst_libm, st->worst_libm_x);
}

static void test_expf(const Fn *f) {
  OneFn one = f->one;
  Stats all = {0};
  check_sample(f, &all);
  report("expf: sample of all floats", &all);
  CHECK("expf_sample_within_1.5_ulp", all.worst <= 1.5);
  CHECK("expf_sample_within_2_ulp_of_libm", all.worst_libm <= 2);
  CHECK("expf_nan_in_nan_out", all.nan_wrong == 0);
  CHECK("expf_vector_equals_plain_call", all.mismatch == 0);

  /* Every x around [-1, 1] in steps of 2^-20 (where the polynomial alone
   * decides the result; r = x for |x| < ln2/2). */
  Stats mid = {0};
  check_steps(f, -1.0f, 1.0f, 0x1p-20f, &mid);
  report("expf: [-1, 1] step 2^-20", &mid);
  CHECK("expf_unit_interval_within_1.5_ulp", mid.worst <= 1.5 && mid.worst_libm <= 2);

  /* Every float whose exp is subnormal or rounds to zero or to the
   * smallest normal, and every float around the overflow threshold. */
  Stats sub = {0}, over = {0};
  check_range(f, -87.0f, -105.0f, &sub);
  report("expf: every x in [-105, -87]", &sub);
  CHECK("expf_subnormal_results_within_1.5_ulp", sub.worst <= 1.5 && sub.worst_libm <= 2);
  check_range(f, 88.0f, 90.0f, &over);
  report("expf: every x in [88, 90]", &over);
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
}

static void test_logf(const Fn *f) {
  OneFn one = f->one;
  Stats all = {0};
  check_sample(f, &all);
  report("logf: sample of all floats", &all);
  CHECK("logf_sample_within_1.5_ulp", all.worst <= 1.5);
  CHECK("logf_sample_within_2_ulp_of_libm", all.worst_libm <= 2);
  CHECK("logf_nan_where_libm_nan", all.nan_wrong == 0);
  CHECK("logf_vector_equals_plain_call", all.mismatch == 0);
  /* Around 1, where log is small and its relative error the hardest to
   * keep (f = x - 1 exactly; the polynomial alone decides), and every
   * subnormal input near the bottom and every float of one binade. */
  Stats near1 = {0}, sub = {0}, binade = {0};
  check_steps(f, 0.5f, 2.0f, 0x1p-22f, &near1);
  report("logf: [0.5, 2] step 2^-22", &near1);
  CHECK("logf_near_one_within_1.5_ulp", near1.worst <= 1.5 && near1.worst_libm <= 2);
  check_range(f, 0x1p-149f, 0x1p-135f, &sub);
  report("logf: subnormal inputs [2^-149, 2^-135]", &sub);
  CHECK("logf_subnormal_inputs_within_1.5_ulp", sub.worst <= 1.5 && sub.worst_libm <= 2);
  check_range(f, 1.0f, 2.0f, &binade);
  report("logf: every x in [1, 2]", &binade);
  CHECK("logf_binade_within_1.5_ulp", binade.worst <= 1.5 && binade.worst_libm <= 2);
  CHECK("logf_one", one(1.0f) == 0.0f && !signbit(one(1.0f)));
  CHECK("logf_zero", one(0.0f) == -INFINITY && one(-0.0f) == -INFINITY);
  CHECK("logf_inf", one(INFINITY) == INFINITY);
  CHECK("logf_negative", isnan(one(-1.0f)) && isnan(one(-INFINITY)) && isnan(one(-0x1p-149f)));
  CHECK("logf_nan", isnan(one(NAN)) && isnan(one(from_bits(0x7f800001u))));
  CHECK("logf_ends", float_distance(one(0x1p-149f), -103.2789306640625f) <= 1 &&
                         float_distance(one(0x1.fffffep+127f), 88.72283935546875f) <= 1);
}

static void test_tanhf(const Fn *f) {
  OneFn one = f->one;
  Stats all = {0};
  check_sample(f, &all);
  report("tanhf: sample of all floats", &all);
  CHECK("tanhf_sample_within_2_ulp", all.worst <= 2);
  CHECK("tanhf_sample_within_2_ulp_of_libm", all.worst_libm <= 2);
  CHECK("tanhf_nan_in_nan_out", all.nan_wrong == 0);
  CHECK("tanhf_vector_equals_plain_call", all.mismatch == 0);
  /* Both sides of the switch from the polynomial to the exp form (0.55),
   * and up to where tanh rounds to 1. */
  Stats mid = {0};
  check_steps(f, -10.0f, 10.0f, 0x1p-18f, &mid);
  report("tanhf: [-10, 10] step 2^-18", &mid);
  CHECK("tanhf_middle_within_2_ulp", mid.worst <= 2 && mid.worst_libm <= 2);
  Stats cut = {0};
  check_range(f, 0.5f, 0.6f, &cut);
  report("tanhf: every x in [0.5, 0.6]", &cut);
  CHECK("tanhf_switch_within_2_ulp", cut.worst <= 2 && cut.worst_libm <= 2);
  CHECK("tanhf_zero", one(0.0f) == 0.0f && !signbit(one(0.0f)) && one(-0.0f) == 0.0f && signbit(one(-0.0f)));
  CHECK("tanhf_inf", one(INFINITY) == 1.0f && one(-INFINITY) == -1.0f);
  CHECK("tanhf_saturates", one(20.0f) == 1.0f && one(-20.0f) == -1.0f && one(1e30f) == 1.0f);
  CHECK("tanhf_tiny", one(0x1p-149f) == 0x1p-149f && one(-0x1p-140f) == -0x1p-140f && one(0x1p-30f) == 0x1p-30f);
  CHECK("tanhf_odd", one(-0.3f) == -one(0.3f) && one(-3.0f) == -one(3.0f));
  CHECK("tanhf_nan", isnan(one(NAN)) && isnan(one(-NAN)));
}

/* sigmoid computed in double, and as a float formula (PyTorch's CPU one). */
static double sigmoid_exact(double x) { return 1.0 / (1.0 + exp(-x)); }
static float sigmoid_plain(float x) { return 1.0f / (1.0f + expf(-x)); }

static void test_sigmoidf(const Fn *f) {
  Stats all = {0};
  check_sample(f, &all);
  report("sigmoidf: sample of all floats", &all);
  CHECK("sigmoidf_sample_within_3_ulp", all.worst <= 3);
  CHECK("sigmoidf_nan_in_nan_out", all.nan_wrong == 0);
  CHECK("sigmoidf_vector_equals_plain_call", all.mismatch == 0);
  /* Where it saturates: 1 + e^-x rounds to 1 from x = 16.6 on, while the
   * result rounds to 1 only from 17.3 (c_sigmoidf_of takes the rounding of
   * 1 + e back out).  A float formula gives 1 over that stretch, 0.7 ulp
   * off, and a cast to an integer turns that into 1 instead of 0. */
  Stats sat = {0};
  check_range(f, 15.0f, 18.0f, &sat);
  report("sigmoidf: every x in [15, 18]", &sat);
  CHECK("sigmoidf_saturation_within_0.55_ulp", sat.worst <= 0.55);
  long one_too_early = 0;
  for (float x = 15.0f; x <= 18.0f; x = nextafterf(x, 100.0f))
    one_too_early += (float)sigmoid_exact((double)x) < 1.0f && f->one(x) == 1.0f;
  CHECK("sigmoidf_below_one_where_rounded_result_is", one_too_early == 0);
  CHECK("sigmoidf_ends", f->one(INFINITY) == 1.0f && f->one(-INFINITY) == 0.0f && f->one(0.0f) == 0.5f);
}

/* The fast forms (c_expf_fast, c_logf_fast, c_sigmoidf_fast; CSched.fast_math): where
 * their check (_off) lets them through they must give the exact
 * function's bits, and the check must let through exactly their range. */
typedef void (*FastVecFn)(const float *x, float *y, uint32_t *off, int64_t n);
typedef uint32_t (*OffFn)(float x);

typedef struct FastStats {
  long n, passed;  /* values checked, values the check let through */
  long wrong_off;  /* the check disagrees with the stated range */
  long vec_off;    /* the vector loop's check disagrees with the plain call's */
  long not_exact;  /* let through, but not the exact function's bits */
  float first_bad;
} FastStats;

static void check_fast(FastVecFn vec, OffFn off1, OneFn exact, bool (*in_range)(float), const float *x, int64_t n,
                       FastStats *st) {
  float *y = malloc(sizeof(float) * (size_t)n);
  uint32_t *off = malloc(sizeof(uint32_t) * (size_t)n);
  if (!y || !off) abort();
  vec(x, y, off, n);
  for (int64_t i = 0; i < n; i++) {
    bool bad = false;
    st->n++;
    if ((off[i] != 0) == in_range(x[i])) st->wrong_off++, bad = true;
    if ((off1(x[i]) != 0) != (off[i] != 0)) st->vec_off++, bad = true;
    if (!off[i]) {
      st->passed++;
      if (to_bits(y[i]) != to_bits(exact(x[i]))) st->not_exact++, bad = true;
    }
    if (bad && !st->first_bad) st->first_bad = x[i] ? x[i] : 0x1p-149f;
  }
  free(y);
  free(off);
}

static bool expf_fast_range(float x) { return fabsf(x) <= 87.0f; }
static bool logf_fast_range(float x) { return x >= 0x1p-126f && x < INFINITY; }

static void test_fast(JitLib *lib, const char *name, OneFn exact, bool (*in_range)(float), float edge) {
  char vn[64], on[64];
  snprintf(vn, sizeof vn, "coil_test_%s_fastvec", name);
  snprintf(on, sizeof on, "coil_test_%s_offone", name);
  FastVecFn vec = (FastVecFn)(uintptr_t)jit_symbol(lib, vn);
  OffFn off1 = (OffFn)(uintptr_t)jit_symbol(lib, on);
  if (!vec || !off1) {
    printf("FAIL unit/%s_fast_compile: symbols missing\n", name);
    failures++;
    return;
  }
  enum { BATCH = 1 << 20 };
  float *x = malloc(sizeof(float) * BATCH);
  if (!x) abort();
  FastStats st = {0};
  /* Every 61st bit pattern (NaNs, infinities, subnormals among them)... */
  for (uint64_t u = 0; u < (1ull << 32);) {
    int64_t n = 0;
    while (n < BATCH && u < (1ull << 32)) x[n++] = from_bits((uint32_t)u), u += 61;
    check_fast(vec, off1, exact, in_range, x, n, &st);
  }
  /* ...and every float within 2^18 patterns of each end of the range, on
   * both signs, and the specials. */
  const float ends[] = {edge, -edge, 0x1p-126f, 0x1.fffffep127f};
  for (int e = 0; e < 4; e++) {
    int64_t n = 0;
    for (int64_t d = -(1 << 18); d <= (1 << 18); d++) x[n++] = from_bits(to_bits(ends[e]) + (uint32_t)d);
    check_fast(vec, off1, exact, in_range, x, n, &st);
  }
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f, 0x1p-149f, -0x1p-149f};
  memcpy(x, specials, sizeof specials);
  check_fast(vec, off1, exact, in_range, x, (int64_t)(sizeof specials / sizeof specials[0]), &st);
  free(x);
  printf("  %s_fast: %ld floats, %ld let through; %ld checks off their range, %ld vector/plain check differences, %ld not "
         "exact (first bad x = %a)\n",
         name, st.n, st.passed, st.wrong_off, st.vec_off, st.not_exact, st.first_bad);
  char what[96];
  snprintf(what, sizeof what, "%s_fast_check_is_its_range", name);
  CHECK(what, st.wrong_off == 0 && st.vec_off == 0 && st.passed > 0);
  snprintf(what, sizeof what, "%s_fast_equals_exact_on_range", name);
  CHECK(what, st.not_exact == 0);
}

/* c_powf (the prelude's powf) against pow in double and libm's powf:
 * pairs drawn over bases from 2^-40 to 2^40 of both signs and exponents in
 * [-24, 24], integers among them (negative bases), so that results span
 * subnormals to overflow; every pair of special values against libm's
 * powf, bit for bit (C99's special cases); the vector loop against the
 * plain call. */
typedef void (*PowVec)(const float *a, const float *b, float *y, int64_t n);
typedef float (*PowOne)(float a, float b);

static uint64_t pow_rng = 0x9e3779b97f4a7c15u;
static uint32_t next_u32(void) {
  pow_rng ^= pow_rng << 13;
  pow_rng ^= pow_rng >> 7;
  pow_rng ^= pow_rng << 17;
  return (uint32_t)(pow_rng >> 16);
}

static void test_powf(JitLib *lib) {
  PowVec vec = (PowVec)(uintptr_t)jit_symbol(lib, "coil_test_c_powf_vec");
  PowOne one = (PowOne)(uintptr_t)jit_symbol(lib, "coil_test_c_powf_one");
  if (!vec || !one) {
    printf("FAIL unit/c_powf_compile: symbols missing\n");
    return;
  }
  enum { N = 1 << 20 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *y = malloc(N * sizeof *y);
  for (int i = 0; i < N; i++) {
    float m = 1.0f + (float)(next_u32() & 0xffffff) * 0x1p-24f;
    a[i] = ldexpf(m, (int)(next_u32() % 81) - 40) * (next_u32() & 1 ? -1.0f : 1.0f);
    b[i] = (float)((int)(next_u32() % 49) - 24);
    if (a[i] > 0 && next_u32() & 1) b[i] += (float)(next_u32() & 0xffff) * 0x1p-16f;
  }
  vec(a, b, y, N);
  double worst = 0;
  uint32_t worst_libm = 0;
  long mismatch = 0, nan_wrong = 0;
  float wa = 0, wb = 0;
  for (int i = 0; i < N; i++) {
    float p = one(a[i], b[i]);
    if (to_bits(p) != to_bits(y[i])) mismatch++;
    double e = pow((double)a[i], (double)b[i]);
    if (isnan(e) || isnan(p)) {
      nan_wrong += isnan(e) != isnan(p);
      continue;
    }
    double err = ulp_error(p, e);
    if (err > worst) worst = err, wa = a[i], wb = b[i];
    uint32_t d = float_distance(p, powf(a[i], b[i]));
    if (d > worst_libm) worst_libm = d;
  }
  printf("  powf: %d pairs: max %.4f ulp (%a ** %a), max %u ulp from libm\n", N, worst, wa, wb, worst_libm);
  CHECK("powf_within_half_ulp_of_the_power", worst <= 0.5001 && nan_wrong == 0);
  CHECK("powf_within_1_ulp_of_libm", worst_libm <= 1);
  CHECK("powf_vector_equals_plain_call", mismatch == 0);
  const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 1.5f, -1.5f, INFINITY, -INFINITY,
                      NAN, -NAN, 0x1p-149f, -0x1p-149f, 0x1.fffffep127f, 16777216.0f, 16777218.0f, -16777215.0f, 1e10f};
  int nsp = (int)(sizeof sp / sizeof sp[0]), bad = 0;
  float ba = 0, bb = 0;
  for (int i = 0; i < nsp; i++)
    for (int j = 0; j < nsp; j++) {
      float p = one(sp[i], sp[j]), l = powf(sp[i], sp[j]);
      bool same = isnan(l) ? isnan(p) : to_bits(p) == to_bits(l);
      if (!same && !bad++) ba = sp[i], bb = sp[j];
    }
  if (bad) printf("  powf specials: %d of %d pairs differ from libm (first %a ** %a)\n", bad, nsp * nsp, ba, bb);
  CHECK("powf_special_values_as_libm", bad == 0);
  free(a);
  free(b);
  free(y);
}

int main(void) {
  JitLib lib;
  if (!jit_with_prelude(test_src, "mathf", &lib)) return 1;
  Fn f;
  if (load(&lib, "c_expf", exp, expf, &f)) test_expf(&f);
  if (load(&lib, "c_logf", log, logf, &f)) test_logf(&f);
  if (load(&lib, "c_tanhf", tanh, tanhf, &f)) test_tanhf(&f);
  if (load(&lib, "c_expf", exp, expf, &f)) test_fast(&lib, "c_expf", f.one, expf_fast_range, 87.0f);
  if (load(&lib, "c_logf", log, logf, &f)) test_fast(&lib, "c_logf", f.one, logf_fast_range, 0x1p-126f);
  if (load(&lib, "c_sigmoidf", sigmoid_exact, sigmoid_plain, &f)) test_sigmoidf(&f);
  if (load(&lib, "c_sigmoidf", NULL, NULL, &f)) test_fast(&lib, "c_sigmoidf", f.one, expf_fast_range, 87.0f);
  test_powf(&lib);
  jit_close(&lib);
  return failures ? 1 : 0;
}
