/* coil bench: how fast the kernels are, against what the machine allows.
 *
 *   compile   twice, in a private empty cache: once cold (parse .. C, then
 *             cc), once cached (parse .. C, then the cache hit and dlopen);
 *   inputs    as `coil run` makes them (same generator, same seed);
 *   ceiling   a read-only kernel of bench's own (vectorised integer sums,
 *             OpenMP, the same compiler flags as the kernels) reads every
 *             input once; its bandwidth is the machine's read ceiling;
 *   timing    warm-up, then at least --runs rounds, each timing the read
 *             kernel and then all of the program's kernels, interleaved so
 *             both see the same machine; medians are reported.  Before
 *             each of the two, every input's cache lines are flushed
 *             (--cache cold, the default): otherwise inputs that fit in a
 *             large last-level cache are partly left there by the run
 *             before, and the side that reads them in a friendlier order
 *             gains (the seed read "1.21 of the ceiling" on a 16-core host
 *             with 300 MiB of L3);
 *   floor     the bytes of each input read once and each output written
 *             once, divided by the ceiling (a strided input: each place of
 *             its storage that its view reaches, once).
 *
 * The user's kernel cache is never touched: the private cache is removed
 * before the timing starts (the loaded libraries stay mapped). */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"

CoilErr *bench_command(int argc, char **argv, int *status);

/* The read-only kernel: integer sums of every input's 8-byte words, in
 * variants that differ in how the threads share the work, because each
 * machine streams best in its own way and kernels that did what the read
 * kernel did not showed more than "1.00 of the ceiling":
 *   layout: each thread one contiguous part of each input (OpenMP static),
 *     or pieces of 1 MiB handed out one at a time (dynamic: on a 16-core
 *     KVM guest a static split waits for its slowest vCPU, 100 GB/s against
 *     135);
 *   streams: each part or piece read as S = 1, 2, 4 or 8 equal pieces, 256
 *     bytes of each in turn (on a 2-core KVM guest one stream a core read
 *     27 GB/s, four 33);
 *   prefetch: none, or software prefetches 8 KiB ahead of each stream;
 *   vector width: 128 or 512 bits preferred (on AMD Zen 4 128-bit loads
 *     streamed about 25% faster).
 * The fastest variant in the warm-up is the ceiling. */
