/* The triton-run command: run a Triton kernel file on the CPU.
 *
 *   triton-run KERNEL.py [--kernel NAME] --grid G0[,G1[,G2]] NAME=VALUE...
 *              [--save DIR] [--threads N] [--time]
 *
 * A pointer argument comes from a .npy file (converted to a dtype on
 * request: bf16 from an f32 array) or is allocated (zeros, nan); a scalar
 * or constexpr argument is a number.  After the run every pointer argument
 * is written to DIR/NAME.npy (bf16 as f32), so a kernel's outputs, and
 * anything it wrote into its inputs, can be compared with another run. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/npy.h"
#include "tx/tx.h"

static const char HELP[] =
    "usage: coil triton-run KERNEL.py [--kernel NAME] --grid G0[,G1[,G2]] NAME=VALUE...\n"
    "                       [--save DIR] [--threads N] [--time]\n"
    "\n"
    "Runs a Triton kernel on the CPU, a whole block per operation, the programs of\n"
    "the grid in parallel.  The kernel needs no @triton.jit; other top-level code is\n"
    "skipped.  Broadcasting, promotion and their error messages follow Triton; an\n"
    "out-of-bounds tl.load/tl.store and int32 overflow in index arithmetic are errors.\n"
    "\n"
    "arguments (NAME is the kernel's parameter):\n"
    "  NAME=@FILE.npy[:DTYPE]     a pointer to the array in FILE, converted to DTYPE\n"
    "                             (bf16 from an f32 array rounds to nearest even)\n"
    "  NAME=zeros:DTYPE[d0,...]   a pointer to a new array of zeros\n"
    "  NAME=nan:DTYPE[d0,...]     a pointer to a new array of NaN (float dtypes)\n"
    "  NAME=123, NAME=1.5         a number: a Python number for a tl.constexpr\n"
    "                             parameter, else int32 (int64 if needed) or fp32\n"
    "DTYPE: bool i32 i64 f16 bf16 f32 f64 (or int32, float32, bfloat16, fp32, ...)\n"
    "\n"
    "options:\n"
    "  --kernel NAME   the kernel to run (default: the only def, or the first @triton.jit)\n"
    "  --grid G        programs along axes 0, 1, 2 (e.g. 8 or 4,2)\n"
    "  --save DIR      write every pointer argument to DIR/NAME.npy after the run\n"
    "  --threads N     worker threads (default: all cores)\n"
    "  --time          print the run's wall time\n"
    "\n"
    "Exit status: 0 success, 2 an error.\n";

typedef struct CliArg {
  TxArg arg;
  int ndim;
  int64_t shape[NPY_MAX_DIMS];
} CliArg;

static int cli_fail(CoilErr *e) {
  fprintf(stderr, "%s\n", e->msg);
  coil_err_free(e);
  return 2;
}

/* coil's spellings (f32), torch's (float32) and Triton's (fp32). */
static bool parse_dtype(const char *s, size_t n, DType *out) {
  if (dtype_from_name(s, n, out)) return true;
  for (int t = 0; t < DT_COUNT; t++) {
    const char *a = dtype_torch_name((DType)t), *b = tx_dtype_name((DType)t);
    if ((strlen(a) == n && !memcmp(a, s, n)) || (strlen(b) == n && !memcmp(b, s, n))) {
      *out = (DType)t;
      return true;
    }
  }
  return false;
}

