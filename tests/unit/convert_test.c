/* The generated code's f16 <-> f32 conversions (coil_f16_to_f32 and
 * coil_f32_to_f16 in the C prelude, emit_c.c), compiled the way kernels
 * are into vectorised loops, against a plain reference written here with
 * one branch per case (the prelude's earlier versions), and against the
 * compiler's _Float16 where it has one: every f16, a sample of every
 * float's bit pattern, and every float in the ranges where rounding to f16
 * changes regime (subnormal results, the largest finite values).  NaNs
 * must stay NaN (payloads may differ); everything else bit for bit.
 * The same again for the block converters of staged conversions
 * (coil_f16_to_f32_n, coil_f32_to_f16_n: x86's F16C converter where the
 * compiler targets it), called on pieces of every length from 1 to 67.
 * Prints "ok unit/NAME" or "FAIL unit/NAME: ..." like the other tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static float ref_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
  float f;
  if (e == 0) {
    f = (float)m * 0x1p-24f;
    return sign ? -f : f;
  }
  u = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
  memcpy(&f, &u, 4);
  return f;
}

static uint16_t ref_f32_to_f16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) {
    float x;
    memcpy(&x, &a, 4);
    x += 0.5f;
    uint32_t v;
    memcpy(&v, &x, 4);
    return (uint16_t)(sign | (v - 0x3f000000u));
  }
  a += 0xc8000fffu + ((a >> 13) & 1u);
  return (uint16_t)(sign | (a >> 13));
}

static bool h_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }

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

static const char test_src[] =
    "void coil_test_h2f(const uint16_t *restrict h, float *restrict f, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) f[i] = coil_f16_to_f32(h[i]);\n"
    "}\n"
    "void coil_test_f2h(const float *restrict f, uint16_t *restrict h, int64_t n) {\n"
    "  #pragma omp simd\n"
    "  for (int64_t i = 0; i < n; i++) h[i] = coil_f32_to_f16(f[i]);\n"
    "}\n"
    "/* The block converters, called on pieces of 1 to 67 values, so that\n"
    " * both their vector part and their tail run. */\n"
    "void coil_test_h2f_n(const uint16_t *restrict h, float *restrict f, int64_t n) {\n"
    "  for (int64_t i = 0, m; i < n; i += m) {\n"
    "    m = n - i < 1 + i % 67 ? n - i : 1 + i % 67;\n"
    "    coil_f16_to_f32_n(f + i, h + i, m);\n"
    "  }\n"
    "}\n"
    "void coil_test_f2h_n(const float *restrict f, uint16_t *restrict h, int64_t n) {\n"
    "  for (int64_t i = 0, m; i < n; i += m) {\n"
    "    m = n - i < 1 + i % 67 ? n - i : 1 + i % 67;\n"
    "    coil_f32_to_f16_n(h + i, f + i, m);\n"
    "  }\n"
    "}\n"
    "int coil_test_f16n(void) {\n"
    "#ifdef COIL_F16N\n"
    "  return COIL_F16N;\n"
    "#else\n"
    "  return 0;\n"
    "#endif\n"
    "}\n";

typedef void (*H2F)(const uint16_t *, float *, int64_t);
typedef void (*F2H)(const float *, uint16_t *, int64_t);

/* Counts of f32 -> f16 results that differ from the reference (and from
 * _Float16), over n floats. */
static void check_f2h(F2H f2h, const float *x, int64_t n, long *bad_ref, long *bad_hw) {
  uint16_t *h = malloc(sizeof(uint16_t) * (size_t)n);
  if (!h) abort();
  f2h(x, h, n);
  for (int64_t i = 0; i < n; i++) {
    uint16_t want = ref_f32_to_f16(x[i]);
    if (isnan(x[i]) ? !h_is_nan(h[i]) || (h[i] & 0x8000u) != (want & 0x8000u) : h[i] != want) ++*bad_ref;
#ifdef __FLT16_MAX__
    __extension__ _Float16 hw = x[i];
    uint16_t hb;
    memcpy(&hb, &hw, 2);
    if (isnan(x[i]) ? !h_is_nan(h[i]) : h[i] != hb) ++*bad_hw;
#else
    (void)bad_hw;
#endif
  }
  free(h);
}

/* CHECK with the converters' name in front ("f16_to_f32_..." for the
 * loop versions, "block_f16_to_f32_..." for the block ones). */
