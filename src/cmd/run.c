/* coil run: compile, make inputs, run the kernels, check them against the
 * eager reference, print and save.
 *
 * Inputs are random by default, from a counter-based generator: element i
 * of parameter k depends only on (seed, k, i), so inputs are the same for
 * any thread count and any machine. */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/npy.h"

static double uniform01(uint64_t seed, int param, int64_t i, int which) {
  uint64_t h = coil_mix64(coil_mix64(seed ^ ((uint64_t)param << 48)) + (uint64_t)i * 2 + (uint64_t)which);
  return ((double)(h >> 11) + 0.5) * 0x1p-53; /* in (0, 1) */
}

static void store_value(DType t, void *base, int64_t i, double v) {
  switch (t) {
  case DT_F32: ((float *)base)[i] = (float)v; break;
  case DT_F64: ((double *)base)[i] = v; break;
  case DT_BF16: ((uint16_t *)base)[i] = f32_to_bf16((float)v); break;
  case DT_F16: ((uint16_t *)base)[i] = f32_to_f16((float)v); break;
  case DT_I32: ((int32_t *)base)[i] = (int32_t)v; break;
  case DT_I64: ((int64_t *)base)[i] = (int64_t)v; break;
  case DT_BOOL: ((uint8_t *)base)[i] = v != 0; break;
  default: coil_unreachable("dtype");
  }
}

static double load_value(DType t, const void *base, int64_t i) {
  switch (t) {
  case DT_F32: return ((const float *)base)[i];
  case DT_F64: return ((const double *)base)[i];
  case DT_BF16: return bf16_to_f32(((const uint16_t *)base)[i]);
  case DT_F16: return f16_to_f32(((const uint16_t *)base)[i]);
  case DT_I32: return ((const int32_t *)base)[i];
  case DT_I64: return (double)((const int64_t *)base)[i];
  case DT_BOOL: return ((const uint8_t *)base)[i];
  default: coil_unreachable("dtype");
  }
}

/* Integer parameters: "randn" means uniform integers in [-8, 8];
 * bool: a fair coin; uniform(lo, hi) gives integers in [lo, hi). */
static void generate(const InputSpec *s, int param, uint64_t seed, void *data, int64_t numel) {
  bool integral = !dtype_is_float(s->dtype);
  #pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < numel; i++) {
    double v;
    switch (s->dist) {
    case DIST_ONES: v = 1; break;
    case DIST_ARANGE: v = s->dtype == DT_BOOL ? (double)(i & 1) : (double)i; break;
    case DIST_UNIFORM: {
      double u = uniform01(seed, param, i, 0);
      v = s->lo + u * (s->hi - s->lo);
      if (integral) v = floor(v);
      break;
    }
    default: {
      /* Box-Muller: the pair i/2 gives two normals, cos for even i and
       * sin for odd; single precision unless the parameter is f64. */
      int64_t pair = i >> 1;
      double u1 = uniform01(seed, param, pair, 0), u2 = uniform01(seed, param, pair, 1);
      if (s->dtype == DT_BOOL) v = uniform01(seed, param, i, 0) < 0.5;
      else if (integral) v = floor(uniform01(seed, param, i, 0) * 17) - 8;
      else if (s->dtype == DT_F64) v = sqrt(-2 * log(u1)) * (i & 1 ? sin(6.283185307179586 * u2) : cos(6.283185307179586 * u2));
      else v = sqrtf(-2 * logf((float)u1)) * (i & 1 ? sinf(6.2831853f * (float)u2) : cosf(6.2831853f * (float)u2));
    }
    }
    store_value(s->dtype, data, i, v);
  }
}

/* With huge pages asked for, a buffer of 2 MiB or more is aligned to 2 MiB
 * and advised onto transparent huge pages.  Why: under a hypervisor a TLB
 * miss walks two page tables, and on the 2-core VM of docs/bench.md the
 * read-only kernel of coil bench read 47-49 GB/s on 4 KiB pages and 58-64
 * GB/s on 2 MiB ones.  numpy advises its large arrays the same way; PyTorch
 * does with THP_MEM_ALLOC_ENABLE=1.  The advice may be refused (THP
 * "never", or no free huge page): the buffer is then as before. */
