/* The public API (include/coil.h) over the pipeline and the targets.
 *
 * A graph built node by node is kept as a program in coil's Python subset,
 * one line per node, and compiled by the same front end as a file: the op
 * table (graph.c's spellings) and its builders are the only semantics
 * there are, and an error in a node points at its line, which shows the
 * node's origin as a comment. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/coil.h"
#include "api/api.h"
#include "triton/triton.h"

/* DLPack 0.6 (Debian 12's libdlpack-dev) predates kDLBool; PyTorch
 * exports bool tensors with this code, as DLPack 0.8 defines it. */
enum { COIL_DL_BOOL = 6 };

struct coil_error {
  coil_status status;
  char *msg;
};

static coil_status fail(coil_error **err, coil_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static coil_status fail(coil_error **err, coil_status st, const char *fmt, ...) {
  if (!err) return st;
  coil_error *e = calloc(1, sizeof *e);
  if (!e) { *err = NULL; return st; }
  e->status = st;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&e->msg, fmt, ap) < 0) e->msg = NULL;
  va_end(ap);
  *err = e;
  return st;
}

/* A CoilErr from the library below becomes a coil_error (and is freed). */
static coil_status fail_with(coil_error **err, coil_status st, CoilErr *e) {
  coil_status r = fail(err, st, "%s", e && e->msg ? e->msg : "unknown error");
  coil_err_free(e);
  return r;
}

const char *coil_error_message(const coil_error *e) { return e && e->msg ? e->msg : "out of memory"; }
coil_status coil_error_status(const coil_error *e) { return e ? e->status : COIL_ERROR_SYSTEM; }
void coil_error_free(coil_error *e) {
  if (!e) return;
  free(e->msg);
  free(e);
}

/* ------------------------------------------------------------ dtypes */

static bool dtype_from_dl(DLDataType d, DType *out) {
  if (d.lanes != 1) return false;
  switch (d.code) {
  case kDLFloat:
    if (d.bits == 16) { *out = DT_F16; return true; }
    if (d.bits == 32) { *out = DT_F32; return true; }
    if (d.bits == 64) { *out = DT_F64; return true; }
    return false;
  case kDLBfloat:
    if (d.bits == 16) { *out = DT_BF16; return true; }
    return false;
  case kDLInt:
    if (d.bits == 32) { *out = DT_I32; return true; }
    if (d.bits == 64) { *out = DT_I64; return true; }
    return false;
  case COIL_DL_BOOL:
    if (d.bits == 8) { *out = DT_BOOL; return true; }
    return false;
  default:
    return false;
  }
}

static DLDataType dtype_to_dl(DType t) {
  switch (t) {
  case DT_BOOL: return (DLDataType){COIL_DL_BOOL, 8, 1};
  case DT_I32: return (DLDataType){kDLInt, 32, 1};
  case DT_I64: return (DLDataType){kDLInt, 64, 1};
  case DT_F16: return (DLDataType){kDLFloat, 16, 1};
  case DT_BF16: return (DLDataType){kDLBfloat, 16, 1};
  case DT_F32: return (DLDataType){kDLFloat, 32, 1};
  case DT_F64: return (DLDataType){kDLFloat, 64, 1};
  default: coil_unreachable("dtype_to_dl: no such dtype");
  }
}

