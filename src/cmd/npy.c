/* NumPy .npy reading and writing (format versions 1.0, 2.0 and 3.0).
 *
 * A file is: the magic "\x93NUMPY", a major and minor version byte, the
 * header length (2 bytes little-endian in 1.0, 4 bytes in 2.0/3.0), a
 * header that is a Python dict literal such as
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and ended by '\n', then the raw C-order data.
 *
 * The reader parses that dict with a tiny parser of its own (keys in any
 * order, any whitespace) and checks everything before it trusts the data
 * size.  The writer writes version 1.0 headers (2.0 when a shape is too long
 * for 1.0) aligned to 64 bytes, as NumPy does, into a temporary file in the
 * destination's directory, and renames it into place.
 *
 * coil only runs on little-endian hosts; the data is copied as it is. */
#define _POSIX_C_SOURCE 200809L
#include "cmd/npy.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c assumes a little-endian host"
#endif

static const char MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* ---------------------------------------------------------------- reading */

/* A cursor over the header text. */
typedef struct {
  const char *p, *end;
} Hdr;

static void hdr_skip_ws(Hdr *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
    h->p++;
}

static bool hdr_eat(Hdr *h, char c) {
  hdr_skip_ws(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* string = "'" chars "'" | '"' chars '"' ; no escapes are needed here */
static bool hdr_string(Hdr *h, const char **s, size_t *n) {
  hdr_skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return false;
  char q = *h->p++;
  const char *start = h->p;
  while (h->p < h->end && *h->p != q) h->p++;
  if (h->p >= h->end) return false;
  *s = start;
  *n = (size_t)(h->p - start);
  h->p++;
  return true;
}

static bool hdr_word(Hdr *h, const char *w) {
  hdr_skip_ws(h);
  size_t n = strlen(w);
  if ((size_t)(h->end - h->p) >= n && !memcmp(h->p, w, n)) {
    h->p += n;
    return true;
  }
  return false;
}

/* int = digits [ 'L' ] ; NumPy on Python 2 wrote a trailing L */
static bool hdr_int(Hdr *h, int64_t *v) {
  hdr_skip_ws(h);
  if (h->p >= h->end || *h->p < '0' || *h->p > '9') return false;
  int64_t x = 0;
  while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
    if (!mul_ok(x, 10, &x) || __builtin_add_overflow(x, *h->p - '0', &x)) return false;
    h->p++;
  }
  if (h->p < h->end && *h->p == 'L') h->p++;
  *v = x;
  return true;
}

/* shape = '(' [ int { ',' int } [ ',' ] ] ')' */
static bool hdr_shape(Hdr *h, NpyArray *a, const char **why) {
  *why = "malformed shape";
  if (!hdr_eat(h, '(')) return false;
  a->ndim = 0;
  for (;;) {
    if (hdr_eat(h, ')')) return true;
    int64_t d;
    if (!hdr_int(h, &d)) return false;
    if (a->ndim == NPY_MAX_DIMS) {
      *why = "too many dimensions (coil supports at most 16)";
      return false;
    }
    a->shape[a->ndim++] = d;
    if (!hdr_eat(h, ',')) return hdr_eat(h, ')');
  }
}

/* descr: a byte-order character and a type code.  '<' is little-endian,
 * '|' "not applicable" (one-byte types), '=' native (little-endian here). */
static bool parse_descr(const char *s, size_t n, DType *dt, bool *u1, const char **why) {
  *u1 = false;
  if (n < 2) {
    *why = "malformed dtype";
    return false;
  }
  char order = s[0];
  if (order == '>' || order == '!') {
    *why = "big-endian data is not supported";
    return false;
  }
  if (order != '<' && order != '|' && order != '=') {
    *why = "unsupported dtype";
    return false;
  }
  const char *code = s + 1;
  size_t cn = n - 1;
#define IS(lit) (cn == sizeof(lit) - 1 && !memcmp(code, lit, cn))
  if (IS("f2")) *dt = DT_F16;
  else if (IS("f4")) *dt = DT_F32;
  else if (IS("f8")) *dt = DT_F64;
  else if (IS("i4")) *dt = DT_I32;
  else if (IS("i8")) *dt = DT_I64;
  else if (IS("b1")) *dt = DT_BOOL;
  else if (IS("u1")) *dt = DT_BOOL, *u1 = true;
  else {
    *why = "unsupported dtype (coil reads f2 f4 f8 i4 i8 b1 u1)";
    return false;
  }
#undef IS
  return true;
}

/* header = '{' { key ':' value ',' } '}' with keys descr, fortran_order,
 * shape, each exactly once. */
static CoilErr *parse_header(const char *path, const char *text, size_t len, NpyArray *a,
                             bool *u1) {
  Hdr h = {text, text + len};
  bool seen_descr = false, seen_fortran = false, seen_shape = false;
  const char *why = "malformed header";
  if (!hdr_eat(&h, '{')) goto bad;
  for (;;) {
    if (hdr_eat(&h, '}')) break;
    const char *key;
    size_t kn;
    why = "malformed header";
    if (!hdr_string(&h, &key, &kn) || !hdr_eat(&h, ':')) goto bad;
    if (kn == 5 && !memcmp(key, "descr", 5)) {
      const char *s;
      size_t n;
      if (seen_descr) goto dup;
      seen_descr = true;
      if (!hdr_string(&h, &s, &n)) {
        why = "unsupported dtype (structured or malformed descr)";
        goto bad;
      }
      if (!parse_descr(s, n, &a->dtype, u1, &why)) {
        CoilErr *e = coil_err("%s: %s: '%.*s'", path, why, (int)n, s);
        return e;
      }
    } else if (kn == 13 && !memcmp(key, "fortran_order", 13)) {
      if (seen_fortran) goto dup;
      seen_fortran = true;
      if (hdr_word(&h, "True")) {
        why = "Fortran-order arrays are not supported (save a C-order array)";
        goto bad;
      }
      if (!hdr_word(&h, "False")) goto bad;
    } else if (kn == 5 && !memcmp(key, "shape", 5)) {
      if (seen_shape) goto dup;
      seen_shape = true;
      if (!hdr_shape(&h, a, &why)) goto bad;
    } else {
      why = "unknown key in header";
      goto bad;
    }
    if (!hdr_eat(&h, ',')) {
      if (!hdr_eat(&h, '}')) {
        why = "malformed header";
        goto bad;
      }
      break;
    }
  }
  hdr_skip_ws(&h);
  if (h.p != h.end) {
    why = "malformed header (text after the dict)";
    goto bad;
  }
  if (!seen_descr || !seen_fortran || !seen_shape) {
    why = "header lacks descr, fortran_order or shape";
    goto bad;
  }
  return NULL;
dup:
  why = "duplicate key in header";
bad:
  return coil_err("%s: %s", path, why);
}

CoilErr *npy_read(const char *path, NpyArray *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return coil_err("cannot open %s: %s", path, strerror(errno));
  CoilErr *err = NULL;
  struct stat st;
  bool regular = false;
  if (fstat(fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fclose(f);
      return coil_err("cannot read %s: it is a directory", path);
    }
    regular = S_ISREG(st.st_mode);
  }
  char *header = NULL;
  void *data = NULL;
  unsigned char pre[12];

  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, MAGIC, 6)) {
    err = coil_err("%s: not a .npy file (bad magic)", path);
    goto done;
  }
  int major = pre[6];
  uint32_t hlen;
  if (major == 1) {
    hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    if (fread(pre + 10, 1, 2, f) != 2) {
      err = coil_err("%s: truncated header", path);
      goto done;
    }
    hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 |
           (uint32_t)pre[11] << 24;
    if (hlen > (1u << 28)) {
      err = coil_err("%s: malformed header (length %u)", path, (unsigned)hlen);
      goto done;
    }
  } else {
    err = coil_err("%s: unsupported .npy format version %d.%d", path, major, pre[7]);
    goto done;
  }
  header = malloc(hlen + 1);
  if (!header) {
    err = coil_err("%s: out of memory", path);
    goto done;
  }
  if (fread(header, 1, hlen, f) != hlen) {
    err = coil_err("%s: truncated header", path);
    goto done;
  }
  header[hlen] = 0;

  bool u1 = false;
  if ((err = parse_header(path, header, hlen, out, &u1))) goto done;

  int64_t numel = 1, nbytes;
  for (int i = 0; i < out->ndim; i++)
    if (!mul_ok(numel, out->shape[i], &numel)) {
      err = coil_err("%s: shape is too large", path);
      goto done;
    }
  int esize = dtype_size(out->dtype);
  if (!mul_ok(numel, esize, &nbytes) || (uint64_t)nbytes > SIZE_MAX) {
    err = coil_err("%s: shape is too large", path);
    goto done;
  }
  out->numel = numel;
  /* Check a regular file's size before allocating what its header claims. */
  long pos = ftell(f);
  if (regular && pos >= 0 && (int64_t)st.st_size - pos < nbytes) {
    err = coil_err("%s: truncated data (%lld of %lld bytes)", path,
                     (long long)(st.st_size - pos), (long long)nbytes);
    goto done;
  }
  data = malloc(nbytes > 0 ? (size_t)nbytes : 1);
  if (!data) {
    err = coil_err("%s: out of memory (%lld bytes)", path, (long long)nbytes);
    goto done;
  }
  size_t got = fread(data, 1, (size_t)nbytes, f);
  if (got != (size_t)nbytes) {
    err = ferror(f) ? coil_err("cannot read %s: %s", path, strerror(errno))
                    : coil_err("%s: truncated data (%zu of %lld bytes)", path, got,
                                 (long long)nbytes);
    goto done;
  }
  if (fgetc(f) != EOF) {
    err = coil_err("%s: trailing bytes after the data (the header's shape does not match)",
                     path);
    goto done;
  }
  if (out->dtype == DT_BOOL) {
    /* '|u1' read as bool, and any b1 byte that is not 0/1: normalize. */
    uint8_t *b = data;
    for (int64_t i = 0; i < numel; i++) b[i] = b[i] != 0;
  }
  (void)u1;
  out->data = data;
  data = NULL;
