/* Does the C compiler vectorise the loops coil prints for it to vectorise?
 *
 * coil's CPU speed rests on gcc turning the printer's plain loops into
 * SIMD; a loop it leaves scalar is a silent 3-5x (a column amax once ran at
 * 0.16 of the read ceiling because gcc would not vectorise the chain of
 * NaN-propagating maxes in a column block).  Each case here compiles a
 * function's emitted C with the kernels' own flags plus
 * -fopt-info-vec-optimized and checks that every x loop of a column block
 * (the loop over the columns that follows `for (; r1_j + 8 <= ...`, any r axis),
 * every lane loop of a row reduction, and every pointwise loop over a tile
 * (`for (int64_t xi = 0; xi < xn; ...)` after an omp simd pragma), is
 * reported vectorised.  On x86 each function is read twice, for AVX2
 * (x86-64-v3) and for AVX-512 (x86-64-v4): AVX2 has no mask registers, and
 * gcc 12 leaves a loop scalar there ("control flow in loop") when a float
 * ?: became a branch, as c_expf's, c_sigmoidf's, c_tanhf's and
 * torch.where's did (SiLU ran at 0.03 of the read ceiling on the AMD EPYC
 * VMs, which have AVX2 only; a column logsumexp's blocks stayed scalar).  gcc only: another compiler has another report,
 * and the test says so instead of passing. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static const char src[] =
    "import torch\n"
    "def amax_f32(x: \"f32[512, 4096]\"):\n"
    "    return x.amax(dim=0)\n"
    "def amax_bf16(x: \"bf16[512, 4096]\"):\n"
    "    return x.float().amax(dim=0)\n"
    "def amin_f64(x: \"f64[512, 4096]\"):\n"
    "    return x.amin(dim=0)\n"
    "def max_min_sum(x: \"f32[512, 4096]\"):\n"
    "    return x.amax(dim=0), x.amin(dim=0), x.sum(dim=0)\n"
    "def channel_softmax(x: \"f32[4, 21, 64, 64]\"):\n"
    "    return torch.softmax(x, dim=1)\n"
    "def channel_softmax_chained(x: \"f32[16, 21, 256, 256]\"):\n"
    "    return torch.softmax(x, dim=1)\n"
    "def column_logsumexp(x: \"bf16[1024, 2048]\"):\n"
    "    return torch.logsumexp(x.float(), dim=0)\n"
    "def amax_rows(x: \"f32[64, 4096]\"):\n"
    "    return x.amax(dim=-1)\n"
    "def amin_rows_f64(x: \"f64[64, 1024]\"):\n"
    "    return x.amin(dim=-1)\n"
    "def amax_rows_bf16(x: \"bf16[64, 4096]\"):\n"
    "    return x.float().amax(dim=-1)\n"
    "def softmax_rows(x: \"f32[64, 4096]\"):\n"
    "    return torch.softmax(x, dim=-1)\n"
    "def short_rows(x: \"f32[65536, 16]\"):\n"
    "    return x.amax(dim=-1)\n"
    /* 32 tanh per element in each kernel of a row chain: gcc stopped
     * inlining c_tanhf into the chain's function and left its simd loops
     * scalar before the prelude's helpers were always_inline. */
    "def many_tanh_softmax(x: \"f32[64, 4096]\"):\n"
    "    y = torch.tanh(x * 1.5) + torch.tanh(x * 2.5) + torch.tanh(x * 3.5) + torch.tanh(x * 4.5) + torch.tanh(x * 5.5) + torch.tanh(x * 6.5) + torch.tanh(x * 7.5) + torch.tanh(x * 8.5) + torch.tanh(x * 9.5) + torch.tanh(x * 10.5) + torch.tanh(x * 11.5) + torch.tanh(x * 12.5) + torch.tanh(x * 13.5) + torch.tanh(x * 14.5) + torch.tanh(x * 15.5) + torch.tanh(x * 16.5) + torch.tanh(x * 17.5) + torch.tanh(x * 18.5) + torch.tanh(x * 19.5) + torch.tanh(x * 20.5) + torch.tanh(x * 21.5) + torch.tanh(x * 22.5) + torch.tanh(x * 23.5) + torch.tanh(x * 24.5) + torch.tanh(x * 25.5) + torch.tanh(x * 26.5) + torch.tanh(x * 27.5) + torch.tanh(x * 28.5) + torch.tanh(x * 29.5) + torch.tanh(x * 30.5) + torch.tanh(x * 31.5) + torch.tanh(x * 32.5)\n"
    "    return torch.softmax(y, dim=-1)\n"
    /* c_powf: a ?: on two compares, a double ?: and floorf of a varying
     * exponent each left these loops scalar (libm's powf had been a call). */
    "def pow_rows(x: \"f32[64, 4096]\"):\n"
    "    return (x.abs() ** 1.5).sum(dim=-1)\n"
    "def pow_tensor_rows(x: \"f32[64, 4096]\", y: \"f32[64, 4096]\"):\n"
    "    return (x.abs() ** y).sum(dim=-1)\n"
    /* f64 tanh was libm's, a call */
    "def tanh_rows_f64(x: \"f64[64, 4096]\"):\n"
    "    return x.tanh().sum(dim=-1)\n"
    /* pointwise tiles: SwiGLU's gate and its gradient, tanh-GELU, log */
    "def silu_mul_bf16(a: \"bf16[256, 2816]\", b: \"bf16[256, 2816]\"):\n"
    "    return torch.nn.functional.silu(a) * b\n"
    "def silu_grad(g: \"f32[256, 2816]\", a: \"f32[256, 2816]\"):\n"
    "    s = torch.sigmoid(a)\n"
    "    return g * (s * (1 + a * (1 - s)))\n"
    "def silu_grad_f64(g: \"f64[256, 2816]\", a: \"f64[256, 2816]\"):\n"
    "    s = torch.sigmoid(a)\n"
    "    return g * (s * (1 + a * (1 - s)))\n"
    "def gelu_tanh(x: \"f32[256, 2816]\"):\n"
    "    return torch.nn.functional.gelu(x, approximate=\"tanh\")\n"
    "def exp_log_f64(x: \"f64[256, 2816]\"):\n"
    "    return torch.log(x.abs()) + torch.exp(x)\n";