static const char READ_KERNEL[] =
    "/* coil bench: the read ceiling. */\n"
    "#include <omp.h>\n"
    "#include <stdint.h>\n"
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)\n"
    "#define WIDTH(n) __attribute__((target(\"prefer-vector-width=\" #n)))\n"
    "#else\n"
    "#define WIDTH(n)\n"
    "#endif\n"
    "#if defined(__GNUC__)\n"
    "#define PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 2)\n"
    "#else\n"
    "#define PREFETCH(p) ((void)(p))\n"
    "#endif\n"
    "/* Words [lo, hi) of p as S streams into total. */\n"
    "#define READ_RANGE(p, lo, hi, S, PF, total) do { \\\n"
    "  const int64_t piece = ((hi) - (lo)) / (32 * S) * 32; \\\n"
    "  uint64_t s[32] = {0}; \\\n"
    "  for (int64_t i = (lo); i < (lo) + piece; i += 32) \\\n"
    "    for (int k = 0; k < S; k++) { \\\n"
    "      if (PF) \\\n"
    "        for (int o = 0; o < 32; o += 8) PREFETCH((uintptr_t)(p + i + k * piece + o) + 8192); \\\n"
    "      for (int l = 0; l < 32; l++) s[l] += p[i + k * piece + l]; \\\n"
    "    } \\\n"
    "  for (int64_t i = (lo) + S * piece; i < (hi); i++) s[0] += p[i]; \\\n"
    "  for (int l = 0; l < 32; l++) total += s[l]; \\\n"
    "} while (0)\n"
    "#define PIECE_WORDS 131072 /* 1 MiB */\n"
    "#define READ(name, width, S, PF, DYN) \\\n"
    "width uint64_t name(const void *const *bufs, const int64_t *bytes, int n) { \\\n"
    "  uint64_t total = 0; \\\n"
    "  for (int b = 0; b < n; b++) { \\\n"
    "    const uint64_t *p = (const uint64_t *)bufs[b]; \\\n"
    "    const int64_t words = bytes[b] / 8, npiece = (words + PIECE_WORDS - 1) / PIECE_WORDS; \\\n"
    "    if (DYN) { \\\n"
    "      _Pragma(\"omp parallel for schedule(dynamic, 1) reduction(+:total)\") \\\n"
    "      for (int64_t c = 0; c < npiece; c++) { \\\n"
    "        const int64_t lo = c * PIECE_WORDS, hi = lo + PIECE_WORDS < words ? lo + PIECE_WORDS : words; \\\n"
    "        READ_RANGE(p, lo, hi, S, PF, total); \\\n"
    "      } \\\n"
    "    } else { \\\n"
    "      _Pragma(\"omp parallel reduction(+:total)\") \\\n"
    "      { \\\n"
    "        const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num(); \\\n"
    "        READ_RANGE(p, words * id / nt, words * (id + 1) / nt, S, PF, total); \\\n"
    "      } \\\n"
    "    } \\\n"
    "  } \\\n"
    "  return total; \\\n"
    "}\n"
    "#define READ_W(S, PF, DYN) \\\n"
    "  READ(coil_bench_read128_##S##_##PF##_##DYN, WIDTH(128), S, PF, DYN) \\\n"
    "  READ(coil_bench_read512_##S##_##PF##_##DYN, WIDTH(512), S, PF, DYN)\n"
    "#define READ_S(PF, DYN) READ_W(1, PF, DYN) READ_W(2, PF, DYN) READ_W(4, PF, DYN) READ_W(8, PF, DYN)\n"
    "READ_S(0, 0) READ_S(1, 0) READ_S(0, 1) READ_S(1, 1)\n"
    "/* Every input's cache lines written back and dropped from every level, so\n"
    " * that the next run reads them from memory.  Returns 0, having done\n"
    " * nothing, where coil knows no cache-line flush for the target. */\n"
    "#if defined(__x86_64__) && defined(__CLFLUSHOPT__)\n"
    "#define FLUSH_LINE(p) __builtin_ia32_clflushopt((void *)(p))\n"
    "#define FLUSH_FENCE() __builtin_ia32_mfence()\n"
    "#elif defined(__x86_64__)\n"
    "#define FLUSH_LINE(p) __builtin_ia32_clflush((const void *)(p))\n"
    "#define FLUSH_FENCE() __builtin_ia32_mfence()\n"
    "#elif defined(__aarch64__)\n"
    "#define FLUSH_LINE(p) __asm__ volatile(\"dc civac, %0\" : : \"r\"(p) : \"memory\")\n"
    "#define FLUSH_FENCE() __asm__ volatile(\"dsb ish\" : : : \"memory\")\n"
    "#endif\n"
    "int coil_bench_evict(const void *const *bufs, const int64_t *bytes, int n) {\n"
    "#ifdef FLUSH_LINE\n"
    "  _Pragma(\"omp parallel\")\n"
    "  {\n"
    "    for (int b = 0; b < n; b++) {\n"
    "      const uintptr_t lo = (uintptr_t)bufs[b] & ~(uintptr_t)63;\n"
    "      const int64_t lines = (int64_t)(((uintptr_t)bufs[b] + (uintptr_t)bytes[b] - lo + 63) / 64);\n"
    "      _Pragma(\"omp for schedule(static) nowait\")\n"
    "      for (int64_t i = 0; i < lines; i++) FLUSH_LINE(lo + (uintptr_t)i * 64);\n"
    "    }\n"
    "    FLUSH_FENCE(); /* each thread waits for its own flushes */\n"
    "  }\n"
    "  return 1;\n"
    "#else\n"
    "  (void)bufs, (void)bytes, (void)n;\n"
    "  return 0;\n"
    "#endif\n"
    "}\n";