static void dl_str(char *out, size_t n, DLDataType d) {
  static const char *const codes[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  snprintf(out, n, "%s%u%s", d.code < 7 ? codes[d.code] : "code?", d.bits, d.lanes == 1 ? "" : "xN");
}

/* ------------------------------------------------------------ programs */

struct coil_program {
  Compiled c;
  StrBuf dump;
  pthread_mutex_t build_lock; /* the first run builds the target's code */
  bool built;
  int64_t (*in_strides)[COIL_MAX_DIMS];  /* per input: compiled strides */
  int64_t (*out_strides)[COIL_MAX_DIMS]; /* per output: contiguous */
  int *in_buf, *out_buf;                 /* per input, output: its Program buffer */
};

static coil_status compile_text(const char *file, const char *text, const coil_options *opts, coil_program **out,
                                coil_error **err) {
  if (!out) return fail(err, COIL_ERROR_USAGE, "coil_compile: out is NULL");
  *out = NULL;
  if (err) *err = NULL;
  if (!text) return fail(err, COIL_ERROR_USAGE, "coil_compile: no source text");
  coil_options def = {0};
  if (!opts) opts = &def;
  const Target *t = target_find(opts->target ? opts->target : "c");
  if (!t) return fail(err, COIL_ERROR_USAGE, "unknown target '%s' (targets: %s)", opts->target, target_names());
  coil_program *p = calloc(1, sizeof *p);
  if (!p) return fail(err, COIL_ERROR_SYSTEM, "out of memory");
  if (opts->nargs < 0 || (opts->nargs && !opts->args)) {
    free(p);
    return fail(err, COIL_ERROR_USAGE, "coil_options: nargs %d without args", opts->nargs);
  }
  ArgOverride *over = calloc((size_t)opts->nargs + 1, sizeof *over);
  char **names = calloc((size_t)opts->nargs + 1, sizeof *names);
  for (int i = 0; over && names && i < opts->nargs; i++) {
    const char *eq = opts->args[i] ? strchr(opts->args[i], '=') : NULL;
    if (!eq || eq == opts->args[i]) {
      for (int j = 0; j < i; j++) free(names[j]);
      free(over), free(names), free(p);
      return fail(err, COIL_ERROR_USAGE, "coil_options.args[%d]: '%s' is not NAME=DTYPE[d0, ...]", i,
                  opts->args[i] ? opts->args[i] : "(null)");
    }
    names[i] = strndup(opts->args[i], (size_t)(eq - opts->args[i]));
    over[i] = (ArgOverride){names[i], eq + 1};
  }
  CompileOptions co = {.file = file ? file : "<source>", .text = text, .fn = opts->fn, .args = over,
                       .nargs = opts->nargs, .target = t, .dump = opts->dump, .dump_out = opts->dump ? &p->dump : NULL};
  TritonOptions topt;
  if (opts->autotune && t == &triton_gpu_target) {
    triton_options_default(&topt);
    topt.autotune = true;
    co.target_options = &topt;
  }
  CoilErr *e = over && names ? compile_source(&co, &p->c) : coil_err("out of memory");
  for (int i = 0; names && i < opts->nargs; i++) free(names[i]);
  free(over), free(names);
  if (e) {
    compiled_free(&p->c);
    sb_free(&p->dump);
    free(p);
    return fail_with(err, COIL_ERROR_PROGRAM, e);
  }
  const Graph *g = &p->c.graph;
  const Program *pr = &p->c.program;
  Arena *a = &p->c.arena;
  p->in_strides = arena_alloc(a, sizeof *p->in_strides * (size_t)(g->ninputs + 1));
  p->out_strides = arena_alloc(a, sizeof *p->out_strides * (size_t)(g->noutputs + 1));
  p->in_buf = ARENA_ARRAY(a, int, g->ninputs + 1);
  p->out_buf = ARENA_ARRAY(a, int, g->noutputs + 1);
  for (int i = 0; i < g->ninputs; i++) {
    const InputSpec *s = &g->inputs[i];
    memcpy(p->in_strides[i], s->stride, sizeof(int64_t) * (size_t)s->ndim);
    p->in_buf[i] = -1;
  }
  for (int k = 0; k < g->noutputs; k++) contiguous_strides(g->outputs[k]->ndim, g->outputs[k]->shape, p->out_strides[k]);
  for (int b = 0; b < pr->nbufs; b++) {
    if (pr->bufs[b].kind == BUF_INPUT) p->in_buf[pr->bufs[b].index] = b;
    if (pr->bufs[b].kind == BUF_OUTPUT) p->out_buf[pr->bufs[b].index] = b;
  }
  pthread_mutex_init(&p->build_lock, NULL);
  *out = p;
  return COIL_OK;
}

coil_status coil_compile_source(const char *file, const char *text, const coil_options *opts, coil_program **out,
                                coil_error **err) {
  return compile_text(file, text, opts, out, err);
}

int coil_program_num_inputs(const coil_program *p) { return p ? p->c.graph.ninputs : 0; }
int coil_program_num_outputs(const coil_program *p) { return p ? p->c.graph.noutputs : 0; }
int coil_program_num_kernels(const coil_program *p) { return p ? p->c.planned->nkernels : 0; }
const char *coil_program_code(const coil_program *p) { return p && p->c.code.data ? p->c.code.data : ""; }
const char *coil_program_dump(const coil_program *p) { return p && p->dump.data ? p->dump.data : ""; }
double coil_program_compile_ms(const coil_program *p) { return p ? p->c.compile_ms : 0; }

coil_status coil_program_input(const coil_program *p, int i, coil_tensor_info *info) {
  if (!p || !info || i < 0 || i >= p->c.graph.ninputs) return COIL_ERROR_USAGE;
  const InputSpec *s = &p->c.graph.inputs[i];
  *info = (coil_tensor_info){s->name, dtype_to_dl(s->dtype), s->ndim, s->shape, p->in_strides[i]};
  return COIL_OK;
}

coil_status coil_program_output(const coil_program *p, int i, coil_tensor_info *info) {
  if (!p || !info || i < 0 || i >= p->c.graph.noutputs) return COIL_ERROR_USAGE;
  const GNode *n = p->c.graph.outputs[i];
  *info = (coil_tensor_info){p->c.program.bufs[p->out_buf[i]].name, dtype_to_dl(n->dtype), n->ndim, n->shape,
                             p->out_strides[i]};
  return COIL_OK;
}

/* A tensor the caller hands over must be what was compiled: the same
 * dtype, shape and (where a dim has more than one element) strides. */
static coil_status check_tensor(coil_error **err, const char *what, int i, const char *name, const DLTensor *t,
                                DType want, int ndim, const int64_t *shape, const int64_t *strides) {
  char got[32], exp[32];
  DType dt;
  if (!t->data && shape_numel(ndim, shape) > 0)
    return fail(err, COIL_ERROR_TENSOR, "%s %d (%s): no data", what, i, name);
  if (t->device.device_type != kDLCPU)
    return fail(err, COIL_ERROR_TENSOR, "%s %d (%s): device type %d; coil_run takes host memory (kDLCPU)", what, i,
                name, (int)t->device.device_type);
  if (!dtype_from_dl(t->dtype, &dt) || dt != want) {
    dl_str(got, sizeof got, t->dtype);
    dl_str(exp, sizeof exp, dtype_to_dl(want));
    return fail(err, COIL_ERROR_TENSOR, "%s %d (%s): dtype %s, compiled for %s", what, i, name, got, exp);
  }
  bool same = t->ndim == ndim;
  for (int d = 0; same && d < ndim; d++) same = t->shape[d] == shape[d];
  if (!same) {
    StrBuf a = {0}, b = {0};
    shape_str(&a, t->ndim > 0 && t->ndim <= 64 ? t->ndim : 0, t->shape);
    shape_str(&b, ndim, shape);
    coil_status st = fail(err, COIL_ERROR_TENSOR, "%s %d (%s): shape %s%s, compiled for %s", what, i, name,
                          a.data ? a.data : "[]", t->ndim > 64 ? " (ndim out of range)" : "", b.data ? b.data : "[]");
    sb_free(&a);
    sb_free(&b);
    return st;
  }
  /* An empty tensor's strides mean nothing: there is no element to read. */
  if (shape_numel(ndim, shape) == 0) return COIL_OK;
  if (t->strides)
    for (int d = 0; d < ndim; d++)
      if (shape[d] > 1 && t->strides[d] != strides[d])
        return fail(err, COIL_ERROR_TENSOR, "%s %d (%s): stride %lld in dim %d, compiled for %lld", what, i, name,
                    (long long)t->strides[d], d, (long long)strides[d]);
  if (!t->strides)
    for (int d = 0; d < ndim; d++) {
      int64_t c[COIL_MAX_DIMS];
      contiguous_strides(ndim, shape, c);
      if (shape[d] > 1 && c[d] != strides[d])
        return fail(err, COIL_ERROR_TENSOR, "%s %d (%s): contiguous, compiled for strides with %lld in dim %d", what,
                    i, name, (long long)strides[d], d);
    }
  return COIL_OK;
}

coil_status coil_run(coil_program *p, int ninputs, const DLTensor *inputs, int noutputs, const DLTensor *outputs,
                     coil_error **err) {
  if (err) *err = NULL;
  if (!p) return fail(err, COIL_ERROR_USAGE, "coil_run: no program");
  const Graph *g = &p->c.graph;
  const Program *pr = &p->c.program;
  if (ninputs != g->ninputs)
    return fail(err, COIL_ERROR_TENSOR, "%s takes %d input%s, got %d", g->fn_name, g->ninputs,
                g->ninputs == 1 ? "" : "s", ninputs);
  if (noutputs != g->noutputs)
    return fail(err, COIL_ERROR_TENSOR, "%s returns %d output%s, got %d to fill", g->fn_name, g->noutputs,
                g->noutputs == 1 ? "" : "s", noutputs);
  if ((ninputs && !inputs) || (noutputs && !outputs)) return fail(err, COIL_ERROR_USAGE, "coil_run: tensors are NULL");
  coil_status st;
  for (int i = 0; i < ninputs; i++) {
    const InputSpec *s = &g->inputs[i];
    if ((st = check_tensor(err, "input", i, s->name, &inputs[i], s->dtype, s->ndim, s->shape, p->in_strides[i])))
      return st;
  }
  for (int k = 0; k < noutputs; k++) {
    const GNode *n = g->outputs[k];
    if ((st = check_tensor(err, "output", k, pr->bufs[p->out_buf[k]].name, &outputs[k], n->dtype, n->ndim, n->shape,
                           p->out_strides[k])))
      return st;
  }

  /* A small program's buffer table lives on the stack: a run of a tiny
   * graph is a few hundred nanoseconds, and an allocation was part of it. */
  void *stack_bufs[32], **bufs = stack_bufs;
  if (pr->nbufs > 32) bufs = calloc((size_t)pr->nbufs + 1, sizeof *bufs);
  else memset(stack_bufs, 0, sizeof stack_bufs);
  if (!bufs) return fail(err, COIL_ERROR_SYSTEM, "out of memory");
  st = COIL_OK;
  for (int b = 0; b < pr->nbufs && !st; b++) {
    const Buffer *buf = &pr->bufs[b];
    if (buf->kind == BUF_TEMP) {
      /* Never 0 bytes: a NULL buffer would read as a failed allocation. */
      size_t bytes = (size_t)buf->numel * (size_t)dtype_size(buf->dtype);
      if (!(bufs[b] = malloc(bytes ? bytes : 1))) st = fail(err, COIL_ERROR_SYSTEM, "out of memory (%zu bytes)", bytes);
    }
  }
  for (int i = 0; i < ninputs; i++)
    if (p->in_buf[i] >= 0) bufs[p->in_buf[i]] = (char *)inputs[i].data + inputs[i].byte_offset;
  for (int k = 0; k < noutputs; k++) bufs[p->out_buf[k]] = (char *)outputs[k].data + outputs[k].byte_offset;

  if (!st) {
    /* The first run builds; the others wait for it, then run at once (a
     * program built already runs without taking the lock). */
    CoilErr *e = NULL;
    bool first = false;
    if (!__atomic_load_n(&p->built, __ATOMIC_ACQUIRE)) {
      pthread_mutex_lock(&p->build_lock);
      first = !p->built;
      if (first) {
        e = p->c.target->run(&p->c, bufs, NULL);
        __atomic_store_n(&p->built, !e, __ATOMIC_RELEASE);
      }
      pthread_mutex_unlock(&p->build_lock);
    }
    if (!first) e = p->c.target->run(&p->c, bufs, NULL);
    if (e) st = fail_with(err, e->index ? COIL_ERROR_INDEX : COIL_ERROR_SYSTEM, e);
  }
  for (int b = 0; b < pr->nbufs; b++)
    if (pr->bufs[b].kind == BUF_TEMP) free(bufs[b]);
  if (bufs != stack_bufs) free(bufs);
  return st;
}

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (coil_program *const *)a, y = (uintptr_t) * (coil_program *const *)b;
  return (x > y) - (x < y);
}