static char path[64];

/* Is the loop at line `line` of the report's file said to be vectorised?
 * gcc names the loop's line, or for an omp simd loop its body's first. */
static bool reported_line(const char *report, const char *cfile, int line);
static bool reported(const char *report, const char *cfile, int line) {
  return reported_line(report, cfile, line) || reported_line(report, cfile, line + 1);
}

static bool reported_line(const char *report, const char *cfile, int line) {
  char key[128];
  snprintf(key, sizeof key, "%s:%d:", cfile, line);
  for (const char *p = strstr(report, key); p; p = strstr(p + 1, key)) {
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    const char *hit = strstr(p, "loop vectorized");
    if (hit && (size_t)(hit - p) < n) return true;
  }
  return false;
}

/* The marches a report is read for.  The JIT's flags with -march=native
 * replaced by each of these on x86, so the report reads the same on every
 * x86 host (nothing compiled here runs); elsewhere the JIT's own flags. */
#if defined(__x86_64__)
static const char *const marches[] = {"x86-64-v3", "x86-64-v4"};
#else
static const char *const marches[] = {"native"};
#endif

/* One kind of loop of function fn, read for march: at least `want` found
 * (none wanted: nothing checked), none of them scalar. */
static void check_kind(const char *fn, const char *march, const char *kind, const char *prose, int want, int found,
                       int scalar, int first) {
  if (!want) return;
  char what[160];
  snprintf(what, sizeof what, "vector_%s_%s_found", fn, kind);
  if (march == marches[0]) CHECK(what, found >= want); /* the same C for every march: counted once */
  snprintf(what, sizeof what, "vector_%s_%s_%s_vectorised", fn, march, kind);
  if (scalar)
    printf("  %s (%s): %d of %d %s scalar (first at line %d of the emitted C)\n", fn, march, scalar, found, prose, first);
  CHECK(what, scalar == 0);
}