/* The read kernel's variants, index w: width w % 2, streams w / 2 % 4,
 * prefetch w / 8 % 2, dynamic pieces w / 16. */
static const int READ_WIDTHS[2] = {128, 512}, READ_STREAMS[4] = {1, 2, 4, 8};
enum { NREAD = 32 };

typedef uint64_t (*ReadFn)(const void *const *, const int64_t *, int);
typedef int (*EvictFn)(const void *const *, const int64_t *, int);

static const char HELP[] =
    "usage: coil bench FILE.py [options]\n"
    "\n"
    "Compiles the function once (timing a cold build in a private empty cache, then a\n"
    "cached one), makes its inputs as `coil run` does, warms up, and times the kernels\n"
    "alone.  In the same run it measures the machine's read bandwidth with a read-only\n"
    "kernel of its own over the same inputs, interleaved with the timed runs.\n"
    "\n"
    "The floor is the bytes of each input read once and each output written once,\n"
    "divided by that bandwidth; the fraction is floor / kernel time (1 = at the ceiling).\n"
    "An input with stride(...) counts the elements its view reaches, each place once.\n"
    "\n"
    "options:\n"
    "  --fn NAME              the function to compile (default: the file's only annotated function)\n"
    "  --arg NAME=DTYPE[d0,...]\n"
    "                         give or override a parameter's dtype and shape (as coil run)\n"
    "  --seed S               seed of the random inputs (default 0)\n"
    "  --runs N               timed rounds, at least 10 (default: 10, more while under --min-ms)\n"
    "  --min-ms T             keep timing rounds until T ms of kernel time (default 500), at most 200 rounds\n"
    "  --clock wall|cpu       time with the wall clock (default) or the process's CPU clock (summed\n"
    "                         over threads; steadier on a shared machine; with OMP_WAIT_POLICY=passive\n"
    "                         so that waiting threads do not spin)\n"
    "  --cache cold|warm      cold (default): before each timed run, of the read kernel and of the\n"
    "                         program's kernels alike, every input's cache lines are flushed, so both\n"
    "                         read from memory; warm: each run finds what the previous one left in the\n"
    "                         caches (inputs that fit in the last-level cache then flatter whichever\n"
    "                         side reads them in the order they were left)\n"
    "  --huge-pages           inputs, outputs and temporaries of 2 MiB and more on transparent huge\n"
    "                         pages, as `coil run --huge-pages` (the ceiling is then measured on them\n"
    "                         too); huge_page_mb says how much the kernel really gave\n"
    "  --json                 print one JSON object: kernel_ms, bytes, gbps, ceiling_gbps, fraction,\n"
    "                         compile_ms, cached_compile_ms, peak_rss_mb, and more\n"
    "\n"
    "Threads: OpenMP's (OMP_NUM_THREADS).  Times are wall-clock medians; the spread is\n"
    "reported as min, max and the interquartile range.\n";

typedef struct BenchOpts {
  CompileOptions co;
  ArgOverride args[64];
  char argnames[64][128]; /* the names --arg gives; args[] points here */
  uint64_t seed;
  int runs;
  double min_ms;
  bool json, cpu_clock, huge_pages, warm_cache;
} BenchOpts;