done:
  free(header);
  free(data);
  fclose(f);
  if (err) memset(out, 0, sizeof *out);
  return err;
}

/* ------------------------------------------------------------- converting */

static double load_f(DType t, const void *p, int64_t i) {
  switch (t) {
  case DT_BOOL: return ((const uint8_t *)p)[i];
  case DT_I32: return ((const int32_t *)p)[i];
  case DT_I64: return (double)((const int64_t *)p)[i];
  case DT_F16: return f16_to_f32(((const uint16_t *)p)[i]);
  case DT_BF16: return bf16_to_f32(((const uint16_t *)p)[i]);
  case DT_F32: return ((const float *)p)[i];
  case DT_F64: return ((const double *)p)[i];
  default: coil_unreachable("dtype");
  }
}

static int64_t load_i(DType t, const void *p, int64_t i) {
  switch (t) {
  case DT_BOOL: return ((const uint8_t *)p)[i];
  case DT_I32: return ((const int32_t *)p)[i];
  case DT_I64: return ((const int64_t *)p)[i];
  default: coil_unreachable("dtype");
  }
}

/* float -> int64 truncating toward zero; NaN and out-of-range values give
 * INT64_MIN, what x86's cvttsd2si (and so NumPy there) gives, never UB. */
static int64_t f_to_i64(double x) {
  if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)x;
}