coil_status coil_build(coil_program *const *programs, int n, coil_error **err) {
  if (err) *err = NULL;
  if (n < 0 || (n && !programs)) return fail(err, COIL_ERROR_USAGE, "coil_build: no programs");
  coil_program **ps = calloc((size_t)n + 1, sizeof *ps);
  Compiled **cs = calloc((size_t)n + 1, sizeof *cs);
  if (!ps || !cs) {
    free(ps), free(cs);
    return fail(err, COIL_ERROR_SYSTEM, "out of memory");
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (programs[i]) ps[m++] = programs[i];
  /* Each program's lock, in address order, so that two builds of
   * overlapping sets cannot wait for each other. */
  qsort(ps, (size_t)m, sizeof *ps, by_address);
  int k = 0;
  for (int i = 0; i < m; i++)
    if (!i || ps[i] != ps[i - 1]) ps[k++] = ps[i];
  for (int i = 0; i < k; i++) pthread_mutex_lock(&ps[i]->build_lock);
  coil_status st = COIL_OK;
  /* One call per target, with its programs not built yet. */
  for (int i = 0; i < k && !st; i++) {
    const Target *t = ps[i]->c.target;
    if (!t->build || ps[i]->built) continue;
    int nc = 0;
    for (int j = i; j < k; j++)
      if (ps[j]->c.target == t && !ps[j]->built) cs[nc++] = &ps[j]->c;
    CoilErr *e = t->build(cs, nc);
    if (e) st = fail_with(err, COIL_ERROR_SYSTEM, e);
    for (int j = i; j < k && !st; j++)
      if (ps[j]->c.target == t) __atomic_store_n(&ps[j]->built, true, __ATOMIC_RELEASE);
  }
  for (int i = k - 1; i >= 0; i--) pthread_mutex_unlock(&ps[i]->build_lock);
  free(ps);
  free(cs);
  return st;
}

void coil_program_free(coil_program *p) {
  if (!p) return;
  pthread_mutex_destroy(&p->build_lock);
  compiled_free(&p->c);
  sb_free(&p->dump);
  free(p);
}

void coil_set_num_threads(int n) {
  if (n > 0) omp_set_num_threads(n);
}

/* ------------------------------------------------------------ graphs */

/* Each value is a name in the program's text: parameters by their names,
 * nodes v0, v1, ... */
struct coil_graph {
  char *name;
  StrBuf params; /* "x: \"f32[2, 3]\", ..." */
  StrBuf body;   /* one indented line per node */
  StrBuf source; /* the whole program, rebuilt by coil_graph_source() */
  char **names;  /* per value */
  int nvalues, cap;
  int nparams;
  int noutputs;
  StrBuf ret;
};

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (const char *c = s; *c; c++)
    if (!(isalnum((unsigned char)*c) || *c == '_')) return false;
  return true;
}