static CoilErr *parse_args(int argc, char **argv, BenchOpts *o, bool *help) {
  *help = false;
  o->runs = 10;
  o->min_ms = 500;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = !strcmp(a, "--fn") || !strcmp(a, "--arg") || !strcmp(a, "--seed") || !strcmp(a, "--runs") || !strcmp(a, "--min-ms") ||
                 !strcmp(a, "--clock") || !strcmp(a, "--cache");
    if (takes && !v) return coil_err("coil bench: %s needs a value\n(see coil bench --help)", a);
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      *help = true;
    } else if (!strcmp(a, "--json")) {
      o->json = true;
    } else if (!strcmp(a, "--huge-pages")) {
      o->huge_pages = true;
    } else if (!strcmp(a, "--clock")) {
      if (strcmp(v, "wall") && strcmp(v, "cpu")) return coil_err("coil bench: --clock takes wall or cpu, got '%s'", v);
      o->cpu_clock = v[0] == 'c';
      i++;
    } else if (!strcmp(a, "--cache")) {
      if (strcmp(v, "cold") && strcmp(v, "warm")) return coil_err("coil bench: --cache takes cold or warm, got '%s'", v);
      o->warm_cache = v[0] == 'w';
      i++;
    } else if (!strcmp(a, "--fn")) {
      o->co.fn = argv[++i];
    } else if (!strcmp(a, "--arg")) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v) return coil_err("coil bench: --arg %s: expected NAME=DTYPE[d0,...]", v);
      if (o->co.nargs == 64) return coil_err("coil bench: too many --arg options");
      if (eq - v >= (long)sizeof o->argnames[0]) return coil_err("coil bench: --arg %s: the name is too long", v);
      memcpy(o->argnames[o->co.nargs], v, (size_t)(eq - v));
      o->argnames[o->co.nargs][eq - v] = 0;
      o->args[o->co.nargs] = (ArgOverride){o->argnames[o->co.nargs], eq + 1};
      o->co.nargs++;
      i++;
    } else if (!strcmp(a, "--seed") || !strcmp(a, "--runs") || !strcmp(a, "--min-ms")) {
      char *end;
      double x = strtod(v, &end);
      if (!*v || *end || x < 0 || x != floor(x))
        return coil_err("coil bench: %s needs a non-negative integer, got '%s'", a, v);
      if (a[2] == 's') o->seed = (uint64_t)x;
      else if (a[2] == 'r') o->runs = x < 10 ? 10 : x > 10000 ? 10000 : (int)x;
      else o->min_ms = x;
      i++;
    } else if (a[0] == '-' && a[1]) {
      return coil_err("coil bench: unknown option %s\n(see coil bench --help)", a);
    } else {
      if (o->co.file) return coil_err("coil bench: one input file only (got a second: %s)", a);
      o->co.file = a;
    }
  }
  if (!*help && !o->co.file) return coil_err("coil bench: no input file\n(see coil bench --help)");
  o->co.args = o->args;
  return NULL;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolated. */
static double quantile(const double *v, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)pos;
  if (i + 1 >= n) return v[n - 1];
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

typedef int64_t (*KernelFn)(void *const *);

/* The bytes of b's elements the kernels can read, each place of its
 * storage once: for a strided input fewer than its storage where the
 * strides skip elements (every other row of a buffer), and fewer than its
 * shape's where they repeat them (stride 0: one row for all). */
static int64_t distinct_bytes(const Buffer *b) {
  int64_t n = 1;
  for (int d = 0; d < b->ndim; d++)
    if (b->stride[d] || !b->shape[d]) n *= b->shape[d];
  return (n < b->numel ? n : b->numel) * dtype_size(b->dtype);
}

/* --cache cold: NULL under --cache warm. */
static void flush_inputs(EvictFn evict, const void *const *bufs, const int64_t *bytes, int n) {
  if (evict) evict(bufs, bytes, n);
}

static bool cpu_clock;