static const char *report_flags(const char *march) {
  static char flags[512];
  const char *f = jit_flags(), *m = strstr(f, "-march=native");
  if (!m) return f;
  snprintf(flags, sizeof flags, "%.*s-march=%s%s", (int)(m - f), f, march, m + strlen("-march=native"));
  return flags;
}

static void check_report(const char *fn, const char *march, const char *code, const char *cfile, int want_loops,
                         int want_lanes, int want_points);

/* want_loops, want_lanes, want_points: at least that many column-block x
 * loops, lane loops and pointwise tile loops must be found (and each must
 * be vectorised for every march). */
static void check_fn(const char *fn, int want_loops, int want_lanes, int want_points) {
  Compiled c;
  CompileOptions o = {.file = path, .fn = fn, .target = &cpu_target};
  CoilErr *e = compile_source(&o, &c);
  char what[96];
  snprintf(what, sizeof what, "vector_%s_compiles", fn);
  if (e) {
    printf("FAIL unit/%s: %s\n", what, e->msg);
    coil_err_free(e);
    failures++;
    return;
  }
  char cfile[64];
  snprintf(cfile, sizeof cfile, "/tmp/coil_vec_XXXXXX");
  int fd = mkstemp(cfile);
  bool wrote = fd >= 0 && write(fd, c.code.data, c.code.len) == (ssize_t)c.code.len;
  if (fd >= 0) close(fd);
  snprintf(what, sizeof what, "vector_%s_written", fn);
  CHECK(what, wrote);
  for (size_t i = 0; wrote && i < sizeof marches / sizeof *marches; i++)
    check_report(fn, marches[i], c.code.data, cfile, want_loops, want_lanes, want_points);
  unlink(cfile);
  compiled_free(&c);
}

static void check_report(const char *fn, const char *march, const char *code, const char *cfile, int want_loops,
                         int want_lanes, int want_points) {
  char rfile[80], what[160];
  snprintf(rfile, sizeof rfile, "%s.report", cfile);
  char cmd[1024];
  /* -x c: the file has no .c suffix; the report names it as given. */
  snprintf(cmd, sizeof cmd, "%s %s -fopt-info-vec-optimized=%s -x c -S -o /dev/null %s", jit_cc(), report_flags(march),
           rfile, cfile);
  bool built = system(cmd) == 0;
  CoilErr *re = NULL;
  size_t rlen;
  char *report = built ? coil_read_file(rfile, &rlen, &re) : NULL;
  if (re) coil_err_free(re);
  snprintf(what, sizeof what, "vector_%s_%s_compiles", fn, march);
  CHECK(what, built && report);
  if (built && report) {
    /* The column blocks' x loops: the first loop after each `rK_j + 8 <=`
     * loop head that is not the prefetch of the rows ahead.  The lane
     * loops of rows: `for (int l = 0; l < L; l++)` after an omp simd
     * pragma, L >= 16 (shorter fold levels may stay scalar). */
    int line = 1, loops = 0, scalar = 0, first_scalar = 0, lanes = 0, lanes_scalar = 0, first_lanes = 0;
    int points = 0, points_scalar = 0, first_points = 0;
    bool after_block_head = false, after_simd = false;
    for (const char *p = code; *p; p++) {
      if (p == code || p[-1] == '\n') {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (after_block_head) {
          after_block_head = false;
          const char *skip = p;
          while (*skip == ' ') skip++;
          if (!strncmp(skip, "#pragma omp simd", 16) || !strncmp(skip, "for (int64_t j_ = 0;", 20) ||
              !strncmp(skip, "for (int64_t o_ = 0;", 20) || !strncmp(skip, "}", 1)) {
            after_block_head = true; /* the loop follows the pragma or the rows' prefetches */
          } else if (!strncmp(skip, "for (int64_t xi = 0;", 20)) {
            loops++;
            if (!reported(report, cfile, line)) scalar++, first_scalar = first_scalar ? first_scalar : line;
          }
        }
        const char *skip = p;
        while (*skip == ' ') skip++;
        int L = 0;
        if (after_simd && sscanf(skip, "for (int l = 0; l < %d; l++)", &L) == 1 && L >= 16) {
          lanes++;
          if (!reported(report, cfile, line)) lanes_scalar++, first_lanes = first_lanes ? first_lanes : line;
        }
        if (after_simd && !strncmp(skip, "for (int64_t xi = 0; xi < xn;", 29)) {
          points++;
          if (!reported(report, cfile, line)) points_scalar++, first_points = first_points ? first_points : line;
        }
        after_simd = !strncmp(skip, "#pragma omp simd", 16);
        const char *h = strstr(p, "_j + 8 <=");
        if (h && (size_t)(h - p) < n) after_block_head = true;
      }
      if (*p == '\n') line++;
    }
    check_kind(fn, march, "column_blocks", "column-block loops", want_loops, loops, scalar, first_scalar);
    check_kind(fn, march, "lane_loops", "lane loops", want_lanes, lanes, lanes_scalar, first_lanes);
    check_kind(fn, march, "pointwise_loops", "pointwise loops", want_points, points, points_scalar, first_points);
  }
  free(report);
  unlink(rfile);
}