static void *alloc_buffer(const Buffer *b, bool huge_pages) {
  size_t bytes = (size_t)(b->numel ? b->numel : 1) * (size_t)dtype_size(b->dtype);
  const size_t huge = (size_t)2 << 20;
  if (huge_pages && bytes >= huge) {
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, bytes);
    if (p) (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
  }
  bytes = (bytes + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

int64_t run_huge_page_kb(void) {
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  if (!f) return -1;
  char line[256];
  long long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %lld kB", &kb) == 1) break;
  fclose(f);
  return kb;
}

void tensors_free(Tensors *t) {
  for (int i = 0; i < t->n; i++) free(t->bufs[i]);
  free(t->bufs);
  t->bufs = NULL;
  t->n = 0;
}

/* A .npy file holds the logical tensor, in row-major order; an input's
 * storage holds it where its strides say.  Copy the logical elements out
 * of the storage (gather) or into it (scatter), walking the index like an
 * odometer. */
static void strided_copy(const Buffer *b, void *storage, void *logical, bool scatter) {
  size_t es = (size_t)dtype_size(b->dtype);
  int64_t n = shape_numel(b->ndim, b->shape), idx[COIL_MAX_DIMS] = {0}, off = 0;
  for (int64_t i = 0; i < n; i++) {
    char *s = (char *)storage + (size_t)off * es, *l = (char *)logical + (size_t)i * es;
    memcpy(scatter ? s : l, scatter ? l : s, es);
    for (int d = b->ndim - 1; d >= 0; d--) {
      off += b->stride[d];
      if (++idx[d] < b->shape[d]) break;
      off -= idx[d] * b->stride[d];
      idx[d] = 0;
    }
  }
}

static bool is_contiguous(const Buffer *b) {
  int64_t cs[COIL_MAX_DIMS];
  contiguous_strides(b->ndim, b->shape, cs);
  for (int d = 0; d < b->ndim; d++)
    if (b->shape[d] > 1 && b->stride[d] != cs[d]) return false;
  return true;
}

/* Scatter a file's logical tensor into a strided input's storage.  Where
 * the strides make elements share memory (stride 0, as expand gives), the
 * file must hold one value for all of them: the storage cannot hold two,
 * and the kernels would silently compute with one of them. */
static CoilErr *scatter_input(const char *path, const Buffer *b, void *storage, void *logical) {
  size_t es = (size_t)dtype_size(b->dtype);
  int64_t n = shape_numel(b->ndim, b->shape);
  memset(storage, 0xff, (size_t)b->numel * es); /* what no element covers: NaN, -1 */
  strided_copy(b, storage, logical, true);
  char *back = malloc((size_t)(n ? n : 1) * es);
  if (!back) return coil_err("out of memory for %s", b->name);
  strided_copy(b, storage, back, false);
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (memcmp(back + (size_t)i * es, (char *)logical + (size_t)i * es, es)) bad = i;
  free(back);
  if (bad < 0) return NULL;
  StrBuf st = {0};
  stride_str(&st, b->ndim, b->stride);
  CoilErr *e = coil_err("%s: parameter %s's %s puts several elements in one place, but the file's values there differ "
                          "(first at flat index %lld)", path, b->name, st.data, (long long)bad);
  sb_free(&st);
  return e;
}

static CoilErr *read_input(const char *dir, const Buffer *b, bool huge_pages, void **out) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.npy", dir, b->name);
  NpyArray arr;
  CoilErr *e = npy_read(path, &arr);
  if (e) return e;
  StrBuf want = {0}, got = {0};
  shape_str(&want, b->ndim, b->shape);
  shape_str(&got, arr.ndim, arr.shape);
  bool same = arr.ndim == b->ndim && !memcmp(arr.shape, b->shape, sizeof(int64_t) * (size_t)b->ndim);
  if (!same) e = coil_err("%s: shape %s does not match parameter %s's shape %s", path, got.data, b->name, want.data);
  else if (arr.dtype != b->dtype && !(b->dtype == DT_BF16 && arr.dtype == DT_F32))
    e = coil_err("%s: dtype %s does not match parameter %s's dtype %s%s", path, dtype_name(arr.dtype), b->name,
                   dtype_name(b->dtype), b->dtype == DT_BF16 ? " (a bf16 parameter is read from an f32 array)" : "");
  else if (arr.dtype != b->dtype) e = npy_convert(&arr, b->dtype);
  sb_free(&want);
  sb_free(&got);
  if (e) {
    npy_free(&arr);
    return e;
  }
  void *buf = alloc_buffer(b, huge_pages);
  if (!buf) {
    npy_free(&arr);
    return coil_err("out of memory for %s", b->name);
  }
  if (is_contiguous(b)) memcpy(buf, arr.data, (size_t)b->numel * (size_t)dtype_size(b->dtype));
  else e = scatter_input(path, b, buf, arr.data);
  npy_free(&arr);
  if (e) {
    free(buf);
    return e;
  }
  *out = buf;
  return NULL;
}

CoilErr *run_make_inputs(const Compiled *c, const RunOptions *o, Tensors *t) {
  const Program *p = &c->program;
  t->n = p->nbufs;
  t->bufs = calloc((size_t)p->nbufs, sizeof(void *));
  for (int i = 0; i < p->nbufs; i++) {
    const Buffer *b = &p->bufs[i];
    if (b->kind == BUF_INPUT && o->inputs_dir) {
      CoilErr *e = read_input(o->inputs_dir, b, o->huge_pages, &t->bufs[i]);
      if (e) return e;
      continue;
    }
    if (!(t->bufs[i] = alloc_buffer(b, o->huge_pages)))
      return coil_err("out of memory: buffer %s needs %lld bytes", b->name, (long long)b->numel * dtype_size(b->dtype));
    if (b->kind == BUF_INPUT) generate(&c->graph.inputs[b->index], b->index, o->seed, t->bufs[i], b->numel);
  }
  return NULL;
}

typedef int64_t (*KernelFn)(void *const *);

CoilErr *run_kernels(const Compiled *c, JitLib *lib, Tensors *t) {
  const Program *p = &c->program;
  for (int i = 0; i < p->nkernels; i++) {
    KernelFn fn;
    void *sym = jit_symbol(lib, p->kernels[i].name);
    if (!sym) return coil_err("kernel %s missing from %s", p->kernels[i].name, lib->path);
    memcpy(&fn, &sym, sizeof fn);
    int64_t bad = fn(t->bufs);
    if (bad) return ref_index_error(&c->graph, (int)(bad - 1));
  }
  return NULL;
}

void default_tolerance(DType t, double *rtol, double *atol) {
  switch (t) {
  case DT_F64: *rtol = 1e-7; *atol = 1e-7; break;
  case DT_F32: *rtol = 1.3e-6; *atol = 1e-5; break;
  case DT_F16: *rtol = 1e-3; *atol = 1e-5; break;
  case DT_BF16: *rtol = 1.6e-2; *atol = 1e-5; break;
  default: *rtol = 0; *atol = 0; break;
  }
}

/* The longest reduction an output depends on: its sums may be taken in
 * another order than the reference's.  A sum at indices counts as long as
 * its values' indexed dim (every value along it may add into one element,
 * and the Triton targets add atomically, in any order). */
int64_t reduction_length(const GNode *n, int64_t *memo) {
  if (memo[n->id]) return memo[n->id];
  int64_t m = 1;
  for (int i = 0; i < n->nin; i++) {
    int64_t k = reduction_length(n->in[i], memo);
    if (k > m) m = k;
  }
  if (op_info[n->op].kind == OK_REDUCE) {
    int64_t len = 1;
    for (int d = 0; d < n->in[0]->ndim; d++)
      if (n->rmask >> d & 1) len *= n->in[0]->shape[d];
    if (len > m) m = len;
  }
  if (n->op == OP_SCATTER_ADD && n->in[2]->shape[n->dim] > m) m = n->in[2]->shape[n->dim];
  return memo[n->id] = m;
}

static CoilErr *save_all(const Compiled *c, const RunOptions *o, Tensors *t) {
  const Program *p = &c->program;
  if (mkdir(o->save_dir, 0755) && errno != EEXIST) return coil_err("--save %s: cannot create directory: %s", o->save_dir, strerror(errno));
  for (int i = 0; i < p->nbufs; i++) {
    const Buffer *b = &p->bufs[i];
    if (b->kind == BUF_TEMP || (b->kind == BUF_INPUT && o->inputs_dir)) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", o->save_dir, b->name);
    /* a strided input is saved as the tensor it is, as --inputs reads it */
    void *data = t->bufs[i], *logical = NULL;
    if (!is_contiguous(b)) {
      int64_t n = shape_numel(b->ndim, b->shape);
      if (!(data = logical = malloc((size_t)(n ? n : 1) * (size_t)dtype_size(b->dtype))))
        return coil_err("out of memory for %s", b->name);
      strided_copy(b, t->bufs[i], logical, false);
    }
    CoilErr *e = npy_write(path, b->dtype, b->ndim, b->shape, data);
    free(logical);
    if (e) return e;
  }
  return NULL;
}

static void describe(const Compiled *c) {
  const Program *p = &c->program;
  printf("%s: %d kernel%s (", c->graph.fn_name, p->nkernels, p->nkernels == 1 ? "" : "s");
  for (int i = 0; i < p->nkernels; i++) {
    const Kernel *k = &p->kernels[i];
    if (i) printf("; ");
    if (!k->nreds) printf("pointwise");
    for (int g = 0; g < k->ngroups; g++) {
      const char *ops[4] = {0};
      int nops = 0;
      for (int r = 0; r < k->nreds; r++) {
        if (k->reds[r].group != g) continue;
        const char *nm = k->reds[r].op == OP_SUM ? "sum" : k->reds[r].op == OP_PROD ? "prod" : k->reds[r].op == OP_AMAX ? "amax"
                         : k->reds[r].op == OP_AMIN ? "amin" : k->reds[r].op == OP_ARGMAX ? "argmax" : "argmin";
        bool dup = false;
        for (int j = 0; j < nops; j++) dup |= !strcmp(ops[j], nm);
        if (!dup && nops < 4) ops[nops++] = nm;
      }
      if (g) printf(", ");
      for (int j = 0; j < nops; j++) printf("%s%s", j ? "+" : "", ops[j]);
      /* Axes in the user's dim order (ids follow creation order). */
      int ax[COIL_MAX_DIMS], n = k->groups[g].naxes;
      memcpy(ax, k->groups[g].axes, sizeof(int) * (size_t)n);
      for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && ax[b] < ax[b - 1]; b--) { int t = ax[b]; ax[b] = ax[b - 1]; ax[b - 1] = t; }
      printf(" over %d ax%s: ", n, n == 1 ? "is" : "es");
      for (int a = 0; a < n; a++) printf("%s%lld", a ? "x" : "", (long long)k->axes[ax[a]].size);
    }
    printf(" -> ");
    if (!k->nx) printf("1");
    for (int a = 0; a < k->nx; a++) printf("%s%lld", a ? "x" : "", (long long)k->axes[k->x[a]].size);
  }
  StrBuf how = {0};
  c->target->describe(&how, c);
  printf("), %s\n", how.data);
  sb_free(&how);
}

