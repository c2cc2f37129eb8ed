/* The public C API (include/coil.h), used as a program outside coil would:
 * only the public header, linked against libcoil.  Prints "ok api/NAME"
 * or "FAIL api/NAME: ..." per check, for tests/run.sh to count. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv, strdup */
#include <coil.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(name, cond)                                                                        \
  do {                                                                                           \
    if (cond) printf("ok api/%s\n", name);                                                       \
    else { printf("FAIL api/%s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); failures++; }   \
  } while (0)

static const DLDataType F32 = {kDLFloat, 32, 1};
static const DLDataType F64 = {kDLFloat, 64, 1};
static const DLDataType I64 = {kDLInt, 64, 1};

static DLTensor tensor(void *data, DLDataType dt, int ndim, int64_t *shape, int64_t *strides) {
  DLTensor t = {0};
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype = dt;
  t.shape = shape;
  t.strides = strides;
  return t;
}

static bool contains(const char *s, const char *part) { return s && strstr(s, part); }

/* Source text: a row sum and a column max of one input, run on the
 * caller's buffers, against sums computed here. */
static void source_program(const char *target) {
  const char *src = "import torch\n"
                    "def f(x: \"f32[3, 5]\"):\n"
                    "    return x.sum(1), torch.amax(x * 2.0, 0)\n";
  coil_options o = {.target = target, .dump = "graph"};
  coil_program *p = NULL;
  coil_error *err = NULL;
  coil_status st = coil_compile_source("rows.py", src, &o, &p, &err);
  char name[64];
  snprintf(name, sizeof name, "source_compiles_%s", target);
  CHECK(name, st == COIL_OK && p && !err);
  if (st) { printf("  %s\n", coil_error_message(err)); coil_error_free(err); return; }
  coil_tensor_info in, out1;
  snprintf(name, sizeof name, "source_signature_%s", target);
  CHECK(name, coil_program_num_inputs(p) == 1 && coil_program_num_outputs(p) == 2 &&
                  coil_program_input(p, 0, &in) == COIL_OK && in.ndim == 2 && in.shape[0] == 3 &&
                  in.shape[1] == 5 && in.strides[0] == 5 && in.strides[1] == 1 &&
                  coil_program_output(p, 1, &out1) == COIL_OK && out1.ndim == 1 && out1.shape[0] == 5 &&
                  coil_program_output(p, 2, &out1) == COIL_ERROR_USAGE);
  snprintf(name, sizeof name, "source_dump_%s", target);
  CHECK(name, contains(coil_program_dump(p), "=== graph") && strlen(coil_program_code(p)) > 0);

  float x[15], rows[3], cols[5];
  for (int i = 0; i < 15; i++) x[i] = (float)(i % 7) - 2.5f * (float)(i / 5);
  int64_t xs[2] = {3, 5}, rs[1] = {3}, cs[1] = {5};
  DLTensor ins[1] = {tensor(x, F32, 2, xs, NULL)};
  DLTensor outs[2] = {tensor(rows, F32, 1, rs, NULL), tensor(cols, F32, 1, cs, NULL)};
  st = coil_run(p, 1, ins, 2, outs, &err);
  bool ok = st == COIL_OK;
  for (int r = 0; r < 3 && ok; r++) {
    float want = 0;
    for (int c = 0; c < 5; c++) want += x[r * 5 + c];
    ok = fabsf(rows[r] - want) < 1e-5f;
  }
  for (int c = 0; c < 5 && ok; c++) {
    float want = -INFINITY;
    for (int r = 0; r < 3; r++) want = fmaxf(want, 2 * x[r * 5 + c]);
    ok = cols[c] == want;
  }
  snprintf(name, sizeof name, "source_runs_%s", target);
  CHECK(name, ok);
  if (st) { printf("  %s\n", coil_error_message(err)); coil_error_free(err); }

  /* A tensor of another shape, dtype, or count is an error value. */
  int64_t bad[2] = {5, 3};
  DLTensor wrong_shape[1] = {tensor(x, F32, 2, bad, NULL)};
  st = coil_run(p, 1, wrong_shape, 2, outs, &err);
  snprintf(name, sizeof name, "run_wrong_shape_%s", target);
  CHECK(name, st == COIL_ERROR_TENSOR && contains(coil_error_message(err), "shape [5,3], compiled for [3,5]"));
  coil_error_free(err);
  DLTensor wrong_dtype[1] = {tensor(x, F64, 2, xs, NULL)};
  st = coil_run(p, 1, wrong_dtype, 2, outs, &err);
  snprintf(name, sizeof name, "run_wrong_dtype_%s", target);
  CHECK(name, st == COIL_ERROR_TENSOR && contains(coil_error_message(err), "dtype float64, compiled for float32"));
  coil_error_free(err);
  st = coil_run(p, 1, ins, 1, outs, &err);
  snprintf(name, sizeof name, "run_wrong_count_%s", target);
  CHECK(name, st == COIL_ERROR_TENSOR && contains(coil_error_message(err), "returns 2 outputs, got 1"));
  coil_error_free(err);
  int64_t transposed[2] = {1, 3};
  DLTensor wrong_strides[1] = {tensor(x, F32, 2, xs, transposed)};
  st = coil_run(p, 1, wrong_strides, 2, outs, &err);
  snprintf(name, sizeof name, "run_wrong_strides_%s", target);
  CHECK(name, st == COIL_ERROR_TENSOR && contains(coil_error_message(err), "stride 1 in dim 0, compiled for 5"));
  coil_error_free(err);
  coil_program_free(p);
}

/* A program that is not in the subset gives its error as a value, with
 * the position in coil's form. */
static void source_errors(void) {
  coil_program *p = NULL;
  coil_error *err = NULL;
  coil_status st = coil_compile_source("bad.py", "def f(x: \"f32[4]\"):\n    return x.frobnicate()\n", NULL, &p, &err);
  CHECK("source_error_value", st == COIL_ERROR_PROGRAM && !p && coil_error_status(err) == COIL_ERROR_PROGRAM &&
                                  contains(coil_error_message(err), "bad.py:2:") &&
                                  contains(coil_error_message(err), "error:"));
  coil_error_free(err);
  coil_options o = {.target = "vulkan"};
  st = coil_compile_source("t.py", "def f(x: \"f32[4]\"):\n    return x\n", &o, &p, &err);
  CHECK("unknown_target", st == COIL_ERROR_USAGE && contains(coil_error_message(err), "unknown target 'vulkan'"));
  coil_error_free(err);
  st = coil_compile_source("t.py", NULL, NULL, &p, &err);
  CHECK("null_text", st == COIL_ERROR_USAGE);
  coil_error_free(err);
}

/* The graph built node by node: log(sum(exp(x * w), dim 1)) with an int64
 * count, through torch.*, Tensor.* and F.* spellings. */
static coil_program *graph_program(coil_error **err) {
  coil_graph *g = coil_graph_new("logsumexp_rows");
  if (!g) return NULL;
  int64_t xs[2] = {4, 6}, ws[1] = {6};
  coil_value x, w, xw, e, s, l, n, sm;
  coil_program *p = NULL;
  int64_t dims[1] = {1};
  if (coil_graph_input(g, "x", F32, 2, xs, NULL, &x, err) || coil_graph_input(g, "w", F32, 1, ws, NULL, &w, err))
    goto done;
  coil_arg a2[2] = {{.kind = COIL_ARG_VALUE, .value = x}, {.kind = COIL_ARG_VALUE, .value = w}};
  if (coil_graph_call(g, "torch.mul", 2, a2, 0, NULL, NULL, "model.py:3", &xw, err)) goto done;
  coil_arg a1[1] = {{.kind = COIL_ARG_VALUE, .value = xw}};
  if (coil_graph_call(g, "Tensor.exp", 1, a1, 0, NULL, NULL, NULL, &e, err)) goto done;
  coil_arg sum_args[2] = {{.kind = COIL_ARG_VALUE, .value = e}, {.kind = COIL_ARG_INTS, .ints = {dims, 1}}};
  const char *kw[1] = {"keepdim"};
  coil_arg kwv[1] = {{.kind = COIL_ARG_BOOL, .i = 0}};
  if (coil_graph_call(g, "torch.sum", 2, sum_args, 1, kw, kwv, NULL, &s, err)) goto done;
  coil_arg la[1] = {{.kind = COIL_ARG_VALUE, .value = s}};
  if (coil_graph_call(g, "torch.log", 1, la, 0, NULL, NULL, NULL, &l, err)) goto done;
  coil_arg na[2] = {{.kind = COIL_ARG_VALUE, .value = x}, {.kind = COIL_ARG_FLOAT, .f = 0.5}};
  if (coil_graph_call(g, "torch.gt", 2, na, 0, NULL, NULL, NULL, &n, err)) goto done;
  coil_arg ca[2] = {{.kind = COIL_ARG_VALUE, .value = n}, {.kind = COIL_ARG_INT, .i = 1}};
  if (coil_graph_call(g, "torch.count_nonzero", 2, ca, 0, NULL, NULL, NULL, &n, err)) goto done;
  coil_arg sma[1] = {{.kind = COIL_ARG_VALUE, .value = xw}};
  const char *smk[1] = {"dim"};
  coil_arg smv[1] = {{.kind = COIL_ARG_INT, .i = -1}};
  if (coil_graph_call(g, "F.softmax", 1, sma, 1, smk, smv, NULL, &sm, err)) goto done;
  coil_value outs[3] = {l, n, sm};
  if (coil_graph_output(g, 3, outs, err)) goto done;
  coil_compile_graph(g, NULL, &p, err);
done:
  coil_graph_free(g);
  return p;
}

static bool graph_results_ok(coil_program *p, unsigned seed) {
  float x[24], w[6], lse[4], sm[24];
  int64_t cnt[4];
  for (int i = 0; i < 24; i++) x[i] = (float)((i * 7 + seed) % 11) / 5.0f - 1.0f;
  for (int i = 0; i < 6; i++) w[i] = 0.25f * (float)(i + 1);
  int64_t xs[2] = {4, 6}, ws[1] = {6}, rs[1] = {4};
  DLTensor ins[2] = {tensor(x, F32, 2, xs, NULL), tensor(w, F32, 1, ws, NULL)};
  DLTensor outs[3] = {tensor(lse, F32, 1, rs, NULL), tensor(cnt, I64, 1, rs, NULL), tensor(sm, F32, 2, xs, NULL)};
  coil_error *err = NULL;
  if (coil_run(p, 2, ins, 3, outs, &err)) {
    printf("  %s\n", coil_error_message(err));
    coil_error_free(err);
    return false;
  }
  for (int r = 0; r < 4; r++) {
    double s = 0, mx = -INFINITY;
    int64_t c = 0;
    for (int j = 0; j < 6; j++) {
      s += exp((double)x[r * 6 + j] * w[j]);
      mx = fmax(mx, (double)x[r * 6 + j] * w[j]);
      c += x[r * 6 + j] > 0.5f;
    }
    if (fabs(lse[r] - log(s)) > 1e-5 || cnt[r] != c) return false;
    for (int j = 0; j < 6; j++)
      if (fabs(sm[r * 6 + j] - exp((double)x[r * 6 + j] * w[j]) / s) > 1e-6) return false;
  }
  return true;
}

static void graph_builder(void) {
  coil_error *err = NULL;
  coil_program *p = graph_program(&err);
  CHECK("graph_compiles", p != NULL);
  if (!p) { printf("  %s\n", coil_error_message(err)); coil_error_free(err); return; }
  CHECK("graph_runs", graph_results_ok(p, 0));
  CHECK("graph_kernels", coil_program_num_kernels(p) >= 1);
  coil_program_free(p);

  /* The graph's text is the program, one line per node, each with its origin. */
  coil_graph *g = coil_graph_new("bad_shapes");
  int64_t as[1] = {3}, bs[1] = {4};
  coil_value a, b, c;
  coil_graph_input(g, "a", F32, 1, as, NULL, &a, NULL);
  coil_graph_input(g, "b", F32, 1, bs, NULL, &b, NULL);
  coil_arg ab[2] = {{.kind = COIL_ARG_VALUE, .value = a}, {.kind = COIL_ARG_VALUE, .value = b}};
  coil_status st = coil_graph_call(g, "torch.add", 2, ab, 0, NULL, NULL, "net.py:17 in forward", &c, &err);
  CHECK("graph_call_defers_shapes", st == COIL_OK);
  coil_graph_output(g, 1, &c, NULL);
  CHECK("graph_source", contains(coil_graph_source(g), "def bad_shapes(a: \"f32[3]\", b: \"f32[4]\"):") &&
                            contains(coil_graph_source(g), "v2 = torch.add(a, b)  # net.py:17 in forward"));
  st = coil_compile_graph(g, NULL, &p, &err);
  CHECK("graph_error_points_at_node", st == COIL_ERROR_PROGRAM && contains(coil_error_message(err), "<graph bad_shapes>:") &&
                                          contains(coil_error_message(err), "# net.py:17 in forward"));
  coil_error_free(err);

  coil_value d;
  st = coil_graph_call(g, "torch.exp", 1, ab, 0, NULL, NULL, NULL, &d, &err);
  CHECK("graph_closed_after_output", st == COIL_ERROR_USAGE && contains(coil_error_message(err), "already set"));
  coil_error_free(err);
  coil_graph *g2 = coil_graph_new("g2");
  coil_graph_input(g2, "a", F32, 1, as, NULL, &a, NULL);
  coil_arg a1[1] = {{.kind = COIL_ARG_VALUE, .value = a}};
  st = coil_graph_call(g2, "torch.frobnicate", 1, a1, 0, NULL, NULL, NULL, &d, &err);
  CHECK("graph_unknown_op", st == COIL_ERROR_PROGRAM && contains(coil_error_message(err), "'torch.frobnicate' is not in coil's subset"));
  coil_error_free(err);
  st = coil_graph_call(g2, "numpy.add", 1, a1, 0, NULL, NULL, NULL, &d, &err);
  CHECK("graph_unknown_namespace", st == COIL_ERROR_USAGE);
  coil_error_free(err);
  coil_arg stray[1] = {{.kind = COIL_ARG_VALUE, .value = 99}};
  st = coil_graph_call(g2, "torch.exp", 1, stray, 0, NULL, NULL, NULL, &d, &err);
  CHECK("graph_foreign_value", st == COIL_ERROR_USAGE);
  coil_error_free(err);
  st = coil_graph_input(g2, "v7", F32, 1, as, NULL, &d, &err);
  CHECK("graph_input_name_taken", st == COIL_ERROR_USAGE);
  coil_error_free(err);
  DLDataType u16 = {kDLUInt, 16, 1};
  st = coil_graph_input(g2, "q", u16, 1, as, NULL, &d, &err);
  CHECK("graph_input_dtype", st == COIL_ERROR_PROGRAM && contains(coil_error_message(err), "uint16"));
  coil_error_free(err);
  CHECK("graph_name_checked", coil_graph_new("not a name") == NULL && coil_graph_new("torch") == NULL);
  coil_graph_free(g2);
  coil_graph_free(g);

  CHECK("has_op", coil_has_op("torch.sum") && coil_has_op("Tensor.float") && coil_has_op("F.silu") &&
                      !coil_has_op("torch.frobnicate") && !coil_has_op("silu") && !coil_has_op(NULL));
}

/* A Tensor?[] list with None in it (COIL_NO_VALUE): aten.index's indices,
 * x[:, idx]. */
static void graph_optional_list(void) {
  coil_error *err = NULL;
  coil_graph *g = coil_graph_new("pick");
  int64_t xs[2] = {2, 3}, is[1] = {2}, os[2] = {2, 2};
  coil_value x, i, y;
  coil_graph_input(g, "x", F32, 2, xs, NULL, &x, NULL);
  coil_graph_input(g, "i", I64, 1, is, NULL, &i, NULL);
  coil_value list[2] = {COIL_NO_VALUE, i};
  coil_arg args[2] = {{.kind = COIL_ARG_VALUE, .value = x}, {.kind = COIL_ARG_VALUES, .values = {list, 2}}};
  coil_status st = coil_graph_call(g, "aten.index.Tensor", 2, args, 0, NULL, NULL, NULL, &y, &err);
  CHECK("graph_none_in_list", st == COIL_OK && contains(coil_graph_source(g), "aten.index.Tensor(x, [None, i])"));
  coil_program *p = NULL;
  if (st == COIL_OK) coil_graph_output(g, 1, &y, NULL), st = coil_compile_graph(g, NULL, &p, &err);
  CHECK("graph_none_in_list_compiles", st == COIL_OK && p);
  if (p) {
    float xv[6] = {0, 1, 2, 3, 4, 5}, out[4] = {0};
    int64_t iv[2] = {2, -3};
    DLTensor in[2] = {tensor(xv, F32, 2, xs, NULL), tensor(iv, I64, 1, is, NULL)}, o = tensor(out, F32, 2, os, NULL);
    st = coil_run(p, 2, in, 1, &o, &err);
    CHECK("graph_none_in_list_runs", st == COIL_OK && out[0] == 2 && out[1] == 0 && out[2] == 5 && out[3] == 3);
    coil_program_free(p);
  }
  if (err) printf("  %s\n", coil_error_message(err));
  coil_error_free(err);
  coil_graph_free(g);
}

/* Separate programs compiled and run from several threads at once, and
 * one program run by several threads at once. */
typedef struct Job {
  coil_program *shared;
  unsigned seed;
  bool ok;
} Job;

static void *job(void *arg) {
  Job *j = arg;
  coil_error *err = NULL;
  coil_program *p = graph_program(&err);
  j->ok = p && graph_results_ok(p, j->seed) && graph_results_ok(j->shared, j->seed + 1);
  coil_error_free(err);
  coil_program_free(p);
  return NULL;
}

static void threads(void) {
  coil_error *err = NULL;
  coil_program *shared = graph_program(&err);
  coil_error_free(err);
  enum { N = 4 };
  pthread_t t[N];
  Job jobs[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (Job){shared, (unsigned)i, false};
    pthread_create(&t[i], NULL, job, &jobs[i]);
  }
  bool ok = shared != NULL;
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    ok &= jobs[i].ok;
  }
  CHECK("threads", ok);
  coil_program_free(shared);
}

/* Programs built together: one run of the system compiler for several
 * programs, two of which name their kernels alike (built apart). */
static void build_together(void) {
  coil_error *err = NULL;
  coil_program *ps[3] = {graph_program(&err), graph_program(&err), NULL};
  const char *src = "def other(x: \"f32[4, 6]\", w: \"f32[6]\"):\n    return (x * w).sum(1)\n";
  coil_status st = coil_compile_source("other.py", src, NULL, &ps[2], &err);
  CHECK("build_compiles", ps[0] && ps[1] && st == COIL_OK);
  st = coil_build(ps, 3, &err);
  CHECK("build_together", st == COIL_OK);
  if (st) { printf("  %s\n", coil_error_message(err)); coil_error_free(err); }
  CHECK("build_then_run", ps[0] && ps[1] && graph_results_ok(ps[0], 3) && graph_results_ok(ps[1], 4));
  CHECK("build_again_is_a_no_op", coil_build(ps, 3, NULL) == COIL_OK && coil_build(NULL, 0, NULL) == COIL_OK);
  CHECK("build_bad_count", coil_build(ps, -1, NULL) == COIL_ERROR_USAGE);
  for (int i = 0; i < 3; i++) coil_program_free(ps[i]);
}

/* Does any C source in dir name `what`? */
static bool cache_sources_name(const char *dir, const char *what) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool found = false;
  for (struct dirent *e; !found && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".c")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = 0;
    fclose(f);
    found = strstr(text, what) != NULL;
  }
  closedir(d);
  return found;
}