static int32_t f_to_i32(double x) {
  if (!(x > -2147483649.0 && x < 2147483648.0)) return INT32_MIN;
  return (int32_t)x;
}

CoilErr *npy_convert(NpyArray *a, DType to) {
  DType from = a->dtype;
  if (from == to) return NULL;
  int64_t n = a->numel;
  size_t size = (size_t)n * (size_t)dtype_size(to);
  void *dst = malloc(size ? size : 1);
  if (!dst) return coil_err("out of memory converting a %s array to %s", dtype_name(from),
                              dtype_name(to));
  const void *src = a->data;
  bool int_src = !dtype_is_float(from);
  for (int64_t i = 0; i < n; i++) {
    switch (to) {
    case DT_BOOL:
      ((uint8_t *)dst)[i] = int_src ? load_i(from, src, i) != 0 : load_f(from, src, i) != 0;
      break;
    case DT_I32:
      ((int32_t *)dst)[i] = int_src ? (int32_t)load_i(from, src, i) : f_to_i32(load_f(from, src, i));
      break;
    case DT_I64:
      ((int64_t *)dst)[i] = int_src ? load_i(from, src, i) : f_to_i64(load_f(from, src, i));
      break;
    /* f64 and i64 sources go through float first, as PyTorch's conversions
     * to the half types do. */
    case DT_F16: ((uint16_t *)dst)[i] = f32_to_f16((float)load_f(from, src, i)); break;
    case DT_BF16: ((uint16_t *)dst)[i] = f32_to_bf16((float)load_f(from, src, i)); break;
    case DT_F32: ((float *)dst)[i] = (float)load_f(from, src, i); break;
    case DT_F64: ((double *)dst)[i] = load_f(from, src, i); break;
    default: coil_unreachable("dtype");
    }
  }
  free(a->data);
  a->data = dst;
  a->dtype = to;
  return NULL;
}