int64_t check_output(const Buffer *b, const void *data, const RV *ref, const RV *ref64, double rtol, double atol,
                     bool equal_nan, bool lenient, CheckStats *st) {
  bool fl = dtype_is_float(b->dtype);
  *st = (CheckStats){.first = -1};
  for (int64_t i = 0; i < b->numel; i++) {
    double got = load_value(b->dtype, data, i);
    if (!fl) {
      int64_t gi = b->dtype == DT_I64 ? ((const int64_t *)data)[i] : (int64_t)got;
      if (gi != ref[i].i) {
        if (st->first < 0) st->first = i;
        st->bad++;
      }
      double d64 = fabs((double)gi - (double)ref64[i].i);
      if (d64 > st->max_abs) st->max_abs = d64;
      continue;
    }
    double want = ref[i].f, w64 = ref64[i].f;
    bool ok;
    if (isnan(got) || isnan(want)) ok = isnan(got) && isnan(want) && equal_nan;
    else if (isinf(got) || isinf(want)) ok = got == want;
    else ok = fabs(got - want) <= atol + rtol * fabs(want);
    /* Lenient (the fuzzer): also accept a result at least as close to the
     * float64 value as the eager reference is. */
    if (!ok && lenient && isfinite(got) && isfinite(want) && isfinite(w64))
      ok = fabs(got - w64) <= 2 * fabs(want - w64) + atol + rtol * fabs(w64);
    if (!ok) {
      if (st->first < 0) st->first = i;
      st->bad++;
    }
    if (isfinite(got) && isfinite(w64)) {
      double d = fabs(got - w64);
      if (d > st->max_abs) st->max_abs = d;
      /* Relative error only where the reference is above atol: near 0 it
       * says nothing (an f16 rms norm printed "max rel err 1" for values
       * that round to 0), and atol is what the check allows there. */
      if (fabs(w64) > atol && d / fabs(w64) > st->max_rel) st->max_rel = d / fabs(w64);
    }
  }
  return st->bad;
}