/* Programs whose code is the same but for their names (a model's repeated
 * layers) are compiled once when built together: the twin's kernels are
 * the first one's, and both compute what they should beside a program
 * of other code. */
static void build_twins(void) {
  char dir[] = "/tmp/coil-api-twins-XXXXXX";
  if (!mkdtemp(dir)) { CHECK("twins_cache_dir", false); return; }
  const char *old = getenv("COIL_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("COIL_CACHE_DIR", dir, 1);
  const char *first = "def first(x: \"f32[4, 6]\", w: \"f32[6]\"):\n    return (x * w).sum(1)\n";
  const char *twin = "def twin(x: \"f32[4, 6]\", w: \"f32[6]\"):\n    return (x * w).sum(1)\n";
  const char *other = "def other(x: \"f32[4, 6]\", w: \"f32[6]\"):\n    return (x + w).amax(1)\n";
  coil_program *ps[3] = {NULL, NULL, NULL};
  coil_error *err = NULL;
  bool ok = !coil_compile_source("first.py", first, NULL, &ps[0], &err) &&
            !coil_compile_source("twin.py", twin, NULL, &ps[1], &err) &&
            !coil_compile_source("other.py", other, NULL, &ps[2], &err) && !coil_build(ps, 3, &err);
  CHECK("twins_build", ok);
  if (!ok) { printf("  %s\n", coil_error_message(err)); coil_error_free(err); }
  CHECK("twins_compiled_once", ok && cache_sources_name(dir, "coil_first_k0") && cache_sources_name(dir, "coil_other_k0") &&
                                   !cache_sources_name(dir, "coil_twin_k0"));
  float x[24], w[6], got[3][4];
  for (int i = 0; i < 24; i++) x[i] = (float)((i * 5 + 3) % 13) / 4.0f - 1.5f;
  for (int i = 0; i < 6; i++) w[i] = 0.5f * (float)(i + 1) - 1.0f;
  int64_t xs[2] = {4, 6}, ws[1] = {6}, rs[1] = {4};
  bool runs = ok;
  for (int p = 0; p < 3 && runs; p++) {
    DLTensor ins[2] = {tensor(x, F32, 2, xs, NULL), tensor(w, F32, 1, ws, NULL)}, out = tensor(got[p], F32, 1, rs, NULL);
    runs = !coil_run(ps[p], 2, ins, 1, &out, NULL);
  }
  for (int r = 0; r < 4 && runs; r++) {
    double sum = 0, mx = -INFINITY;
    for (int j = 0; j < 6; j++) sum += (double)x[r * 6 + j] * w[j], mx = fmax(mx, (double)x[r * 6 + j] + w[j]);
    runs = fabs(got[0][r] - sum) < 1e-5 && got[1][r] == got[0][r] && fabs(got[2][r] - mx) < 1e-6;
  }
  CHECK("twins_run", runs);
  for (int i = 0; i < 3; i++) coil_program_free(ps[i]);
  if (saved) setenv("COIL_CACHE_DIR", saved, 1);
  else unsetenv("COIL_CACHE_DIR");
  free(saved);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("  could not remove %s\n", dir);
}

int main(void) {
  coil_set_num_threads(2);
  source_program("c");
  source_program("triton-npu");
  source_errors();
  graph_builder();
  graph_optional_list();
  threads();
  build_together();
  build_twins();
  return failures ? 1 : 0;
}