/* KIND:DTYPE[d0,...] */
static CoilErr *parse_alloc(const char *name, const char *v, CliArg *c) {
  bool nan_fill = !strncmp(v, "nan:", 4);
  const char *p = v + (nan_fill ? 4 : 6);
  const char *br = strchr(p, '[');
  if (!br || !parse_dtype(p, (size_t)(br - p), &c->arg.dtype))
    return coil_err("argument %s: expected %s:DTYPE[d0,...], got '%s'", name,
                      nan_fill ? "nan" : "zeros", v);
  if (nan_fill && !dtype_is_float(c->arg.dtype))
    return coil_err("argument %s: nan needs a float dtype, got %s", name,
                      dtype_name(c->arg.dtype));
  p = br + 1;
  int64_t numel = 1;
  c->ndim = 0;
  while (*p != ']') {
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0 || errno || c->ndim == NPY_MAX_DIMS || !mul_ok(numel, d, &numel))
      return coil_err("argument %s: bad shape in '%s'", name, v);
    c->shape[c->ndim++] = d;
    p = end;
    if (*p == ',') p++;
    else if (*p != ']') return coil_err("argument %s: bad shape in '%s'", name, v);
  }
  if (p[1]) return coil_err("argument %s: unexpected '%s' after the shape", name, p + 1);
  int es = dtype_size(c->arg.dtype);
  if (numel > (int64_t)(SIZE_MAX / 2) / es) return coil_err("argument %s: too large", name);
  void *data = calloc((size_t)(numel ? numel : 1), (size_t)es);
  if (!data) return coil_err("argument %s: cannot allocate %lld elements", name, (long long)numel);
  if (nan_fill) {
    for (int64_t i = 0; i < numel; i++) {
      switch (c->arg.dtype) {
      case DT_F16: ((uint16_t *)data)[i] = 0x7e00; break;
      case DT_BF16: ((uint16_t *)data)[i] = 0x7fc0; break;
      case DT_F32: ((float *)data)[i] = NAN; break;
      default: ((double *)data)[i] = NAN; break;
      }
    }
  }
  c->arg.kind = TX_PTR;
  c->arg.data = data;
  c->arg.numel = numel;
  return NULL;
}

/* @FILE.npy[:DTYPE] */
static CoilErr *parse_file(const char *name, const char *v, CliArg *c) {
  const char *path = v + 1;
  const char *colon = strrchr(path, ':');
  DType to;
  bool convert = colon && parse_dtype(colon + 1, strlen(colon + 1), &to);
  char *p = convert ? strndup(path, (size_t)(colon - path)) : strdup(path);
  NpyArray a;
  CoilErr *e = npy_read(p, &a);
  free(p);
  if (e) return e;
  if (convert && (e = npy_convert(&a, to))) {
    npy_free(&a);
    return e;
  }
  (void)name;
  c->arg.kind = TX_PTR;
  c->arg.dtype = a.dtype;
  c->arg.data = a.data;
  c->arg.numel = a.numel;
  c->ndim = a.ndim;
  memcpy(c->shape, a.shape, sizeof(int64_t) * (size_t)a.ndim);
  return NULL;
}

static CoilErr *parse_value(const char *name, const char *v, CliArg *c) {
  c->arg.name = name;
  if (v[0] == '@') return parse_file(name, v, c);
  if (!strncmp(v, "zeros:", 6) || !strncmp(v, "nan:", 4)) return parse_alloc(name, v, c);
  if (!strcmp(v, "True") || !strcmp(v, "False")) {
    c->arg.kind = TX_INT;
    c->arg.ival = v[0] == 'T';
    return NULL;
  }
  char *end;
  errno = 0;
  long long i = strtoll(v, &end, 0);
  if (*v && !*end && !errno) {
    c->arg.kind = TX_INT;
    c->arg.ival = i;
    return NULL;
  }
  double f = strtod(v, &end);
  if (*v && !*end) {
    c->arg.kind = TX_FLOAT;
    c->arg.fval = f;
    return NULL;
  }
  return coil_err("argument %s: expected @FILE.npy[:DTYPE], zeros:DTYPE[...], "
                    "nan:DTYPE[...] or a number, got '%s'", name, v);
}