static double now_ms(void) {
  if (!cpu_clock) return coil_now_ms();
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

CoilErr *bench_command(int argc, char **argv, int *status) {
  BenchOpts o = {0};
  bool help;
  *status = 0;
  CoilErr *e = parse_args(argc, argv, &o, &help);
  if (e) return e;
  o.co.target = &cpu_target; /* coil bench times the C kernels */
  if (help) {
    fputs(HELP, stdout);
    return NULL;
  }

  /* A private, empty cache: the cold build really runs cc. */
  char tmpl[] = "/tmp/coil-bench-XXXXXX";
  if (!mkdtemp(tmpl)) return coil_err("coil bench: cannot create a temporary directory in /tmp");
  const char *old = getenv("COIL_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("COIL_CACHE_DIR", tmpl, 1);

  Compiled c, c2;
  JitLib lib = {0}, lib2 = {0}, rlib = {0};
  Tensors t = {0};
  bool have_c = false, have_c2 = false;
  double t0 = coil_now_ms();
  e = compile_source(&o.co, &c);
  have_c = true;
  if (!e) e = jit_compile(c.code.data, &lib);
  double cold_ms = coil_now_ms() - t0;
  double c_ms = c.compile_ms, cc_ms = lib.compile_ms;
  double cached_ms = 0, cached_c_ms = 0;
  if (!e) {
    t0 = coil_now_ms();
    e = compile_source(&o.co, &c2);
    have_c2 = true;
    if (!e) e = jit_compile(c2.code.data, &lib2);
    cached_ms = coil_now_ms() - t0;
    cached_c_ms = c2.compile_ms;
    if (!e && !lib2.cached) e = coil_err("coil bench: the second build missed the cache (a bug in coil)");
  }
  if (!e) e = jit_compile(READ_KERNEL, &rlib);
  if (saved) setenv("COIL_CACHE_DIR", saved, 1);
  else unsetenv("COIL_CACHE_DIR");
  free(saved);
  remove_tree(tmpl);
  if (have_c2) {
    jit_close(&lib2);
    compiled_free(&c2);
  }
  if (e) goto done;

  const Program *p = &c.program;
  KernelFn *fns = calloc((size_t)p->nkernels + 1, sizeof(KernelFn));
  for (int i = 0; i < p->nkernels && !e; i++) {
    void *sym = jit_symbol(&lib, p->kernels[i].name);
    if (!sym) e = coil_err("kernel %s missing from %s", p->kernels[i].name, lib.path);
    else memcpy(&fns[i], &sym, sizeof sym);
  }
  ReadFn readfns[NREAD] = {0};
  for (int w = 0; w < NREAD && !e; w++) {
    char nm[64];
    snprintf(nm, sizeof nm, "coil_bench_read%d_%d_%d_%d", READ_WIDTHS[w % 2], READ_STREAMS[w / 2 % 4], w / 8 % 2, w / 16);
    void *rsym = jit_symbol(&rlib, nm);
    if (rsym) memcpy(&readfns[w], &rsym, sizeof rsym);
    else e = coil_err("coil bench: the read kernel did not load");
  }
  EvictFn evict = NULL;
  if (!e) {
    void *esym = jit_symbol(&rlib, "coil_bench_evict");
    if (esym) memcpy(&evict, &esym, sizeof esym);
    else e = coil_err("coil bench: the read kernel did not load");
  }
  RunOptions ro = {.seed = o.seed, .quiet = true, .huge_pages = o.huge_pages};
  if (!e) e = run_make_inputs(&c, &ro, &t);
  if (e) {
    free(fns);
    goto done;
  }

  /* The floor's bytes: inputs some kernel reads, and outputs.  The read
   * kernel reads (and the flush drops) an input's whole storage; the floor
   * counts what the kernels read of it (distinct_bytes). */
  bool *loaded = calloc((size_t)p->nbufs + 1, sizeof(bool));
  for (int i = 0; i < p->nkernels; i++)
    for (int v = 0; v < p->kernels[i].nvals; v++)
      if (p->kernels[i].vals[v].op == OP_INPUT) loaded[p->kernels[i].vals[v].buf] = true;
  int64_t in_bytes = 0, out_bytes = 0, storage_bytes = 0;
  const void **rbufs = calloc((size_t)p->nbufs + 1, sizeof(void *));
  int64_t *rbytes = calloc((size_t)p->nbufs + 1, sizeof(int64_t));
  int nread = 0;
  for (int i = 0; i < p->nbufs; i++) {
    const Buffer *b = &p->bufs[i];
    int64_t n = b->numel * dtype_size(b->dtype);
    if (b->kind == BUF_INPUT && loaded[i]) {
      in_bytes += distinct_bytes(b);
      storage_bytes += n;
      rbufs[nread] = t.bufs[i];
      rbytes[nread++] = n;
    } else if (b->kind == BUF_OUTPUT) {
      out_bytes += n;
    }
  }
  free(loaded);
  /* Inputs flushed before every timed run (--cache cold), or left as the
   * previous run left them (warm). */
  if (!e && !o.warm_cache && !evict(rbufs, rbytes, nread))
    e = coil_err("coil bench: --cache cold needs a cache-line flush, and coil knows none for this CPU "
                   "(x86-64 and AArch64 only); use --cache warm");
  if (e) {
    free(fns);
    free(rbufs);
    free(rbytes);
    goto done;
  }
  if (o.warm_cache) evict = NULL;

  /* Warm up: page in the outputs and temporaries, start the threads, and
   * pick the fastest read kernel (the median of 3 runs each). */
  volatile uint64_t sink = 0;
  cpu_clock = o.cpu_clock;
  double warm0 = coil_now_ms(), best_read = INFINITY;
  ReadFn readfn = readfns[0];
  int read_width = READ_WIDTHS[0], read_streams = READ_STREAMS[0];
  bool read_prefetch = false, read_dynamic = false;
  int64_t bad = 0;
  for (int w = 0; w < 3 || (w < 20 && coil_now_ms() - warm0 < 200); w++)
    for (int i = 0; i < p->nkernels && !bad; i++) bad = fns[i](t.bufs);
  if (bad) { /* the generated indices left a dim: nothing to time */
    e = ref_index_error(&c.graph, (int)(bad - 1));
    free(fns);
    free(rbufs);
    free(rbytes);
    goto done;
  }
  for (int w = 0; w < NREAD; w++) {
    double rw[3];
    for (int j = 0; j < 3; j++) {
      flush_inputs(evict, rbufs, rbytes, nread);
      double a = now_ms();
      sink += readfns[w](rbufs, rbytes, nread);
      rw[j] = now_ms() - a;
    }
    qsort(rw, 3, sizeof(double), cmp_double);
    if (rw[1] < best_read)
      best_read = rw[1], readfn = readfns[w], read_width = READ_WIDTHS[w % 2], read_streams = READ_STREAMS[w / 2 % 4],
      read_prefetch = w / 8 % 2, read_dynamic = w / 16;
  }
  int cap = 200 > o.runs ? 200 : o.runs;
  double *kt = calloc((size_t)cap, sizeof(double)), *rt = calloc((size_t)cap, sizeof(double));
  int runs = 0;
  double total = 0;
  while (runs < o.runs || (total < o.min_ms && runs < cap)) {
    flush_inputs(evict, rbufs, rbytes, nread);
    double a = now_ms();
    sink += readfn(rbufs, rbytes, nread);
    double b = now_ms();
    flush_inputs(evict, rbufs, rbytes, nread);
    double c0 = now_ms();
    for (int i = 0; i < p->nkernels; i++) (void)fns[i](t.bufs); /* checked in the warm-up */
    double d = now_ms();
    rt[runs] = b - a;
    kt[runs] = d - c0;
    total += d - c0;
    runs++;
  }
  (void)sink;
  qsort(kt, (size_t)runs, sizeof(double), cmp_double);
  qsort(rt, (size_t)runs, sizeof(double), cmp_double);
  double kms = quantile(kt, runs, 0.5), rms = quantile(rt, runs, 0.5);
  double iqr = quantile(kt, runs, 0.75) - quantile(kt, runs, 0.25);
  int64_t bytes = in_bytes + out_bytes;
  double gbps = (double)bytes / kms / 1e6;
  double ceil_gbps = storage_bytes > 0 && rms > 0 ? (double)storage_bytes / rms / 1e6 : NAN;
  double floor_ms = (double)bytes / ceil_gbps / 1e6;
  double fraction = floor_ms / kms;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = (double)ru.ru_maxrss / 1024.0;
  int64_t huge_kb = run_huge_page_kb();
  double huge_mb = huge_kb < 0 ? NAN : (double)huge_kb / 1024.0;
  int threads = omp_get_max_threads();

  if (o.json) {
    /* JSON has no NaN or infinity: a quantity that is not defined (no input
     * bytes, so no ceiling) is null. */
    const char *keys[] = {"kernel_ms", "kernel_ms_min", "kernel_ms_max", "kernel_ms_iqr", "gbps", "ceiling_gbps", "read_ms",
                          "floor_ms", "fraction", "compile_ms", "compile_c_ms", "cc_ms", "cached_compile_ms",
                          "cached_compile_c_ms", "peak_rss_mb", "huge_page_mb"};
    double vals[] = {kms, kt[0], kt[runs - 1], iqr, gbps, ceil_gbps, rms, floor_ms, fraction, cold_ms, c_ms, cc_ms, cached_ms,
                     cached_c_ms, rss_mb, huge_mb};
    printf("{\"name\": \"%s\", \"file\": \"%s\", \"kernels\": %d, \"threads\": %d, \"runs\": %d, \"clock\": \"%s\", "
           "\"cache\": \"%s\", \"bytes\": %lld, \"input_bytes\": %lld, \"output_bytes\": %lld, \"read_bits\": %d, "
           "\"read_streams\": %d, \"read_prefetch\": %s, \"read_split\": \"%s\", \"huge_pages\": %s",
           c.graph.fn_name, o.co.file, p->nkernels, threads, runs, o.cpu_clock ? "cpu" : "wall", o.warm_cache ? "warm" : "cold",
           (long long)bytes, (long long)in_bytes, (long long)out_bytes, read_width, read_streams, read_prefetch ? "true" : "false",
           read_dynamic ? "dynamic" : "static", o.huge_pages ? "true" : "false");
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
      if (isfinite(vals[i])) printf(", \"%s\": %.9g", keys[i], vals[i]);
      else printf(", \"%s\": null", keys[i]);
    }
    printf("}\n");
  } else {
    printf("%s: %d kernel%s, %d thread%s, %d runs, %s\n", c.graph.fn_name, p->nkernels, p->nkernels == 1 ? "" : "s", threads,
           threads == 1 ? "" : "s", runs,
           o.warm_cache ? "inputs as the previous run left them in the caches" : "inputs flushed from the caches before each run");
    printf("kernels   %.3f ms median (min %.3f, max %.3f, IQR %.3f)%s, %.1f GB/s\n", kms, kt[0], kt[runs - 1], iqr,
           o.cpu_clock ? " of CPU time" : "", gbps);
    printf("ceiling   %.1f GB/s read-only (%.3f ms for the inputs; %d-bit loads, %s, %d stream%s each%s); floor %.3f ms "
           "for %.1f MB in + %.1f MB out\n",
           ceil_gbps, rms, read_width, read_dynamic ? "1 MiB pieces handed out in turn" : "a part a thread", read_streams,
           read_streams == 1 ? "" : "s", read_prefetch ? ", prefetched" : "", floor_ms, in_bytes / 1e6, out_bytes / 1e6);
    printf("fraction  %.2f of the read ceiling\n", fraction);
    printf("compile   %.1f ms cold (parse to C %.2f ms, cc %.1f ms), %.2f ms cached (parse to C %.2f ms)\n", cold_ms, c_ms, cc_ms,
           cached_ms, cached_c_ms);
    printf("memory    peak RSS %.1f MB", rss_mb);
    if (o.huge_pages && isfinite(huge_mb)) printf(", %.0f MB of it on huge pages", huge_mb);
    else if (o.huge_pages) printf(", huge pages asked for (this kernel does not say how many it gave)");
    printf("\n");
  }
  free(kt);
  free(rt);
  free(rbufs);
  free(rbytes);
  free(fns);
done:
  tensors_free(&t);
  jit_close(&rlib);
  jit_close(&lib);
  if (have_c) compiled_free(&c);
  return e;
}