/* Python's keywords and the module names the program's header binds
 * cannot name a value. */
static bool reserved(const char *s) {
  static const char *const words[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "break",
                                      "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
                                      "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
                                      "pass", "raise", "return", "try", "while", "with", "yield", "torch", "F", "math",
                                      "aten", "prims"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (!strcmp(words[i], s)) return true;
  return false;
}

coil_graph *coil_graph_new(const char *name) {
  if (!is_identifier(name) || reserved(name)) return NULL;
  coil_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->name = strdup(name);
  return g;
}

void coil_graph_free(coil_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->nvalues; i++) free(g->names[i]);
  free(g->names);
  free(g->name);
  sb_free(&g->params);
  sb_free(&g->body);
  sb_free(&g->source);
  sb_free(&g->ret);
  free(g);
}

static coil_value add_value(coil_graph *g, const char *name) {
  if (g->nvalues == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    char **n = realloc(g->names, sizeof *n * (size_t)cap);
    if (!n) return -1;
    g->names = n;
    g->cap = cap;
  }
  char *copy = name ? strdup(name) : NULL;
  if (!name) {
    char buf[32];
    snprintf(buf, sizeof buf, "v%d", g->nvalues);
    copy = strdup(buf);
  }
  if (!copy) return -1;
  g->names[g->nvalues] = copy;
  return g->nvalues++;
}