#define CHECKP(name, cond)                                         \
  do {                                                             \
    char full_[96];                                                \
    snprintf(full_, sizeof full_, "%s%s", prefix, name);           \
    if (cond) printf("ok unit/%s\n", full_);                       \
    else { printf("FAIL unit/%s: %s\n", full_, #cond); failures++; } \
  } while (0)

static void check_converters(const char *prefix, H2F h2f, F2H f2h) {
  /* Every f16 to f32. */
  static uint16_t all_h[65536];
  static float got[65536];
  for (int i = 0; i < 65536; i++) all_h[i] = (uint16_t)i;
  h2f(all_h, got, 65536);
  long bad = 0, bad_hw = 0, nan_bits = 0;
  for (int i = 0; i < 65536; i++) {
    float want = ref_f16_to_f32((uint16_t)i);
    /* A NaN stays a NaN of the same sign; its bits are checked below. */
    if (h_is_nan((uint16_t)i) ? !isnan(got[i]) || (to_bits(got[i]) ^ to_bits(want)) >> 31 : to_bits(got[i]) != to_bits(want)) bad++;
#ifdef __FLT16_MAX__
    __extension__ _Float16 hw;
    uint16_t hb = (uint16_t)i;
    memcpy(&hw, &hb, 2);
    if (h_is_nan((uint16_t)i) ? !isnan(got[i]) : to_bits(got[i]) != to_bits((float)hw)) bad_hw++;
#endif
    /* The payload is kept; a signalling NaN may come out quiet (x86's
     * converter sets the quiet bit). */
    nan_bits += h_is_nan((uint16_t)i) && ((to_bits(got[i]) & 0x7fffffu) >> 13 | 0x200u) != ((uint32_t)(i & 0x3ff) | 0x200u);
  }
  CHECKP("f16_to_f32_every_half", bad == 0);
  CHECKP("f16_to_f32_every_half_vs_Float16", bad_hw == 0);
  CHECKP("f16_to_f32_nan_payload_kept", nan_bits == 0);

  /* f32 to f16: a sample of all bit patterns (every 61st), then every float
   * around the subnormal and overflow thresholds. */
  enum { BATCH = 1 << 20 };
  float *x = malloc(sizeof(float) * BATCH);
  if (!x) abort();
  long bad_s = 0, bad_s_hw = 0, n_s = 0;
  for (uint64_t u = 0; u < (1ull << 32);) {
    int64_t n = 0;
    while (n < BATCH && u < (1ull << 32)) x[n++] = from_bits((uint32_t)u), u += 61;
    check_f2h(f2h, x, n, &bad_s, &bad_s_hw);
    n_s += n;
  }
  printf("  f32 -> f16, sample of %ld floats: %ld differ from the reference, %ld from _Float16\n", n_s, bad_s, bad_s_hw);
  CHECKP("f32_to_f16_sample", bad_s == 0);
  CHECKP("f32_to_f16_sample_vs_Float16", bad_s_hw == 0);
  long bad_r = 0, bad_r_hw = 0;
  /* (the sign is one bit apart from the rest: one side suffices) */
  const float ranges[][2] = {{0x1p-26f, 0x1p-24f}, {0x1p-15f, 0x1p-13f}, {65000.0f, 65600.0f}};
  for (int r = 0; r < 3; r++) {
    uint32_t a = to_bits(ranges[r][0]), b = to_bits(ranges[r][1]);
    if (a > b) { uint32_t t = a; a = b; b = t; }
    for (uint64_t u = a; u <= b;) {
      int64_t n = 0;
      while (n < BATCH && u <= b) x[n++] = from_bits((uint32_t)u++);
      check_f2h(f2h, x, n, &bad_r, &bad_r_hw);
    }
  }
  CHECKP("f32_to_f16_every_float_near_the_ends", bad_r == 0 && bad_r_hw == 0);
  free(x);

  /* Values, exactly. */
  float sp[] = {1.0f, -2.0f, 65504.0f, 65519.99f, 65520.0f, INFINITY, -INFINITY, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-14f, -0.0f};
  uint16_t want[] = {0x3c00, 0xc000, 0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x0001, 0x0000, 0x0001, 0x0400, 0x8000};
  uint16_t out[12];
  f2h(sp, out, 12);
  CHECKP("f32_to_f16_values", !memcmp(out, want, sizeof out));
}

int main(void) {
  JitLib lib;
  if (!jit_with_prelude(test_src, "convert", &lib)) return 1;
  H2F h2f = (H2F)(uintptr_t)jit_symbol(&lib, "coil_test_h2f"), h2f_n = (H2F)(uintptr_t)jit_symbol(&lib, "coil_test_h2f_n");
  F2H f2h = (F2H)(uintptr_t)jit_symbol(&lib, "coil_test_f2h"), f2h_n = (F2H)(uintptr_t)jit_symbol(&lib, "coil_test_f2h_n");
  int (*f16n)(void) = (int (*)(void))(uintptr_t)jit_symbol(&lib, "coil_test_f16n");
  if (!h2f || !f2h || !h2f_n || !f2h_n || !f16n) {
    printf("FAIL unit/convert_compile: symbols missing\n");
    return 1;
  }
  check_converters("", h2f, f2h);
  /* The staged conversions' block converters: the CPU's converter where
   * the compiler targets it, the functions above elsewhere. */
  printf("  block converters: %d values per instruction (0: no F16C)\n", f16n());
  check_converters("block_", h2f_n, f2h_n);
  jit_close(&lib);
  return failures ? 1 : 0;
}