/* ---------------------------------------------------------------- writing */

static const char *descr_of(DType t) {
  switch (t) {
  case DT_BOOL: return "|b1";
  case DT_I32: return "<i4";
  case DT_I64: return "<i8";
  case DT_F16: return "<f2";
  case DT_BF16: /* written as f32 */
  case DT_F32: return "<f4";
  case DT_F64: return "<f8";
  default: coil_unreachable("dtype");
  }
}

/* The bytes of the preamble and header, padded so the data starts on a
 * 64-byte boundary. */
static void build_header(StrBuf *sb, DType dtype, int ndim, const int64_t *shape) {
  StrBuf dict = {0};
  sb_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr_of(dtype));
  for (int i = 0; i < ndim; i++)
    sb_printf(&dict, i ? ", %lld" : "%lld", (long long)shape[i]);
  sb_puts(&dict, ndim == 1 ? ",), }" : "), }");
  size_t pre = 10;
  size_t total = pre + dict.len + 1;
  if ((total + 63) / 64 * 64 - pre > 65535) pre = 12; /* needs version 2.0 */
  total = pre + dict.len + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t hlen = padded - pre;
  for (int i = 0; i < 6; i++) sb_putc(sb, MAGIC[i]);
  sb_putc(sb, pre == 10 ? 1 : 2);
  sb_putc(sb, 0);
  sb_putc(sb, (char)(hlen & 0xff));
  sb_putc(sb, (char)((hlen >> 8) & 0xff));
  if (pre == 12) {
    sb_putc(sb, (char)((hlen >> 16) & 0xff));
    sb_putc(sb, (char)((hlen >> 24) & 0xff));
  }
  sb_puts(sb, dict.data);
  while (sb->len < padded - 1) sb_putc(sb, ' ');
  sb_putc(sb, '\n');
  sb_free(&dict);
}

static bool write_data(FILE *f, DType dtype, int64_t numel, const void *data) {
  if (dtype != DT_BF16) {
    size_t n = (size_t)numel * (size_t)dtype_size(dtype);
    return fwrite(data, 1, n, f) == n;
  }
  enum { CHUNK = 16384 };
  float buf[CHUNK];
  const uint16_t *src = data;
  for (int64_t i = 0; i < numel; i += CHUNK) {
    size_t m = (size_t)(numel - i < CHUNK ? numel - i : CHUNK);
    for (size_t j = 0; j < m; j++) buf[j] = bf16_to_f32(src[i + (int64_t)j]);
    if (fwrite(buf, sizeof(float), m, f) != m) return false;
  }
  return true;
}

CoilErr *npy_write(const char *path, DType dtype, int ndim, const int64_t *shape,
                   const void *data) {
  if (ndim < 0 || ndim > NPY_MAX_DIMS)
    return coil_err("%s: cannot write an array of %d dimensions", path, ndim);
  int64_t numel = 1;
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0 || !mul_ok(numel, shape[i], &numel))
      return coil_err("%s: cannot write an array of invalid shape", path);

  /* The temporary file lives next to the target so rename() stays within
   * one file system and is atomic. */
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) return coil_err("%s: out of memory", path);
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp.XXXXXX", 12);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    CoilErr *e = coil_err("cannot write %s: %s", path, strerror(errno));
    free(tmp);
    return e;
  }
  /* mkstemp creates the file 0600; give it the mode fopen would. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    CoilErr *e = coil_err("cannot write %s: %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    free(tmp);
    return e;
  }
  StrBuf hdr = {0};
  build_header(&hdr, dtype, ndim, shape);
  bool ok = fwrite(hdr.data, 1, hdr.len, f) == hdr.len && write_data(f, dtype, numel, data);
  int saved = errno;
  sb_free(&hdr);
  if (fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    saved = errno;
  }
  CoilErr *e = NULL;
  if (!ok) {
    unlink(tmp);
    e = coil_err("cannot write %s: %s", path, strerror(saved));
  }
  free(tmp);
  return e;
}

void npy_free(NpyArray *a) {
  free(a->data);
  a->data = NULL;
}
