/* Unit tests of npy.c.  Prints "ok NAME" or "FAIL NAME: why" per test.
 *
 *   npy_test              run the tests (in a temporary directory)
 *   npy_test write DIR    write sample files into DIR for NumPy to check
 *   npy_test dump FILE    read FILE and print "dtype shape v0 v1 ..." (or the
 *                         error, status 2) so NumPy-written files can be
 *                         checked from tests/suites/npy.sh */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coil.h"
#include "cmd/npy.h"

static int failures;
static char dir[256];

#define CHECK(name, cond, ...)                                                 \
  do {                                                                         \
    if (cond) printf("ok %s\n", name);                                         \
    else {                                                                     \
      printf("FAIL %s: ", name);                                               \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static char *path_in(const char *name) {
  static char buf[8][512];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static void write_raw(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(bytes, 1, n, f);
  fclose(f);
}

/* A raw v1.0 file from a header dict and data bytes, for the error cases. */
static void write_npy_raw(const char *path, const char *dict, const void *data, size_t n) {
  size_t hl = strlen(dict) + 1;
  size_t total = (10 + hl + 63) / 64 * 64;
  size_t hlen = total - 10;
  unsigned char *buf = calloc(1, total + n);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = hlen & 0xff;
  buf[9] = hlen >> 8;
  memset(buf + 10, ' ', hlen);
  memcpy(buf + 10, dict, strlen(dict));
  buf[total - 1] = '\n';
  if (n) memcpy(buf + total, data, n);
  write_raw(path, buf, total + n);
  free(buf);
}

/* Expect npy_read(path) to fail with a message that names the file and
 * contains `want`. */
static void expect_error(const char *name, const char *path, const char *want) {
  NpyArray a;
  CoilErr *e = npy_read(path, &a);
  if (!e) {
    CHECK(name, 0, "read succeeded, expected an error containing '%s'", want);
    npy_free(&a);
    return;
  }
  CHECK(name, strstr(e->msg, path) && strstr(e->msg, want),
        "message '%s' should name %s and contain '%s'", e->msg, path, want);
  coil_err_free(e);
}

static void *sample(DType t, int64_t n) {
  void *p = malloc((size_t)(n ? n : 1) * (size_t)dtype_size(t));
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(i * 7 % 23) - 11 + (dtype_is_float(t) ? 0.375 : 0);
    switch (t) {
    case DT_BOOL: ((uint8_t *)p)[i] = (i % 3) == 1; break;
    case DT_I32: ((int32_t *)p)[i] = (int32_t)(v * 100000); break;
    case DT_I64: ((int64_t *)p)[i] = (int64_t)v * 1000000000000LL; break;
    case DT_F16: ((uint16_t *)p)[i] = f32_to_f16((float)v); break;
    case DT_BF16: ((uint16_t *)p)[i] = f32_to_bf16((float)v); break;
    case DT_F32: ((float *)p)[i] = (float)v / 3; break;
    case DT_F64: ((double *)p)[i] = v / 3; break;
    default: break;
    }
  }
  return p;
}

static void test_roundtrip(DType t, int ndim, const int64_t *shape, const char *tag) {
  char name[128];
  snprintf(name, sizeof name, "roundtrip_%s_%s", dtype_name(t), tag);
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  void *data = sample(t, n);
  char file[64];
  snprintf(file, sizeof file, "rt_%s_%s.npy", dtype_name(t), tag);
  const char *path = path_in(file);
  CoilErr *e = npy_write(path, t, ndim, shape, data);
  if (e) {
    CHECK(name, 0, "write: %s", e->msg);
    coil_err_free(e);
    free(data);
    return;
  }
  NpyArray a;
  e = npy_read(path, &a);
  if (e) {
    CHECK(name, 0, "read: %s", e->msg);
    coil_err_free(e);
    free(data);
    return;
  }
  DType want = t == DT_BF16 ? DT_F32 : t;
  bool ok = a.dtype == want && a.ndim == ndim && a.numel == n;
  for (int i = 0; ok && i < ndim; i++) ok = a.shape[i] == shape[i];
  if (!ok) {
    CHECK(name, 0, "read back dtype %s ndim %d numel %lld", dtype_name(a.dtype), a.ndim,
          (long long)a.numel);
  } else {
    if (t == DT_BF16) {
      /* bf16 is saved as f32 exactly; converting back restores the bits */
      e = npy_convert(&a, DT_BF16);
      if (e) ok = false, coil_err_free(e);
    }
    ok = ok && (n == 0 || !memcmp(a.data, data, (size_t)n * (size_t)dtype_size(t)));
    CHECK(name, ok, "data differs after the roundtrip");
  }
  npy_free(&a);
  free(data);
}

static void test_roundtrips(void) {
  int64_t s0[1] = {0}, s1[1] = {5}, s2[2] = {3, 7}, s4[4] = {3, 5, 7, 11}, sz[2] = {0, 3};
  for (int t = 0; t < DT_COUNT; t++) {
    test_roundtrip((DType)t, 0, s0, "0d");
    test_roundtrip((DType)t, 1, s1, "1d");
    test_roundtrip((DType)t, 2, s2, "2d");
    test_roundtrip((DType)t, 4, s4, "4d");
    test_roundtrip((DType)t, 2, sz, "empty");
  }
  /* A 17-element shape cannot be written; a long 16-d one can. */
  int64_t s16[16];
  for (int i = 0; i < 16; i++) s16[i] = 1;
  s16[15] = 3;
  test_roundtrip(DT_F32, 16, s16, "16d");
}

/* Where the data of a version 1.0 file starts. */
static size_t data_offset(const char *text) {
  return 10 + ((size_t)(unsigned char)text[8] | (size_t)(unsigned char)text[9] << 8);
}

static void test_header_text(void) {
  /* The header must be exactly what NumPy writes for 0-d and 1-d shapes. */
  float x = 1.5f;
  const char *path = path_in("hdr0.npy");
  CoilErr *e = npy_write(path, DT_F32, 0, NULL, &x);
  size_t len = 0;
  char *text = e ? NULL : coil_read_file(path, &len, &e);
  size_t off = text ? data_offset(text) : 0;
  CHECK("header_0d", text && off % 64 == 0 && len == off + 4 && text[off - 1] == '\n' &&
                         strstr(text + 10, "'shape': ()") && strstr(text + 10, "'descr': '<f4'") &&
                         *(float *)(text + off) == 1.5f,
        "%s", e ? e->msg : "unexpected header");
  free(text);
  coil_err_free(e);
  e = NULL;
  int64_t s1[1] = {5};
  float v[5] = {0};
  path = path_in("hdr1.npy");
  e = npy_write(path, DT_F32, 1, s1, v);
  text = e ? NULL : coil_read_file(path, &len, &e);
  off = text ? data_offset(text) : 0;
  CHECK("header_1d", text && off % 64 == 0 && len == off + 20 && text[6] == 1 &&
                         strstr(text + 10, "'shape': (5,)"),
        "%s", e ? e->msg : "unexpected header");
  free(text);
  coil_err_free(e);
  e = NULL;
  uint16_t bf[2] = {f32_to_bf16(1.0f), f32_to_bf16(-2.5f)};
  int64_t s2[1] = {2};
  path = path_in("hdrbf.npy");
  e = npy_write(path, DT_BF16, 1, s2, bf);
  text = e ? NULL : coil_read_file(path, &len, &e);
  off = text ? data_offset(text) : 0;
  CHECK("header_bf16_as_f32", text && len == off + 8 && strstr(text + 10, "'descr': '<f4'") &&
                                  ((float *)(text + off))[1] == -2.5f,
        "%s", e ? e->msg : "bf16 not written as f32");
  free(text);
  coil_err_free(e);
}

static uint16_t conv_bf16(float f) {
  NpyArray a = {.dtype = DT_F32, .ndim = 1, .shape = {1}, .numel = 1};
  a.data = malloc(4);
  memcpy(a.data, &f, 4);
  CoilErr *e = npy_convert(&a, DT_BF16);
  coil_assert(!e);
  uint16_t h = *(uint16_t *)a.data;
  npy_free(&a);
  return h;
}

static float bits_f(uint32_t u) {
  union { uint32_t u; float f; } v = {u};
  return v.f;
}

static void test_bf16_rounding(void) {
  /* 1 + 2^-8 lies halfway between bf16 1.0 (0x3f80) and 1+2^-7 (0x3f81):
   * ties go to the even mantissa. */
  CHECK("bf16_tie_to_even_down", conv_bf16(bits_f(0x3f808000u)) == 0x3f80, "got %04x",
        conv_bf16(bits_f(0x3f808000u)));
  CHECK("bf16_tie_to_even_up", conv_bf16(bits_f(0x3f818000u)) == 0x3f82, "got %04x",
        conv_bf16(bits_f(0x3f818000u)));
  CHECK("bf16_above_half_rounds_up", conv_bf16(bits_f(0x3f808001u)) == 0x3f81, "got %04x",
        conv_bf16(bits_f(0x3f808001u)));
  CHECK("bf16_below_half_rounds_down", conv_bf16(bits_f(0x3f807fffu)) == 0x3f80, "got %04x",
        conv_bf16(bits_f(0x3f807fffu)));
  CHECK("bf16_negative_tie", conv_bf16(bits_f(0xbf818000u)) == 0xbf82, "got %04x",
        conv_bf16(bits_f(0xbf818000u)));
  CHECK("bf16_overflow_to_inf", conv_bf16(bits_f(0x7f7fffffu)) == 0x7f80, "got %04x",
        conv_bf16(bits_f(0x7f7fffffu)));
  uint16_t nan = conv_bf16(NAN);
  CHECK("bf16_nan_stays_nan", (nan & 0x7f80) == 0x7f80 && (nan & 0x7f), "got %04x", nan);
  CHECK("bf16_exact_unchanged", conv_bf16(-2.5f) == 0xc020, "got %04x", conv_bf16(-2.5f));
}

static void test_convert(void) {
  /* float -> int truncates toward zero; anything -> bool is != 0. */
  float f[6] = {-2.7f, -0.5f, 0.0f, 0.5f, 2.7f, 1e3f};
  NpyArray a = {.dtype = DT_F32, .ndim = 1, .shape = {6}, .numel = 6};
  a.data = malloc(sizeof f);
  memcpy(a.data, f, sizeof f);
  CoilErr *e = npy_convert(&a, DT_I32);
  int32_t *i = a.data;
  CHECK("convert_f32_i32_truncates",
        !e && a.dtype == DT_I32 && i[0] == -2 && i[1] == 0 && i[2] == 0 && i[3] == 0 &&
            i[4] == 2 && i[5] == 1000,
        "got %d %d %d %d %d %d", i[0], i[1], i[2], i[3], i[4], i[5]);
  npy_free(&a);

  a = (NpyArray){.dtype = DT_F32, .ndim = 1, .shape = {6}, .numel = 6};
  a.data = malloc(sizeof f);
  memcpy(a.data, f, sizeof f);
  e = npy_convert(&a, DT_BOOL);
  uint8_t *b = a.data;
  CHECK("convert_f32_bool", !e && b[0] == 1 && b[1] == 1 && b[2] == 0 && b[3] == 1 && b[5] == 1,
        "got %d %d %d %d", b[0], b[1], b[2], b[3]);
  e = npy_convert(&a, DT_I64);
  int64_t *l = a.data;
  CHECK("convert_bool_i64", !e && a.dtype == DT_I64 && l[0] == 1 && l[2] == 0, "got %lld %lld",
        (long long)l[0], (long long)l[2]);
  e = npy_convert(&a, DT_F16);
  uint16_t *h = a.data;
  CHECK("convert_i64_f16", !e && f16_to_f32(h[0]) == 1.0f && f16_to_f32(h[2]) == 0.0f,
        "got %g", f16_to_f32(h[0]));
  npy_free(&a);

  double d[3] = {1.0 / 3, -1e300, 65504.0};
  a = (NpyArray){.dtype = DT_F64, .ndim = 1, .shape = {3}, .numel = 3};
  a.data = malloc(sizeof d);
  memcpy(a.data, d, sizeof d);
  e = npy_convert(&a, DT_F32);
  float *g = a.data;
  CHECK("convert_f64_f32", !e && g[0] == (float)(1.0 / 3) && isinf(g[1]) && g[1] < 0 &&
                               g[2] == 65504.0f,
        "got %g %g", g[0], g[1]);
  e = npy_convert(&a, DT_F16);
  h = a.data;
  CHECK("convert_f32_f16", !e && h[2] == 0x7bff && h[1] == 0xfc00, "got %04x %04x", h[2], h[1]);
  npy_free(&a);

  int64_t big[2] = {(1LL << 40) + 3, -7};
  a = (NpyArray){.dtype = DT_I64, .ndim = 1, .shape = {2}, .numel = 2};
  a.data = malloc(sizeof big);
  memcpy(a.data, big, sizeof big);
  e = npy_convert(&a, DT_F64);
  double *dd = a.data;
  CHECK("convert_i64_f64", !e && dd[0] == (double)((1LL << 40) + 3) && dd[1] == -7.0, "got %g",
        dd[0]);
  e = npy_convert(&a, DT_I32);
  CHECK("convert_f64_i32", !e && ((int32_t *)a.data)[1] == -7, "got %d", ((int32_t *)a.data)[1]);
  npy_free(&a);
}

static void test_errors(void) {
  float four[4] = {1, 2, 3, 4};
  expect_error("error_missing_file", path_in("does_not_exist.npy"), "cannot open");

  write_raw(path_in("badmagic.npy"), "\x93NUMPX\x01\x00\x10\x00{}", 12);
  expect_error("error_bad_magic", path_in("badmagic.npy"), "bad magic");
  write_raw(path_in("short.npy"), "\x93NU", 3);
  expect_error("error_short_file", path_in("short.npy"), "bad magic");
  write_raw(path_in("empty.npy"), "", 0);
  expect_error("error_empty_file", path_in("empty.npy"), "bad magic");
  write_raw(path_in("version.npy"), "\x93NUMPY\x09\x00\x10\x00{}", 12);
  expect_error("error_bad_version", path_in("version.npy"), "version");

  write_npy_raw(path_in("bigendian.npy"),
                "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four, 16);
  expect_error("error_big_endian", path_in("bigendian.npy"), "big-endian");
  write_npy_raw(path_in("fortran.npy"),
                "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four, 16);
  expect_error("error_fortran_order", path_in("fortran.npy"), "Fortran");
  write_npy_raw(path_in("trunc.npy"),
                "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four, 16);
  expect_error("error_truncated_data", path_in("trunc.npy"), "truncated");
  write_npy_raw(path_in("trail.npy"),
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", four, 16);
  expect_error("error_trailing_data", path_in("trail.npy"), "trailing");
  write_npy_raw(path_in("complex.npy"),
                "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four, 16);
  expect_error("error_unsupported_dtype", path_in("complex.npy"), "unsupported dtype");
  write_npy_raw(path_in("nodescr.npy"), "{'fortran_order': False, 'shape': (4,), }", four, 16);
  expect_error("error_missing_key", path_in("nodescr.npy"), "lacks");
  write_npy_raw(path_in("garbage.npy"), "{'descr': '<f4', 'fortran_order': Fals", four, 16);
  expect_error("error_malformed_header", path_in("garbage.npy"), "malformed");
  write_npy_raw(path_in("badshape.npy"),
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", four, 16);
  expect_error("error_negative_shape", path_in("badshape.npy"), "malformed shape");
  write_npy_raw(path_in("huge.npy"),
                "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                four, 16);
  expect_error("error_shape_overflow", path_in("huge.npy"), "too large");
  write_npy_raw(path_in("hugetrunc.npy"),
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", four, 16);
  expect_error("error_huge_shape_truncated", path_in("hugetrunc.npy"), "truncated data");
  expect_error("error_directory", dir, "directory");
  write_raw(path_in("trunchdr.npy"), "\x93NUMPY\x01\x00\x40\x00{'descr'", 18);
  expect_error("error_truncated_header", path_in("trunchdr.npy"), "truncated header");

  /* Keys in another order, extra whitespace, '|u1' read as bool. */
  uint8_t u[3] = {0, 7, 1};
  write_npy_raw(path_in("u1.npy"), "{ 'shape':(3 ,) ,'fortran_order' : False,'descr':'|u1'}", u, 3);
  NpyArray a;
  CoilErr *e = npy_read(path_in("u1.npy"), &a);
  CHECK("read_u1_as_bool_any_key_order",
        !e && a.dtype == DT_BOOL && a.ndim == 1 && a.shape[0] == 3 &&
            ((uint8_t *)a.data)[0] == 0 && ((uint8_t *)a.data)[1] == 1,
        "%s", e ? e->msg : "wrong contents");
  if (!e) npy_free(&a);
  coil_err_free(e);

  /* Writing into a missing directory fails with a message naming the file. */
  int64_t s1[1] = {4};
  const char *bad = path_in("no/such/dir/x.npy");
  e = npy_write(bad, DT_F32, 1, s1, four);
  CHECK("error_write_missing_dir", e && strstr(e->msg, bad), "%s", e ? e->msg : "no error");
  coil_err_free(e);
}

static void test_atomic(void) {
  /* Overwriting replaces the file and leaves no temporary behind. */
  int64_t s1[1] = {4}, s2[1] = {2};
  float a4[4] = {1, 2, 3, 4}, a2[2] = {5, 6};
  const char *path = path_in("over.npy");
  CoilErr *e = npy_write(path, DT_F32, 1, s1, a4);
  if (!e) e = npy_write(path, DT_F32, 1, s2, a2);
  NpyArray a = {0};
  if (!e) e = npy_read(path, &a);
  CHECK("write_overwrites", !e && a.numel == 2 && ((float *)a.data)[1] == 6.0f, "%s",
        e ? e->msg : "old contents");
  coil_err_free(e);
  npy_free(&a);
  DIR *d = opendir(dir);
  int tmps = 0;
  struct dirent *ent;
  while (d && (ent = readdir(d)))
    if (strstr(ent->d_name, ".tmp.")) tmps++;
  if (d) closedir(d);
  CHECK("write_leaves_no_temp_files", tmps == 0, "%d temporary files left", tmps);
}

/* Files for NumPy to check (tests/suites/npy.sh knows their contents). */
static int write_samples(const char *out) {
  snprintf(dir, sizeof dir, "%s", out);
  int64_t s23[2] = {2, 3};
  float f32[6] = {0, 1.5f, -2, 3.25f, 1e-3f, -1e30f};
  double f64[6] = {0, 1.5, -2, 3.25, 1e-300, -1e300};
  int32_t i32[6] = {0, 1, -2, 2147483647, -2147483647 - 1, 5};
  int64_t i64[6] = {0, 1, -2, 9223372036854775807LL, -9223372036854775807LL - 1, 5};
  uint8_t b[6] = {1, 0, 0, 1, 1, 0};
  uint16_t f16[6], bf16[6];
  for (int i = 0; i < 6; i++) f16[i] = f32_to_f16(f32[i] < -1e4f ? -65504.0f : f32[i]);
  for (int i = 0; i < 6; i++) bf16[i] = f32_to_bf16(f32[i]);
  double scalar = 2.5;
  struct { const char *name; DType t; int nd; const void *d; } s[] = {
      {"f32.npy", DT_F32, 2, f32}, {"f64.npy", DT_F64, 2, f64}, {"i32.npy", DT_I32, 2, i32},
      {"i64.npy", DT_I64, 2, i64}, {"bool.npy", DT_BOOL, 2, b}, {"f16.npy", DT_F16, 2, f16},
      {"bf16.npy", DT_BF16, 2, bf16}, {"scalar.npy", DT_F64, 0, &scalar},
  };
  for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
    CoilErr *e = npy_write(path_in(s[i].name), s[i].t, s[i].nd, s23, s[i].d);
    if (e) {
      fprintf(stderr, "%s\n", e->msg);
      return 2;
    }
  }
  /* A long shape that needs more than one 64-byte header block. */
  int64_t s16[16];
  for (int i = 0; i < 16; i++) s16[i] = 1;
  s16[0] = 6;
  CoilErr *e = npy_write(path_in("long_shape.npy"), DT_F32, 16, s16, f32);
  if (e) {
    fprintf(stderr, "%s\n", e->msg);
    return 2;
  }
  return 0;
}

static int dump(const char *path) {
  NpyArray a;
  CoilErr *e = npy_read(path, &a);
  if (e) {
    printf("error: %s\n", e->msg);
    coil_err_free(e);
    return 2;
  }
  printf("%s (", dtype_name(a.dtype));
  for (int i = 0; i < a.ndim; i++) printf(i ? ", %lld" : "%lld", (long long)a.shape[i]);
  printf(a.ndim == 1 ? ",)" : ")");
  DType t = a.dtype;
  for (int64_t i = 0; i < a.numel; i++) {
    switch (t) {
    case DT_BOOL: printf(" %d", ((uint8_t *)a.data)[i]); break;
    case DT_I32: printf(" %d", ((int32_t *)a.data)[i]); break;
    case DT_I64: printf(" %lld", (long long)((int64_t *)a.data)[i]); break;
    case DT_F16: printf(" %.9g", f16_to_f32(((uint16_t *)a.data)[i])); break;
    case DT_F32: printf(" %.9g", ((float *)a.data)[i]); break;
    case DT_F64: printf(" %.17g", ((double *)a.data)[i]); break;
    default: break;
    }
  }
  printf("\n");
  npy_free(&a);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "write")) return write_samples(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "dump")) return dump(argv[2]);
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/npy_test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("FAIL npy_test: cannot create a temporary directory\n");
    return 1;
  }
  test_roundtrips();
  test_header_text();
  test_bf16_rounding();
  test_convert();
  test_errors();
  test_atomic();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return failures ? 1 : 0;
}