static bool valid_value(const coil_graph *g, coil_value v) { return v >= 0 && v < g->nvalues; }

coil_status coil_graph_input(coil_graph *g, const char *name, DLDataType dtype, int ndim, const int64_t *shape,
                             const int64_t *strides, coil_value *out, coil_error **err) {
  if (err) *err = NULL;
  if (!g || !out || (ndim && !shape)) return fail(err, COIL_ERROR_USAGE, "coil_graph_input: NULL argument");
  if (g->nvalues != g->nparams)
    return fail(err, COIL_ERROR_USAGE, "coil_graph_input: parameters come before the first node");
  if (!is_identifier(name) || reserved(name))
    return fail(err, COIL_ERROR_USAGE, "coil_graph_input: '%s' is not a name a parameter can have", name ? name : "");
  bool taken = name[0] == 'v' && name[1] && strspn(name + 1, "0123456789") == strlen(name + 1);
  for (int i = 0; i < g->nvalues; i++) taken |= !strcmp(g->names[i], name);
  if (taken) return fail(err, COIL_ERROR_USAGE, "coil_graph_input: '%s' is taken (v0, v1... name the nodes)", name);
  DType dt;
  if (!dtype_from_dl(dtype, &dt)) {
    char s[32];
    dl_str(s, sizeof s, dtype);
    return fail(err, COIL_ERROR_PROGRAM, "parameter %s: dtype %s is not one coil compiles (bool, int32, int64, "
                "float16, bfloat16, float32, float64)", name, s);
  }
  if (ndim < 0 || ndim > COIL_MAX_DIMS)
    return fail(err, COIL_ERROR_PROGRAM, "parameter %s: %d dims; coil takes 0 to %d", name, ndim, COIL_MAX_DIMS);
  for (int d = 0; d < ndim; d++)
    if (shape[d] < 0 || (strides && strides[d] < 0))
      return fail(err, COIL_ERROR_PROGRAM, "parameter %s: dim %d has size %lld, stride %lld", name, d,
                  (long long)shape[d], strides ? (long long)strides[d] : 0LL);
  StrBuf *s = &g->params;
  sb_printf(s, "%s%s: \"%s[", g->nparams ? ", " : "", name, dtype_name(dt));
  for (int d = 0; d < ndim; d++) sb_printf(s, "%s%lld", d ? ", " : "", (long long)shape[d]);
  sb_putc(s, ']');
  if (strides) {
    int64_t c[COIL_MAX_DIMS];
    contiguous_strides(ndim, shape, c);
    bool contiguous = true;
    for (int d = 0; d < ndim; d++) contiguous &= shape[d] <= 1 || strides[d] == c[d];
    if (!contiguous) {
      sb_puts(s, " stride(");
      for (int d = 0; d < ndim; d++) sb_printf(s, "%s%lld", d ? ", " : "", (long long)strides[d]);
      sb_putc(s, ')');
    }
  }
  sb_putc(s, '"');
  coil_value v = add_value(g, name);
  if (v < 0) return fail(err, COIL_ERROR_SYSTEM, "out of memory");
  g->nparams++;
  *out = v;
  return COIL_OK;
}