/* --save must be usable before anything runs: an error then leaves no
 * files behind, and a long run does not end in a failed write. */
static CoilErr *check_save_dir(const char *dir) {
  struct stat st;
  if (mkdir(dir, 0755) && errno != EEXIST) return coil_err("--save %s: cannot create directory: %s", dir, strerror(errno));
  if (!stat(dir, &st)) {
    if (!S_ISDIR(st.st_mode)) return coil_err("--save %s: not a directory", dir);
    if (access(dir, W_OK)) return coil_err("--save %s: directory is not writable: %s", dir, strerror(errno));
    return NULL;
  }
  char parent[4096];
  snprintf(parent, sizeof parent, "%s", dir);
  char *slash = strrchr(parent, '/');
  if (slash == parent) slash[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(parent, sizeof parent, ".");
  if (stat(parent, &st) || !S_ISDIR(st.st_mode) || access(parent, W_OK))
    return coil_err("--save %s: cannot create the directory (%s is not a writable directory)", dir, parent);
  return NULL;
}

/* Refuse before allocating what the machine cannot hold (with overcommit a
 * huge malloc succeeds and the process dies later). */
static CoilErr *check_memory(const Program *p) {
  double bytes = 0;
  for (int i = 0; i < p->nbufs; i++) bytes += (double)p->bufs[i].numel * dtype_size(p->bufs[i].dtype);
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys > 0 && bytes > phys)
    return coil_err("the tensors need %.1f GB but this machine has %.1f GB of memory", bytes / 1e9, phys / 1e9);
  return NULL;
}