int main(void) {
  /* gcc's banner names the FSF (Debian's cc prints "cc (Debian 12.2.0...)"). */
  char cmd[256], ver[4096] = "";
  snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", jit_cc());
  FILE *v = popen(cmd, "r");
  if (v) {
    size_t n = fread(ver, 1, sizeof ver - 1, v);
    ver[n] = 0;
    pclose(v);
  }
  if (!strstr(ver, "Free Software Foundation") || strstr(ver, "clang")) {
    printf("  vector_test: %s is not gcc; its vectorisation report is not read (nothing checked)\n", jit_cc());
    return 0;
  }
  snprintf(path, sizeof path, "/tmp/coil_vector_test_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, src, sizeof src - 1) != (ssize_t)(sizeof src - 1)) {
    printf("FAIL unit/vector_tempfile: cannot write %s\n", path);
    return 1;
  }
  close(fd);
  check_fn("amax_f32", 1, 0, 0);
  check_fn("amax_bf16", 1, 0, 0);
  check_fn("amin_f64", 1, 0, 0);
  check_fn("max_min_sum", 1, 0, 0);
  check_fn("channel_softmax", 2, 0, 0);
  check_fn("channel_softmax_chained", 2, 0, 0); /* in a column chain (chain.c) */
  check_fn("column_logsumexp", 2, 0, 0);
  check_fn("amax_rows", 0, 1, 0);
  check_fn("amin_rows_f64", 0, 1, 0);
  check_fn("amax_rows_bf16", 0, 1, 0);
  check_fn("softmax_rows", 0, 3, 0);
  check_fn("short_rows", 0, 1, 0);
  check_fn("many_tanh_softmax", 0, 3, 0);
  check_fn("pow_rows", 0, 1, 0);
  check_fn("pow_tensor_rows", 0, 1, 0);
  check_fn("tanh_rows_f64", 0, 1, 0);
  check_fn("silu_mul_bf16", 0, 0, 1);
  check_fn("silu_grad", 0, 0, 1);
  check_fn("silu_grad_f64", 0, 0, 1);
  check_fn("gelu_tanh", 0, 0, 1);
  check_fn("exp_log_f64", 0, 0, 1);
  unlink(path);
  return failures ? 1 : 0;
}