static void put_float(StrBuf *s, double f) {
  if (isnan(f)) sb_puts(s, "float(\"nan\")");
  else if (isinf(f)) sb_puts(s, f > 0 ? "float(\"inf\")" : "float(\"-inf\")");
  else {
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", f);
    sb_puts(s, buf);
    if (!strpbrk(buf, ".e")) sb_puts(s, ".0");
  }
}

static coil_status put_arg(coil_graph *g, StrBuf *s, const coil_arg *a, coil_error **err) {
  DType dt;
  switch (a->kind) {
  case COIL_ARG_VALUE:
    if (!valid_value(g, a->value)) return fail(err, COIL_ERROR_USAGE, "coil_graph_call: value %d is not of this graph", a->value);
    sb_puts(s, g->names[a->value]);
    return COIL_OK;
  case COIL_ARG_INT: sb_printf(s, "%lld", (long long)a->i); return COIL_OK;
  case COIL_ARG_FLOAT: put_float(s, a->f); return COIL_OK;
  case COIL_ARG_BOOL: sb_puts(s, a->i ? "True" : "False"); return COIL_OK;
  case COIL_ARG_NONE: sb_puts(s, "None"); return COIL_OK;
  case COIL_ARG_DTYPE:
    if (!dtype_from_dl(a->dtype, &dt)) {
      char b[32];
      dl_str(b, sizeof b, a->dtype);
      return fail(err, COIL_ERROR_PROGRAM, "dtype %s is not one coil compiles", b);
    }
    sb_printf(s, "torch.%s", dtype_torch_name(dt));
    return COIL_OK;
  case COIL_ARG_STRING:
    if (!a->s) return fail(err, COIL_ERROR_USAGE, "coil_graph_call: NULL string");
    sb_putc(s, '"');
    for (const char *c = a->s; *c; c++) {
      if ((unsigned char)*c < 0x20 || *c == 0x7f)
        return fail(err, COIL_ERROR_PROGRAM, "a string argument holds a control character");
      if (*c == '"' || *c == '\\') sb_putc(s, '\\');
      sb_putc(s, *c);
    }
    sb_putc(s, '"');
    return COIL_OK;
  case COIL_ARG_INTS:
    if (a->ints.n < 0 || (a->ints.n && !a->ints.data)) return fail(err, COIL_ERROR_USAGE, "coil_graph_call: bad int list");
    sb_putc(s, '[');
    for (int i = 0; i < a->ints.n; i++) sb_printf(s, "%s%lld", i ? ", " : "", (long long)a->ints.data[i]);
    sb_putc(s, ']');
    return COIL_OK;
  case COIL_ARG_VALUES:
    if (a->values.n < 0 || (a->values.n && !a->values.data))
      return fail(err, COIL_ERROR_USAGE, "coil_graph_call: bad value list");
    sb_putc(s, '[');
    for (int i = 0; i < a->values.n; i++) {
      if (a->values.data[i] == COIL_NO_VALUE) { /* None in a Tensor?[] list (aten.index's indices) */
        sb_printf(s, "%sNone", i ? ", " : "");
        continue;
      }
      if (!valid_value(g, a->values.data[i]))
        return fail(err, COIL_ERROR_USAGE, "coil_graph_call: value %d is not of this graph", a->values.data[i]);
      sb_printf(s, "%s%s", i ? ", " : "", g->names[a->values.data[i]]);
    }
    sb_putc(s, ']');
    return COIL_OK;
  }
  return fail(err, COIL_ERROR_USAGE, "coil_graph_call: unknown argument kind %d", (int)a->kind);
}