CoilErr *run_command(const CompileOptions *co, const RunOptions *ro, int *status) {
  Compiled c;
  *status = 0;
  if (ro->save_dir) {
    CoilErr *se = check_save_dir(ro->save_dir);
    if (se) return se;
  }
  CoilErr *e = compile_source(co, &c);
  if (!e) e = check_memory(&c.program);
  if (e) { compiled_free(&c); return e; }
  Tensors t = {0};
  if ((e = run_make_inputs(&c, ro, &t))) goto done;
  /* Outputs start as NaN, so an element the kernels never write fails. */
  for (int i = 0; i < c.program.nbufs; i++)
    if (c.program.bufs[i].kind != BUF_INPUT) memset(t.bufs[i], 0xff, (size_t)c.program.bufs[i].numel * dtype_size(c.program.bufs[i].dtype));
  double kernel_ms;
  if ((e = c.target->run(&c, t.bufs, &kernel_ms))) goto done;

  const Graph *g = &c.graph;
  void **inputs = calloc((size_t)g->ninputs + 1, sizeof(void *));
  for (int i = 0; i < c.program.nbufs; i++)
    if (c.program.bufs[i].kind == BUF_INPUT) inputs[c.program.bufs[i].index] = t.bufs[i];
  RV **ref = calloc((size_t)g->noutputs, sizeof(RV *)), **ref64 = calloc((size_t)g->noutputs, sizeof(RV *));
  double r0 = coil_now_ms();
  RefCasts casts = c.target->casts;
  /* An index out of range stopped the kernels already; here it is a
   * check the kernels missed, reported as the reference's error. */
  if ((e = ref_run(g, inputs, false, casts, ref))) {
    free(ref); free(ref64); free(inputs);
    goto done;
  }
  /* Without a floating-point value anywhere, float64 mode is the same run. */
  bool any_float = false;
  for (int i = 0; i < g->nnodes; i++) any_float |= dtype_is_float(g->nodes[i]->dtype);
  if (any_float) (void)ref_run(g, inputs, true, casts, ref64); /* the same indices: the same verdict */
  else
    for (int k = 0; k < g->noutputs; k++) {
      int64_t n = shape_numel(g->outputs[k]->ndim, g->outputs[k]->shape);
      size_t bytes = sizeof(RV) * (size_t)(n ? n : 1); /* as ref_run allocates */
      ref64[k] = malloc(bytes);
      memcpy(ref64[k], ref[k], bytes);
    }
  double ref_ms = coil_now_ms() - r0;
  int64_t *memo = calloc((size_t)g->nnodes, sizeof(int64_t));

  if (!ro->quiet) describe(&c);
  bool all_ok = true;
  for (int k = 0; k < g->noutputs; k++) {
    int bi = -1;
    for (int i = 0; i < c.program.nbufs; i++)
      if (c.program.bufs[i].kind == BUF_OUTPUT && c.program.bufs[i].index == k) bi = i;
    const Buffer *b = &c.program.bufs[bi];
    const void *data = t.bufs[bi];
    const char *nm = g->noutputs == 1 ? "out" : arena_printf(&c.arena, "out%d", k);
    StrBuf sh = {0};
    for (int d = 0; d < b->ndim; d++) sb_printf(&sh, "%lld%s", (long long)b->shape[d], b->ndim == 1 ? "," : d + 1 < b->ndim ? ", " : "");
    double rtol, atol;
    default_tolerance(b->dtype, &rtol, &atol);
    int64_t rlen = reduction_length(b->node, memo);
    atol *= sqrt((double)rlen);
    if (ro->has_rtol) rtol = ro->rtol;
    if (ro->has_atol) atol = ro->atol;
    CheckStats cs;
    check_output(b, data, ref[k], ref64[k], rtol, atol, ro->equal_nan, false, &cs);
    int64_t bad = cs.bad, first = cs.first;
    double max_abs = cs.max_abs, max_rel = cs.max_rel;
    bool fl = dtype_is_float(b->dtype);
    if (!ro->quiet) {
      printf("%s.shape=(%s) dtype=%s\n", nm, sh.data ? sh.data : "", dtype_name(b->dtype));
      int64_t n8 = b->numel < 8 ? b->numel : 8;
      printf("%s[:8]=[", nm);
      for (int64_t i = 0; i < n8; i++) {
        if (fl) printf("%s%.6g", i ? ", " : "", load_value(b->dtype, data, i));
        else if (b->dtype == DT_I64) printf("%s%lld", i ? ", " : "", (long long)((const int64_t *)data)[i]);
        else if (b->dtype == DT_BOOL) printf("%s%s", i ? ", " : "", ((const uint8_t *)data)[i] ? "True" : "False");
        else printf("%s%d", i ? ", " : "", ((const int32_t *)data)[i]);
      }
      printf("%s]\n", b->numel > 8 ? ", ..." : "");
      if (fl)
        printf("max abs err %.3g, max rel err %.3g where |ref| > atol, vs float64 (rtol=%.3g, atol=%.3g)\n", max_abs, max_rel, rtol,
               atol);
      else printf("max abs err %.3g vs float64 (exact match required)\n", max_abs);
    }
    if (bad) {
      all_ok = false;
      double got = load_value(b->dtype, data, first);
      printf("%s: %lld of %lld elements differ from the reference; first at flat index %lld: got %.9g, expected %.9g\n", nm,
             (long long)bad, (long long)b->numel, (long long)first, got, fl ? ref[k][first].f : (double)ref[k][first].i);
    }
    sb_free(&sh);
  }
  if (!ro->quiet)
    printf("compile %.1f ms (%s), kernels %.1f ms, reference %.0f ms\n", c.compile_ms + c.build_ms, c.built, kernel_ms, ref_ms);
  printf("check=%s\n", all_ok ? "passed" : "FAILED");
  *status = all_ok ? 0 : 1;
  if (ro->save_dir) e = save_all(&c, ro, &t);
  for (int k = 0; k < g->noutputs; k++) { free(ref[k]); free(ref64[k]); }
  free(ref); free(ref64); free(inputs); free(memo);
done:
  tensors_free(&t);
  compiled_free(&c);
  return e;
}

double run_load_value(DType t, const void *base, int64_t i) { return load_value(t, base, i); }