static CoilErr *parse_grid(const char *s, int64_t grid[3]) {
  grid[0] = grid[1] = grid[2] = 1;
  for (int i = 0; i < 3; i++) {
    char *end;
    errno = 0;
    long long g = strtoll(s, &end, 10);
    if (end == s || g < 0 || errno) break;
    grid[i] = g;
    if (!*end) return NULL;
    if (*end != ',') break;
    s = end + 1;
  }
  return coil_err("--grid: expected G0[,G1[,G2]] (non-negative integers), got '%s'", s);
}

static CoilErr *save_all(const char *dir, CliArg *args, int n) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return coil_err("cannot create %s: %s", dir, strerror(errno));
  for (int i = 0; i < n; i++) {
    if (args[i].arg.kind != TX_PTR) continue;
    size_t len = strlen(dir) + strlen(args[i].arg.name) + 8;
    char *path = malloc(len);
    snprintf(path, len, "%s/%s.npy", dir, args[i].arg.name);
    CoilErr *e = npy_write(path, args[i].arg.dtype, args[i].ndim, args[i].shape,
                           args[i].arg.data);
    free(path);
    if (e) return e;
  }
  return NULL;
}

int tx_main(int argc, char **argv) {
  const char *file = NULL, *kernel = NULL, *save = NULL;
  int64_t grid[3];
  bool have_grid = false, timing = false;
  TxOptions opt = {0};
  CliArg *args = calloc((size_t)(argc > 0 ? argc : 1), sizeof(CliArg));
  int nargs = 0, status = 0;
  CoilErr *e = NULL;
  char *src = NULL;
  for (int i = 1; i < argc && !e; i++) {
    const char *a = argv[i];
    bool has_next = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(HELP, stdout);
      goto done;
    } else if (!strcmp(a, "--kernel") && has_next) {
      kernel = argv[++i];
    } else if (!strcmp(a, "--grid") && has_next) {
      e = parse_grid(argv[++i], grid);
      have_grid = true;
    } else if (!strcmp(a, "--save") && has_next) {
      save = argv[++i];
    } else if (!strcmp(a, "--threads") && has_next) {
      opt.threads = atoi(argv[++i]);
    } else if (!strcmp(a, "--time")) {
      timing = true;
    } else if (a[0] == '-' && a[1] == '-') {
      e = coil_err("triton-run: unknown option or missing value: %s (see --help)", a);
    } else if (strchr(a, '=') && file) {
      const char *eq = strchr(a, '=');
      char *name = strndup(a, (size_t)(eq - a));
      for (int k = 0; k < nargs; k++)
        if (!strcmp(args[k].arg.name, name)) e = coil_err("argument %s given twice", name);
      if (!e) e = parse_value(name, eq + 1, &args[nargs]);
      nargs++;
    } else if (!file) {
      file = a;
    } else {
      e = coil_err("triton-run: unexpected argument '%s' (arguments are NAME=VALUE)", a);
    }
  }
  if (!e && !file) e = coil_err("triton-run: no kernel file (see --help)");
  if (!e && !have_grid) e = coil_err("triton-run: --grid is required");
  if (!e) src = coil_read_file(file, NULL, &e);
  if (!e) {
    TxArg *ta = calloc((size_t)(nargs ? nargs : 1), sizeof(TxArg));
    for (int k = 0; k < nargs; k++) ta[k] = args[k].arg;
    double t0 = coil_now_ms();
    e = tx_run_source_opts(file, src, kernel, grid, ta, nargs, &opt);
    double t1 = coil_now_ms();
    free(ta);
    if (!e && timing)
      fprintf(stderr, "triton-run: grid (%lld, %lld, %lld) in %.1f ms\n", (long long)grid[0],
              (long long)grid[1], (long long)grid[2], t1 - t0);
  }
  if (!e && save) e = save_all(save, args, nargs);
done:
  if (e) status = cli_fail(e);
  for (int k = 0; k < nargs; k++) {
    free((char *)args[k].arg.name);
    if (args[k].arg.kind == TX_PTR) free(args[k].arg.data);
  }
  free(args);
  free(src);
  return status;
}