/* How op is written as a call: "Tensor.NAME" is a method of args[0]. */
typedef struct OpForm {
  unsigned form;
  const char *name;   /* the table's row name */
  bool method;
} OpForm;

static bool op_form(const char *op, OpForm *f) {
  static const struct { const char *prefix; unsigned form; } prefixes[] = {
      {"torch.linalg.", SP_LINALG}, {"torch.nn.functional.", SP_F}, {"torch.ops.aten.", SP_ATEN},
      {"torch.ops.prims.", SP_PRIMS}, {"torch.", SP_TORCH}, {"F.", SP_F}, {"Tensor.", SP_TENSOR},
      {"aten.", SP_ATEN}, {"prims.", SP_PRIMS}};
  if (!op) return false;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
    size_t n = strlen(prefixes[i].prefix);
    if (strncmp(op, prefixes[i].prefix, n)) continue;
    *f = (OpForm){prefixes[i].form, op + n, prefixes[i].form == SP_TENSOR};
    return *f->name != 0;
  }
  return false;
}

/* ATen and prims rows are named by their schema ("add.Tensor(Tensor
 * self, ...)"): an overload matches the text before the parenthesis, and a
 * spelling without its overload ("aten.add") is the packet, as
 * torch.ops.aten.add is: it matches any overload of the op. */
static bool spelling_matches(const SpellingInfo *s, unsigned form, const char *name) {
  if (!(form & (SP_ATEN | SP_PRIMS))) return !strcmp(s->name, name);
  size_t n = strlen(name), full = strcspn(s->name, "(");
  if (n == full && !strncmp(s->name, name, n)) return true;
  return !strchr(name, '.') && !strncmp(s->name, name, n) && s->name[n] == '.';
}

bool coil_has_op(const char *op) {
  OpForm f;
  if (!op_form(op, &f)) return false;
  SpellingInfo s;
  for (int i = 0; graph_spelling(i, &s); i++)
    if ((s.forms & f.form) && spelling_matches(&s, f.form, f.name)) return true;
  return false;
}

coil_status coil_graph_call(coil_graph *g, const char *op, int nargs, const coil_arg *args, int nkw,
                            const char *const *kwnames, const coil_arg *kwargs, const char *origin, coil_value *out,
                            coil_error **err) {
  if (err) *err = NULL;
  if (!g || !out || (nargs && !args) || (nkw && (!kwnames || !kwargs)) || nargs < 0 || nkw < 0)
    return fail(err, COIL_ERROR_USAGE, "coil_graph_call: NULL argument");
  if (g->noutputs) return fail(err, COIL_ERROR_USAGE, "coil_graph_call: the graph's outputs are already set");
  OpForm f;
  if (!op_form(op, &f)) return fail(err, COIL_ERROR_USAGE, "coil_graph_call: '%s' is not a PyTorch spelling coil reads "
                                    "(aten.*, prims.*, torch.*, F.*, torch.linalg.*, Tensor.*)", op ? op : "");
  if (!coil_has_op(op)) return fail(err, COIL_ERROR_PROGRAM, "'%s' is not in coil's subset (coil ops lists it)", op);
  if (f.method && (nargs < 1 || args[0].kind != COIL_ARG_VALUE))
    return fail(err, COIL_ERROR_USAGE, "coil_graph_call: a method (%s) needs its tensor as the first argument", op);
  StrBuf line = {0};
  coil_status st = COIL_OK;
  sb_printf(&line, "    v%d = ", g->nvalues);
  int first = 0;
  if (f.method) {
    st = put_arg(g, &line, &args[0], err);
    sb_printf(&line, ".%s(", f.name);
    first = 1;
  } else {
    sb_printf(&line, "%s(", op);
  }
  for (int i = first; i < nargs && !st; i++) {
    if (i > first) sb_puts(&line, ", ");
    st = put_arg(g, &line, &args[i], err);
  }
  for (int k = 0; k < nkw && !st; k++) {
    if (!is_identifier(kwnames[k])) {
      st = fail(err, COIL_ERROR_USAGE, "coil_graph_call: '%s' is not a keyword", kwnames[k] ? kwnames[k] : "");
      break;
    }
    sb_printf(&line, "%s%s=", nargs > first || k ? ", " : "", kwnames[k]);
    st = put_arg(g, &line, &kwargs[k], err);
  }
  sb_putc(&line, ')');
  if (origin && *origin) {
    sb_puts(&line, "  # ");
    for (const char *c = origin; *c && *c != '\n'; c++) sb_putc(&line, (unsigned char)*c < 0x20 ? ' ' : *c);
  }
  sb_putc(&line, '\n');
  if (!st) {
    coil_value v = add_value(g, NULL);
    if (v < 0) st = fail(err, COIL_ERROR_SYSTEM, "out of memory");
    else {
      sb_puts(&g->body, line.data);
      *out = v;
    }
  }
  sb_free(&line);
  return st;
}

coil_status coil_graph_item(coil_graph *g, coil_value tuple, int index, coil_value *out, coil_error **err) {
  if (err) *err = NULL;
  if (!g || !out || !valid_value(g, tuple) || index < 0) return fail(err, COIL_ERROR_USAGE, "coil_graph_item: bad argument");
  if (g->noutputs) return fail(err, COIL_ERROR_USAGE, "coil_graph_item: the graph's outputs are already set");
  int id = g->nvalues;
  coil_value v = add_value(g, NULL);
  if (v < 0) return fail(err, COIL_ERROR_SYSTEM, "out of memory");
  sb_printf(&g->body, "    v%d = %s[%d]\n", id, g->names[tuple], index);
  *out = v;
  return COIL_OK;
}

coil_status coil_graph_output(coil_graph *g, int n, const coil_value *values, coil_error **err) {
  if (err) *err = NULL;
  if (!g || n < 1 || !values) return fail(err, COIL_ERROR_USAGE, "coil_graph_output: a graph returns at least one value");
  if (g->noutputs) return fail(err, COIL_ERROR_USAGE, "coil_graph_output: the outputs are already set");
  for (int i = 0; i < n; i++)
    if (!valid_value(g, values[i])) return fail(err, COIL_ERROR_USAGE, "coil_graph_output: value %d is not of this graph", values[i]);
  sb_puts(&g->ret, "    return ");
  if (n > 1) sb_putc(&g->ret, '(');
  for (int i = 0; i < n; i++) sb_printf(&g->ret, "%s%s", i ? ", " : "", g->names[values[i]]);
  if (n > 1) sb_putc(&g->ret, ')');
  sb_putc(&g->ret, '\n');
  g->noutputs = n;
  return COIL_OK;
}

const char *coil_graph_source(const coil_graph *cg) {
  if (!cg) return "";
  coil_graph *g = (coil_graph *)cg; /* the text is a cache of the graph */
  StrBuf *s = &g->source;
  s->len = 0;
  if (s->data) s->data[0] = 0;
  sb_puts(s, "import math\n\nimport torch\nimport torch.nn.functional as F\n\naten = torch.ops.aten\n"
             "prims = torch.ops.prims\n\n\n");
  sb_printf(s, "def %s(%s):\n", g->name, g->params.data ? g->params.data : "");
  if (g->body.data) sb_puts(s, g->body.data);
  sb_puts(s, g->ret.data ? g->ret.data : "    pass\n");
  return s->data;
}

coil_status coil_compile_graph(const coil_graph *g, const coil_options *opts, coil_program **out, coil_error **err) {
  if (err) *err = NULL;
  if (!g) return fail(err, COIL_ERROR_USAGE, "coil_compile_graph: no graph");
  if (!g->noutputs) return fail(err, COIL_ERROR_USAGE, "coil_compile_graph: the graph has no outputs (coil_graph_output)");
  coil_options o = opts ? *opts : (coil_options){0};
  o.fn = g->name;
  char file[300];
  snprintf(file, sizeof file, "<graph %s>", g->name);
  return compile_text(file, coil_graph_source(g), &o, out, err);
}
