/* Differential fuzzing of the compiler.
 *
 * Each case is a random function in coil's subset (ranks up to 5, sizes
 * including 1 and odd primes, random views, casts, pointwise chains,
 * reductions over random dim subsets with keepdim, several outputs,
 * normalisations that need several kernels, and arg-reductions of exactly
 * computed values).  It is compiled, run, and
 * compared with the eager reference (leniently: a result at least as close
 * to float64 as eager's is fine).  Cases are compiled in batches into one
 * library, so cc runs once per batch; each case then runs in a child
 * process, so a crash is caught and reported like a mismatch.  A failing
 * case is minimised (statements dropped while it still fails) and written
 * as a reproducer.  The generator tracks shapes and dtypes so every case is
 * valid; coil rejecting one is a failure too. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"

typedef struct Rng {
  uint64_t s;
} Rng;

static uint64_t rnext(Rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int rint_(Rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); }
static bool rchance(Rng *r, int pct) { return rint_(r, 100) < pct; }

typedef struct Var {
  char name[16];
  DType dt;
  int ndim;
  int64_t shape[5];
  /* Carries a float sum's rounding (a sum or mean, or computed from one).
   * var/std of such a value amplify that rounding by |mean| / spread, which
   * the check's tolerance (scaled by the reduction length) does not model:
   * fuzz seed 3102 case 1548, the var of four sums of 910 values about 45
   * spreads from 0, differed from eager by 4x eager's own error. */
  bool summed;
  /* May differ from the reference in its last bits (a transcendental, a
   * float sum in another order, a tensor power): an arg-reduction of it
   * could pick another index, an O(1) difference, so arg-reductions take
   * only values computed exactly (inputs, views, casts, +-*, integer ops,
   * max and min). */
  bool inexact;
} Var;

#define MAX_VARS 32
#define MAX_STMTS 24

/* The families of ops drawn after the scans (gen_family), one statement a
 * case at most, each counted in the run's tally. */
enum { FAM_MULTI_INDEX, FAM_INDEX_WRITE, FAM_MORE_OP, FAM_ACTIVATION, FAM_LOSS, NFAMILIES };
static const char *const family_name[NFAMILIES] = {"multi-index", "index writes", "more ops", "activations", "losses"};

typedef struct Case {
  char fn[32];
  Var vars[MAX_VARS];
  int nvars, ninputs;
  char *stmts[MAX_STMTS]; /* "t3 = ..." */
  int stmt_var[MAX_STMTS];
  int nstmts;
  int outs[6];
  int nouts;
  bool scan; /* a scan statement was drawn (the run's tally counts them) */
  int family; /* the family drawn (FAM_*), or -1 */
} Case;

static const char *torch_dt[DT_COUNT] = {"torch.bool", "torch.int32", "torch.int64", "torch.float16",
                                          "torch.bfloat16", "torch.float32", "torch.float64"};

static int64_t numel(const Var *v) { return shape_numel(v->ndim, v->shape); }

static const int64_t SIZES[] = {1, 2, 3, 5, 7, 11, 13, 4, 8, 16};
/* --large: sizes and element counts at which the CPU schedule's chains
 * form (a row chain needs 64 rows, a column chain 64 tiles of columns) and
 * reductions split, with tails (67, 257, 1031, 4100); at most MAX_NUMEL_LARGE
 * elements per input, 4096 otherwise. */
static const int64_t LARGE_SIZES[] = {1, 3, 5, 21, 64, 67, 128, 257, 1031, 4100};
enum { MAX_NUMEL = 4096, MAX_NUMEL_LARGE = 1 << 20, MAX_EXPAND = 20000, MAX_EXPAND_LARGE = 1 << 21 };
static bool fuzz_large;

static DType rand_dtype(Rng *r) {
  static const DType w[] = {DT_F32, DT_F32, DT_F32, DT_BF16, DT_BF16, DT_F16, DT_F64, DT_I32, DT_I64, DT_BOOL};
  return w[rint_(r, 10)];
}

static Var *new_var(Case *c, DType dt, int ndim, const int64_t *shape) {
  Var *v = &c->vars[c->nvars];
  snprintf(v->name, sizeof v->name, c->nvars < c->ninputs ? "in%d" : "t%d", c->nvars);
  v->dt = dt;
  v->ndim = ndim;
  memcpy(v->shape, shape, sizeof(int64_t) * (size_t)ndim);
  c->nvars++;
  return v;
}

static void add_stmt(Case *c, int var, char *text) {
  c->stmt_var[c->nstmts] = var;
  c->stmts[c->nstmts++] = text;
}

/* Python's result dtype for a op b (b a tensor or, if NULL, a Python
 * float scalar), mirroring the cases the generator uses. */
static DType bin_dtype(const Var *a, const Var *b, bool true_div) {
  DType t;
  if (!b) t = dtype_is_float(a->dt) ? a->dt : DT_F32;
  else if (b->ndim == 0 && a->ndim > 0 && dtype_is_float(a->dt) == dtype_is_float(b->dt) && a->dt != DT_BOOL && b->dt != DT_BOOL) t = a->dt;
  else if (a->ndim == 0 && b->ndim > 0 && dtype_is_float(a->dt) == dtype_is_float(b->dt) && a->dt != DT_BOOL && b->dt != DT_BOOL) t = b->dt;
  else t = dtype_promote(a->dt, b->dt);
  if (true_div && !dtype_is_float(t)) t = DT_F32;
  return t;
}

/* A var whose shape broadcasts onto (ndim, shape) (a suffix, with some dims 1). */
static int pick_onto(Rng *r, Case *c, int ndim, const int64_t *shape) {
  int cand[MAX_VARS], n = 0;
  for (int i = 0; i < c->nvars; i++) {
    const Var *b = &c->vars[i];
    if (b->ndim > ndim) continue;
    bool ok = true;
    for (int d = 0; d < b->ndim; d++) {
      int64_t sb = b->shape[d], sa = shape[d + ndim - b->ndim];
      ok &= sb == sa || sb == 1;
    }
    if (ok) cand[n++] = i;
  }
  return n ? cand[rint_(r, n)] : -1;
}

/* A var whose shape broadcasts onto a's. */
static int pick_broadcastable(Rng *r, Case *c, const Var *a) { return pick_onto(r, c, a->ndim, a->shape); }

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = NULL;
  if (vasprintf(&s, f, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

static void shape_text(char *buf, size_t n, int ndim, const int64_t *shape) {
  size_t o = 0;
  for (int d = 0; d < ndim; d++) o += (size_t)snprintf(buf + o, n - o, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (!ndim) buf[0] = 0;
}

/* An arg-reduction of a (computed exactly: Var.inexact), often of a
 * floor or a small remainder so that rows tie: argmax and argmin over a dim
 * or every element (bool: max and min along a dim), max(dim) and min(dim)
 * by .values, .indices or [i], the indices cast or compared afterwards. */
static bool gen_argred(Rng *r, Case *c, const Var *a, int id, const char *name) {
  if (a->inexact || a->ndim == 0) return false;
  bool fl = dtype_is_float(a->dt), is_bool = a->dt == DT_BOOL;
  const char *src = a->name;
  char *tied = NULL;
  if (fl && rchance(r, 50)) src = tied = fmt("(%s * 2).floor()", a->name);
  else if (!fl && !is_bool && rchance(r, 50)) src = tied = fmt("(%s %% 3)", a->name);
  const char *op = rchance(r, 50) ? "max" : "min";
  int d = rint_(r, a->ndim), nd = 0;
  bool keep = rchance(r, 30), all = !is_bool && rchance(r, 25);
  int64_t ns[5];
  for (int i = 0; i < a->ndim; i++)
    if (i != d || keep) ns[nd++] = all ? 1 : i == d ? 1 : a->shape[i];
  if (all && !keep) nd = 0;
  int ds = rchance(r, 30) ? d - a->ndim : d;
  const char *kd = keep ? ", keepdim=True" : "";
  char *e;
  DType dt = DT_I64;
  int form = is_bool ? 2 + rint_(r, 2) : rint_(r, 5);
  if (all) e = fmt("%s.arg%s(%s)", src, op, keep ? "keepdim=True" : "");
  else if (form == 0) e = fmt("%s.arg%s(%d%s)", src, op, ds, kd);
  else if (form == 1) e = fmt("torch.arg%s(%s, dim=%d%s)", op, src, ds, kd);
  else if (form == 2) e = fmt("%s.%s(%d%s).indices", src, op, ds, kd);
  else if (form == 3) { e = fmt("%s.%s(%d%s).values", src, op, ds, kd); dt = a->dt; }
  else e = fmt("torch.%s(%s, %d%s)[1]", op, src, ds, kd);
  free(tied);
  /* the indices cast or compared afterwards */
  if (dt == DT_I64 && rchance(r, 40)) {
    bool to_float = rchance(r, 50);
    char *w = to_float ? fmt("(%s * 2 + 1).to(torch.float32)", e) : fmt("(%s == %d)", e, rint_(r, 3));
    dt = to_float ? DT_F32 : DT_BOOL;
    free(e);
    e = w;
  }
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  new_var(c, dt, nd, ns);
  return true;
}

/* A scan of a along a random dim: cumsum, cumprod, logcumsumexp, or
 * cummax/cummin's values or indices (of an exact value only, as for the
 * arg-reductions: rounding could move a tie). */
static bool gen_scan(Rng *r, Case *c, const Var *a, int id, const char *name) {
  if (a->ndim == 0) return false;
  bool fl = dtype_is_float(a->dt);
  int d = rint_(r, a->ndim), ds = rchance(r, 30) ? d - a->ndim : d;
  int form = rint_(r, 4);
  if (form == 3 && a->inexact) form = 0;
  if (form == 2 && !fl) form = 0;
  char *e;
  DType dt = fl ? a->dt : DT_I64;
  bool inexact = fl;
  if (form == 0) e = fmt(rchance(r, 50) ? "%s.cumsum(%d)" : "torch.cumsum(%s, dim=%d)", a->name, ds);
  else if (form == 1 && fl) e = fmt("(%s.tanh() + 1).cumprod(%d)", a->name, ds);
  else if (form == 1) e = fmt("(%s %% 3).cumprod(%d)", a->name, ds);
  else if (form == 2) e = fmt("torch.logcumsumexp(%s, %d)", a->name, ds);
  else {
    bool values = rchance(r, 50);
    e = fmt("%s.cum%s(%d).%s", a->name, rchance(r, 50) ? "max" : "min", ds, values ? "values" : "indices");
    dt = values ? a->dt : DT_I64;
    inexact = false;
  }
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  Var *v = new_var(c, dt, a->ndim, a->shape);
  v->summed = inexact;
  v->inexact = inexact || a->inexact;
  return true;
}

/* Sizes of index tensors' dims (an index tensor is small whatever it reads). */
static const int64_t INDEX_SIZES[] = {1, 2, 3, 4, 5, 7};

/* An int64 index tensor of shape (ndim >= 1, shape) with values in [lo, hi),
 * as model code computes one: an arange pattern, or the values of a var
 * computed exactly (Var.inexact: an ulp could move an index, an O(1)
 * difference) flattened, cut to size and folded into the range.  A third
 * of them take at most three distinct values, so writes repeat indices
 * (the last write wins, sums add up). */
static char *index_expr(Rng *r, Case *c, int ndim, const int64_t *shape, int64_t lo, int64_t hi) {
  int64_t m = shape_numel(ndim, shape), span = hi - lo;
  if (rchance(r, 30) && span > 1) span = 1 + rint_(r, span < 3 ? (int)span : 3);
  int cand[MAX_VARS], n = 0;
  for (int i = 0; i < c->nvars; i++)
    if (!c->vars[i].inexact && numel(&c->vars[i]) >= m) cand[n++] = i;
  char *base;
  if (n && rchance(r, 40)) {
    const Var *b = &c->vars[cand[rint_(r, n)]];
    char *x = numel(b) == m && b->ndim == 1 ? fmt("%s", b->name) : fmt("%s.flatten()[:%lld]", b->name, (long long)m);
    /* NaN and inf made 0 and 1e6, as the gathers of gen_op take them */
    base = dtype_is_float(b->dt) ? fmt("torch.nan_to_num(%s.float().abs() * 7, 0.0, 1e6, 0.0).long()", x) : fmt("%s.long()", x);
    free(x);
  } else {
    static const int steps[] = {1, 2, 3, 5, 7};
    base = fmt("(torch.arange(%lld) * %d + %d)", (long long)m, steps[rint_(r, 5)], rint_(r, 9));
  }
  char *e = lo < 0 ? fmt("(%s %% %lld - %lld)", base, (long long)span, (long long)-lo) : fmt("(%s %% %lld)", base, (long long)span);
  free(base);
  if (ndim == 1) return e;
  char st[64];
  shape_text(st, sizeof st, ndim, shape);
  char *v = fmt("%s.view(%s)", e, st);
  free(e);
  return v;
}

/* Shapes of index tensors that broadcast together: each is the common
 * shape (1 or 2 dims of INDEX_SIZES), a suffix of it, or it with some dims
 * 1.  idx_bcast folds one into the broadcast shape so far. */
static void idx_shape(Rng *r, int bnd, const int64_t *bs, int *nd, int64_t *s) {
  int drop = bnd > 1 && rchance(r, 20) ? 1 : 0;
  *nd = bnd - drop;
  for (int d = 0; d < *nd; d++) s[d] = rchance(r, 25) ? 1 : bs[d + drop];
}
static void idx_bcast(int *bnd, int64_t *b, int nd, const int64_t *s) {
  int64_t out[5];
  int n = nd > *bnd ? nd : *bnd;
  for (int d = 0; d < n; d++) {
    int64_t x = d - (n - nd) >= 0 ? s[d - (n - nd)] : 1, y = d - (n - *bnd) >= 0 ? b[d - (n - *bnd)] : 1;
    out[d] = x == 1 ? y : x;
  }
  memcpy(b, out, sizeof(int64_t) * (size_t)n);
  *bnd = n;
}

/* Advanced indexing: a[...] with one to all dims read at index tensors
 * that broadcast together (negative ones count from the end, int32 or
 * int64), the other dims sliced, taken by an int or left whole, a None
 * among them, leading whole dims as "...".  The result's shape follows
 * PyTorch: ints select first; the index tensors' broadcast shape stands
 * where they were when they are adjacent (a None between them separates
 * them, as an unsqueeze would), first otherwise. */
static bool gen_multi_index(Rng *r, Case *c, const Var *a, int id, const char *name) {
  if (a->ndim == 0) return false;
  enum { IT_FULL, IT_SLICE, IT_INT, IT_TENSOR };
  int kind[5], nt = 0;
  for (int d = 0; d < a->ndim; d++) {
    int p = rint_(r, 100);
    kind[d] = p < 45 ? IT_TENSOR : p < 65 ? IT_FULL : p < 82 ? IT_SLICE : IT_INT;
    if (kind[d] == IT_SLICE && a->shape[d] < 2) kind[d] = IT_FULL;
    nt += kind[d] == IT_TENSOR;
  }
  if (!nt) kind[rint_(r, a->ndim)] = IT_TENSOR;
  int bnd = 1 + rint_(r, 2), none_at = rchance(r, 25) ? rint_(r, a->ndim + 1) : -1;
  int64_t bs[2] = {INDEX_SIZES[rint_(r, 6)], INDEX_SIZES[rint_(r, 6)]};
  /* the result's dims in order: a size, or -1 for the index tensors' place */
  int64_t ent[6], bshape[5];
  int nent = 0, first = -1, last = -1, gnd = 0;
  char *item[6] = {0};
  int nitems = 0;
  for (int d = 0; d <= a->ndim; d++) {
    if (d == none_at) { item[nitems++] = fmt("None"); ent[nent++] = 1; }
    if (d == a->ndim) break;
    int64_t s = a->shape[d];
    if (kind[d] == IT_FULL) { item[nitems++] = fmt(":"); ent[nent++] = s; }
    else if (kind[d] == IT_SLICE) {
      int64_t lo = rint_(r, (int)s), hi = lo + 1 + rint_(r, (int)(s - lo));
      item[nitems++] = fmt("%lld:%lld", (long long)(rchance(r, 30) ? lo - s : lo), (long long)hi);
      ent[nent++] = hi - lo;
    } else if (kind[d] == IT_INT) {
      item[nitems++] = fmt("%lld", (long long)(rint_(r, (int)(2 * s)) - s));
    } else {
      int tnd;
      int64_t ts[2];
      idx_shape(r, bnd, bs, &tnd, ts);
      idx_bcast(&gnd, bshape, tnd, ts);
      char *e = index_expr(r, c, tnd, ts, rchance(r, 50) ? -s : 0, s);
      item[nitems++] = rchance(r, 25) ? fmt("%s.int()", e) : fmt("%s", e);
      free(e);
      if (first < 0) first = nent;
      last = nent;
      ent[nent++] = -1;
    }
  }
  bool adjacent = true;
  int nd = gnd;
  for (int i = first; i <= last; i++) adjacent &= ent[i] == -1;
  for (int i = 0; i < nent; i++) nd += ent[i] != -1;
  bool ok = nd <= 5;
  int64_t ns[5];
  nd = 0;
  if (ok && !adjacent)
    for (int i = 0; i < gnd; i++) ns[nd++] = bshape[i];
  for (int i = 0; ok && i < nent; i++) {
    if (ent[i] != -1) ns[nd++] = ent[i];
    else if (i == first && adjacent)
      for (int k = 0; k < gnd; k++) ns[nd++] = bshape[k];
  }
  /* leading whole dims as "...", or trailing ones left out */
  int lead = 0, skip_to = 0, end = nitems;
  while (lead < nitems && !strcmp(item[lead], ":")) lead++;
  if (lead && rchance(r, 30)) skip_to = lead;
  else
    while (end > 1 && !strcmp(item[end - 1], ":") && rchance(r, 50)) end--;
  StrBuf sub = {0};
  if (skip_to) sb_puts(&sub, "...");
  for (int i = skip_to; i < end; i++) sb_printf(&sub, "%s%s", sub.len ? ", " : "", item[i]);
  for (int i = 0; i < nitems; i++) free(item[i]);
  if (ok) {
    add_stmt(c, id, fmt("%s = %s[%s]", name, a->name, sub.data));
    Var *v = new_var(c, a->dt, nd, ns);
    v->summed = a->summed;
    v->inexact = a->inexact;
  }
  sb_free(&sub);
  return ok;
}

/* Text of a value of shape (ndim, shape) in dtype dt written at indices:
 * a var that broadcasts onto it, cast to dt where it is another dtype and
 * expanded where the op takes no broadcast (expand), or else fallback (a's
 * own values). */
static char *write_values(Rng *r, Case *c, int ndim, const int64_t *shape, DType dt, bool expand, const char *fallback, bool *inexact) {
  int bi = rchance(r, 70) ? pick_onto(r, c, ndim, shape) : -1;
  if (bi < 0) return fmt("%s", fallback);
  const Var *b = &c->vars[bi];
  *inexact |= b->inexact;
  char *v = b->dt == dt ? fmt("%s", b->name) : fmt("%s.to(%s)", b->name, torch_dt[dt]);
  if (expand && (b->ndim != ndim || memcmp(b->shape, shape, sizeof(int64_t) * (size_t)ndim))) {
    char st[64];
    shape_text(st, sizeof st, ndim, shape);
    char *x = fmt("%s.expand(%s)", v, st);
    free(v);
    v = x;
  }
  return v;
}

/* A number of dtype dt for index_fill and scatter. */
static char *fill_value(Rng *r, DType dt) {
  if (dt == DT_BOOL) return fmt(rchance(r, 50) ? "True" : "False");
  if (!dtype_is_float(dt)) return fmt("%d", rint_(r, 19) - 9);
  static const char *v[] = {"-1.0", "2.5", "0.0", "-0.0", "7.25"};
  return fmt("%s", v[rint_(r, 5)]);
}

/* Writes at indices into a: index_put (accumulate or not, one index tensor
 * per leading dim), index_add (with alpha), index_copy, index_fill (a number
 * or a 0-d tensor), scatter (a tensor or a number) and scatter_add, at
 * indices from index_expr, which often repeat: sums add up, other writes
 * keep the last in index order (PyTorch's CPU; coil follows it). */
static bool gen_index_write(Rng *r, Case *c, const Var *a, int id, const char *name) {
  if (a->ndim == 0) return false;
  bool is_bool = a->dt == DT_BOOL, fl = dtype_is_float(a->dt), inexact = a->inexact, sum = false;
  int form = rint_(r, 7), d = rint_(r, a->ndim);
  int ds = rchance(r, 30) ? d - a->ndim : d;
  int64_t n = a->shape[d];
  if (is_bool && (form == 1 || form == 2 || form == 6)) form = form == 1 ? 0 : form == 2 ? 3 : 5;
  const char *dtn = torch_dt[a->dt];
  char *e = NULL;
  if (form <= 1) { /* index_put at k leading dims */
    int k = 1 + rint_(r, a->ndim < 3 ? a->ndim : 3), bnd = 1 + rint_(r, 2), gnd = 0;
    int64_t bs[2] = {INDEX_SIZES[rint_(r, 6)], INDEX_SIZES[rint_(r, 6)]}, bshape[5];
    StrBuf idx = {0};
    for (int j = 0; j < k; j++) {
      int tnd;
      int64_t ts[2];
      idx_shape(r, bnd, bs, &tnd, ts);
      idx_bcast(&gnd, bshape, tnd, ts);
      char *ie = index_expr(r, c, tnd, ts, rchance(r, 50) ? -a->shape[j] : 0, a->shape[j]);
      sb_printf(&idx, "%s%s%s", j ? ", " : "", ie, rchance(r, 20) ? ".int()" : "");
      free(ie);
    }
    if (k == 1) sb_putc(&idx, ',');
    if (gnd + a->ndim - k > 5) { sb_free(&idx); return false; }
    /* the values broadcast onto what a[idx] reads: the index shape, then a's other dims */
    int64_t rs[5];
    int rnd = 0;
    for (int j = 0; j < gnd; j++) rs[rnd++] = bshape[j];
    for (int j = k; j < a->ndim; j++) rs[rnd++] = a->shape[j];
    char *own = fmt(is_bool ? "%s[%s].logical_not()" : "(%s[%s] * 2 - 1)", a->name, idx.data);
    char *v = write_values(r, c, rnd, rs, a->dt, false, own, &inexact);
    free(own);
    sum = form == 1;
    if (!sum && rchance(r, 50)) e = fmt("%s.index_put((%s), %s)", a->name, idx.data, v);
    else if (rchance(r, 50)) e = fmt("torch.index_put(%s, (%s), %s, accumulate=%s)", a->name, idx.data, v, sum ? "True" : "False");
    else e = fmt("%s.index_put((%s), %s, %s)", a->name, idx.data, v, sum ? "True" : "False");
    free(v);
    sb_free(&idx);
  } else if (form <= 3) { /* index_add, index_copy: m slices of a source along d */
    int64_t m = 1 + rint_(r, 7);
    char *ie = index_expr(r, c, 1, &m, 0, n);
    int64_t ss[5];
    memcpy(ss, a->shape, sizeof ss);
    ss[d] = m;
    char *own = m <= n ? fmt(is_bool ? "%s.narrow(%d, 0, %lld).logical_not()" : "(%s.narrow(%d, 0, %lld) * 2)", a->name, d, (long long)m)
                       : fmt(is_bool ? "%s.index_select(%d, torch.arange(%lld) %% %lld).logical_not()"
                                     : "(%s.index_select(%d, torch.arange(%lld) %% %lld) * 2)", a->name, d, (long long)m, (long long)n);
    char *v = write_values(r, c, a->ndim, ss, a->dt, true, own, &inexact);
    free(own);
    if (form == 2) {
      sum = true;
      char alpha[32] = "";
      if (rchance(r, 40)) snprintf(alpha, sizeof alpha, ", alpha=%s", fl ? (rchance(r, 50) ? "0.5" : "-2.0") : "3");
      const char *ix = rchance(r, 25) ? ".int()" : "";
      e = rchance(r, 50) ? fmt("%s.index_add(%d, %s%s, %s%s)", a->name, ds, ie, ix, v, alpha)
                         : fmt("torch.index_add(%s, %d, %s%s, %s%s)", a->name, ds, ie, ix, v, alpha);
    } else {
      e = rchance(r, 50) ? fmt("%s.index_copy(%d, %s, %s)", a->name, ds, ie, v) : fmt("torch.index_copy(%s, %d, %s, %s)", a->name, ds, ie, v);
    }
    free(ie);
    free(v);
  } else if (form == 4) { /* index_fill: negative indices count from the end */
    int64_t m = 1 + rint_(r, 7);
    char *ie = index_expr(r, c, 1, &m, rchance(r, 40) ? -n : 0, n);
    char *v = rchance(r, 25) ? fmt("%s.flatten()[%d]", a->name, rint_(r, (int)(numel(a) < 64 ? numel(a) : 64))) : fill_value(r, a->dt);
    e = fmt("%s.index_fill(%d, %s, %s)", a->name, ds, ie, v);
    free(ie);
    free(v);
  } else { /* scatter, scatter_add: an index of a's rank, no larger than a along any dim */
    int64_t is[5];
    for (int j = 0; j < a->ndim; j++) is[j] = 1 + rint_(r, (int)(a->shape[j] < 7 ? a->shape[j] : 7));
    char *ie = index_expr(r, c, a->ndim, is, 0, n);
    sum = form == 6;
    if (!sum && rchance(r, 35)) {
      char *v = fill_value(r, a->dt);
      e = rchance(r, 50) ? fmt("%s.scatter(%d, %s, %s)", a->name, ds, ie, v) : fmt("torch.scatter(%s, %d, %s, value=%s)", a->name, ds, ie, v);
      free(v);
    } else {
      /* src: a var at least the index's size along every dim */
      int cand[MAX_VARS], nc = 0;
      for (int i = 0; i < c->nvars; i++) {
        const Var *b = &c->vars[i];
        bool fits = b->ndim == a->ndim;
        for (int j = 0; fits && j < a->ndim; j++) fits = b->shape[j] >= is[j];
        if (fits) cand[nc++] = i;
      }
      const Var *b = &c->vars[cand[rint_(r, nc)]]; /* (a itself fits) */
      inexact |= b->inexact;
      char *v = b == a ? fmt(is_bool ? "%s.logical_not()" : "(%s * 2 - 1)", a->name)
                       : b->dt == a->dt ? fmt("%s", b->name) : fmt("%s.to(%s)", b->name, dtn);
      if (sum) e = rchance(r, 50) ? fmt("%s.scatter_add(%d, %s, %s)", a->name, ds, ie, v) : fmt("torch.scatter_add(%s, %d, %s, %s)", a->name, ds, ie, v);
      else e = rchance(r, 50) ? fmt("%s.scatter(%d, %s, %s)", a->name, ds, ie, v) : fmt("torch.scatter(%s, %d, %s, src=%s)", a->name, ds, ie, v);
      free(v);
    }
    free(ie);
  }
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  Var *v = new_var(c, a->dt, a->ndim, a->shape);
  v->summed = a->summed || (sum && fl);
  v->inexact = inexact || (sum && fl);
  return true;
}

/* a as a 1-D tensor of at most 13 elements, for outer, diag and trace. */
static char *as_vector(Rng *r, const Var *a, int64_t *len) {
  int64_t m = numel(a) < 13 ? numel(a) : 1 + rint_(r, 13);
  *len = m;
  if (a->ndim == 1 && m == a->shape[0]) return fmt("%s", a->name);
  return fmt("%s.flatten()[:%lld]", a->name, (long long)m);
}

/* The composites of coil's ops that model code writes (tests/run/more_ops.py):
 * triu and tril, logaddexp(2), xlogy, rsub, add and sub with alpha, outer,
 * diagonal, diagonal_scatter, trace, diag, diag_embed, diff (prepend and
 * append), deg2rad, rad2deg, heaviside and sinc, each on the ranges where it
 * is continuous, so an ulp of difference in an operand stays an ulp. */
static bool gen_more_op(Rng *r, Case *c, const Var *a, int id, const char *name) {
  bool fl = dtype_is_float(a->dt), is_bool = a->dt == DT_BOOL;
  int form = rint_(r, 16), nd = a->ndim;
  int64_t ns[5];
  memcpy(ns, a->shape, sizeof ns);
  DType dt = a->dt;
  bool inexact = a->inexact, summed = a->summed;
  int64_t limit = fuzz_large ? MAX_EXPAND_LARGE : MAX_EXPAND;
  char *e = NULL;
  switch (form) {
  case 0: { /* triu, tril */
    if (nd < 2) return false;
    const char *op = rchance(r, 50) ? "triu" : "tril";
    int k = rint_(r, 7) - 3, f = rint_(r, 3);
    e = f == 0 ? fmt("torch.%s(%s, %d)", op, a->name, k) : f == 1 ? fmt("%s.%s(%d)", a->name, op, k) : fmt("%s.%s(diagonal=%d)", a->name, op, k);
    break;
  }
  case 1: { /* logaddexp, logaddexp2 with a float tensor */
    if (!fl) return false;
    int bi = pick_broadcastable(r, c, a);
    const Var *b = bi >= 0 && dtype_is_float(c->vars[bi].dt) ? &c->vars[bi] : a;
    const char *op = rchance(r, 50) ? "logaddexp" : "logaddexp2";
    e = b == a ? fmt("torch.%s(%s, %s * 0.5)", op, a->name, a->name)
               : rchance(r, 50) ? fmt("torch.%s(%s, %s)", op, a->name, b->name) : fmt("%s.%s(%s)", a->name, op, b->name);
    dt = bin_dtype(a, b, false);
    summed |= b->summed;
    inexact = true;
    break;
  }
  case 2: { /* xlogy: y kept away from 0, where x log y jumps */
    int bi = pick_broadcastable(r, c, a);
    const Var *b = bi >= 0 && c->vars[bi].dt != DT_BOOL ? &c->vars[bi] : NULL;
    if (!b) {
      e = rchance(r, 50) ? fmt("torch.xlogy(%s, 2.5)", a->name) : fmt("torch.special.xlogy(%s, 0.75)", a->name);
      dt = bin_dtype(a, NULL, true);
    } else {
      const char *clamp = dtype_is_float(b->dt) ? "%s.abs().clamp(0.5, 64)" : "%s.clamp(1, 64)";
      char *y = fmt(clamp, b->name);
      int f = rint_(r, 3);
      e = f == 0 ? fmt("torch.xlogy(%s, %s)", a->name, y) : f == 1 ? fmt("%s.xlogy(%s)", a->name, y) : fmt("torch.xlogy(2, %s)", y);
      free(y);
      dt = f == 2 ? bin_dtype(b, NULL, true) : bin_dtype(a, b, true);
      if (f == 2) { nd = b->ndim; memcpy(ns, b->shape, sizeof ns); }
      summed |= b->summed;
    }
    inexact = true;
    break;
  }
  case 3: case 4: { /* rsub (other - alpha * a), add and sub with alpha */
    if (is_bool) return false;
    int bi = pick_broadcastable(r, c, a);
    const Var *b = bi >= 0 && c->vars[bi].dt != DT_BOOL ? &c->vars[bi] : NULL;
    if (form == 3 && !b) {
      int k = 1 + rint_(r, 5);
      e = fl ? fmt("torch.rsub(%s, %d, alpha=%s)", a->name, k, rchance(r, 50) ? "0.5" : "3") : fmt("torch.rsub(%s, %d)", a->name, k);
      break;
    }
    if (!b) return false;
    dt = bin_dtype(a, b, false);
    const char *alpha = dtype_is_float(dt) ? (rchance(r, 50) ? "0.5" : "-2.5") : (rchance(r, 50) ? "2" : "-3");
    int f = rint_(r, 3);
    if (form == 3) e = rchance(r, 40) ? fmt("torch.rsub(%s, %s)", a->name, b->name) : fmt("torch.rsub(%s, %s, alpha=%s)", a->name, b->name, alpha);
    else if (f == 0) e = fmt("torch.add(%s, %s, alpha=%s)", a->name, b->name, alpha);
    else if (f == 1) e = fmt("%s.sub(%s, alpha=%s)", a->name, b->name, alpha);
    else e = fmt("torch.sub(%s, %s, alpha=%s)", a->name, b->name, alpha);
    summed |= b->summed;
    inexact |= b->inexact || dtype_is_float(dt);
    break;
  }
  case 5: { /* outer of two vectors */
    if (numel(a) == 0) return false;
    const Var *b = &c->vars[rint_(r, c->nvars)];
    if (numel(b) == 0) return false;
    int64_t m1, m2;
    char *u = as_vector(r, a, &m1), *w = as_vector(r, b, &m2);
    int f = rint_(r, 3);
    e = f == 0 ? fmt("torch.outer(%s, %s)", u, w) : f == 1 ? fmt("%s.outer(%s)", u, w) : fmt("torch.ger(%s, %s)", u, w);
    free(u), free(w);
    Var va = {.dt = a->dt, .ndim = 1}, vb = {.dt = b->dt, .ndim = 1};
    dt = bin_dtype(&va, &vb, false);
    nd = 2, ns[0] = m1, ns[1] = m2;
    summed |= b->summed;
    inexact |= b->inexact;
    break;
  }
  case 6: case 7: { /* diagonal (a view), diagonal_scatter (its backward) */
    if (nd < 2) return false;
    int d1 = rint_(r, nd), d2 = (d1 + 1 + rint_(r, nd - 1)) % nd, off = rint_(r, 7) - 3;
    int64_t s1 = a->shape[d1], s2 = a->shape[d2];
    int64_t len = off >= 0 ? (s2 - off < s1 ? s2 - off : s1) : (s1 + off < s2 ? s1 + off : s2);
    if (len < 0) len = 0;
    int k = 0;
    for (int i = 0; i < nd; i++)
      if (i != d1 && i != d2) ns[k++] = a->shape[i];
    ns[k++] = len;
    int n1 = rchance(r, 30) ? d1 - nd : d1, n2 = rchance(r, 30) ? d2 - nd : d2;
    char *dg = fmt("%s.diagonal(%d, %d, %d)", a->name, off, n1, n2);
    if (form == 6) {
      int f = rint_(r, 3);
      e = f == 0 ? fmt("%s", dg) : f == 1 ? fmt("torch.diagonal(%s, %d, %d, %d)", a->name, off, n1, n2)
                                           : fmt("%s.diagonal(offset=%d, dim1=%d, dim2=%d)", a->name, off, n1, n2);
      nd = k;
    } else {
      int bi = len && rchance(r, 50) ? pick_onto(r, c, k, ns) : -1;
      char *src = bi >= 0 ? (c->vars[bi].dt == a->dt ? fmt("%s", c->vars[bi].name) : fmt("%s.to(%s)", c->vars[bi].name, torch_dt[a->dt]))
                          : fmt(is_bool ? "%s.logical_not()" : "(%s * 2 - 1)", dg);
      /* src must have the diagonal's shape: a var that only broadcasts onto it is expanded */
      char st[64];
      shape_text(st, sizeof st, k, ns);
      if (bi >= 0) {
        char *x = fmt("%s.expand(%s)", src, st);
        free(src);
        src = x;
        inexact |= c->vars[bi].inexact;
      }
      e = rchance(r, 50) ? fmt("torch.diagonal_scatter(%s, %s, %d, %d, %d)", a->name, src, off, n1, n2)
                         : fmt("%s.diagonal_scatter(%s, %d, %d, %d)", a->name, src, off, n1, n2);
      free(src);
    }
    free(dg);
    break;
  }
  case 8: { /* trace of a as a matrix */
    if (is_bool || nd == 0) return false;
    char *m = nd == 2 ? fmt("%s", a->name) : nd == 1 ? fmt("%s.view(1, %lld)", a->name, (long long)a->shape[0]) : fmt("%s.flatten(1)", a->name);
    e = rchance(r, 50) ? fmt("torch.trace(%s)", m) : fmt("%s.trace()", m);
    free(m);
    nd = 0;
    dt = fl ? a->dt : DT_I64;
    summed |= fl;
    inexact |= fl;
    break;
  }
  case 9: { /* diag: a vector to a matrix, or a matrix's diagonal */
    int k = rint_(r, 7) - 3;
    if (nd == 2) {
      int64_t s1 = a->shape[0], s2 = a->shape[1];
      int64_t len = k >= 0 ? (s2 - k < s1 ? s2 - k : s1) : (s1 + k < s2 ? s1 + k : s2);
      e = rchance(r, 50) ? fmt("torch.diag(%s, %d)", a->name, k) : fmt("%s.diag(%d)", a->name, k);
      nd = 1, ns[0] = len < 0 ? 0 : len;
      break;
    }
    if (numel(a) == 0) return false;
    int64_t m;
    char *u = as_vector(r, a, &m);
    e = rchance(r, 50) ? fmt("torch.diag(%s, %d)", u, k) : fmt("%s.diag(%d)", u, k);
    free(u);
    nd = 2, ns[0] = ns[1] = m + (k < 0 ? -k : k);
    break;
  }
  case 10: { /* diag_embed: the last dim becomes a diagonal along two new dims d1, d2 of the result */
    if (nd == 0 || nd > 4) return false;
    int64_t n = a->shape[nd - 1];
    int off = rint_(r, 5) - 2, d1 = nd - 1, d2 = nd;
    int64_t m = n + (off < 0 ? -off : off);
    if (numel(a) / n * m * m > limit) return false;
    int f = rint_(r, 3);
    if (f == 0) e = fmt("torch.diag_embed(%s, %d)", a->name, off);
    else if (f == 1) e = fmt("%s.diag_embed(%d)", a->name, off);
    else {
      d1 = rint_(r, nd + 1), d2 = (d1 + 1 + rint_(r, nd)) % (nd + 1);
      e = fmt("torch.diag_embed(%s, %d, %d, %d)", a->name, off, rchance(r, 30) ? d1 - nd - 1 : d1, d2);
    }
    for (int i = 0, j = 0; i <= nd; i++) ns[i] = i == d1 || i == d2 ? m : a->shape[j++];
    nd++;
    break;
  }
  case 11: { /* diff along a dim, n = 1 or 2, with prepend and append from a */
    if (nd == 0) return false;
    int d = rint_(r, nd), n = 1 + rint_(r, 2);
    int64_t s = a->shape[d], pre = rchance(r, 25) ? 1 + rint_(r, (int)s) : 0, app = rchance(r, 25) ? 1 + rint_(r, (int)s) : 0;
    int ds = rchance(r, 30) ? d - nd : d;
    StrBuf sb = {0};
    sb_printf(&sb, "torch.diff(%s, n=%d, dim=%d", a->name, n, ds);
    if (pre) sb_printf(&sb, ", prepend=%s.narrow(%d, 0, %lld)", a->name, d, (long long)pre);
    if (app) sb_printf(&sb, ", append=%s.narrow(%d, %lld, %lld)", a->name, d, (long long)(s - app), (long long)app);
    sb_puts(&sb, ")");
    if (!pre && !app && rchance(r, 40)) {
      sb_free(&sb);
      e = n == 1 && rchance(r, 50) ? fmt("%s.diff(dim=%d)", a->name, ds) : fmt("%s.diff(%d, %d)", a->name, n, ds);
    } else {
      e = sb.data;
    }
    int64_t len = s + pre + app - n;
    ns[d] = len < 0 ? 0 : len;
    break;
  }
  case 12: case 13: { /* deg2rad, rad2deg */
    const char *op = rchance(r, 50) ? "deg2rad" : "rad2deg";
    e = rchance(r, 50) ? fmt("torch.%s(%s)", op, a->name) : fmt("%s.%s()", a->name, op);
    dt = fl ? a->dt : DT_F32;
    inexact = true;
    break;
  }
  case 14: { /* heaviside of a value computed exactly: its step is at 0 */
    if (a->inexact) return false;
    int bi = pick_broadcastable(r, c, a);
    const Var *b = bi >= 0 ? &c->vars[bi] : a;
    char *v = b == a ? fmt("%s.flip(%d)", a->name, nd ? rint_(r, nd) : 0)
                     : b->dt == a->dt ? fmt("%s", b->name) : fmt("%s.to(%s)", b->name, torch_dt[a->dt]);
    if (nd == 0 && b == a) { free(v); v = fmt("%s", a->name); }
    e = rchance(r, 50) ? fmt("torch.heaviside(%s, %s)", a->name, v) : fmt("%s.heaviside(%s)", a->name, v);
    free(v);
    break;
  }
  default: { /* sinc, on [-4, 4] (sin(pi x) of a large x loses its digits to pi x's rounding) */
    char *x = is_bool ? fmt("%s", a->name) : fmt("%s.clamp(-4, 4)", a->name);
    e = rchance(r, 50) ? fmt("torch.sinc(%s)", x) : rchance(r, 50) ? fmt("%s.sinc()", x) : fmt("torch.special.sinc(%s)", x);
    free(x);
    dt = fl ? a->dt : DT_F32;
    inexact = true;
    break;
  }
  }
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  Var *v = new_var(c, dt, nd, ns);
  v->summed = summed;
  v->inexact = inexact;
  return true;
}

/* An activation of torch.nn.functional on a (an int or bool a as float32,
 * but for the three that take ints).  threshold jumps at its threshold, so
 * a value that may differ by an ulp (Var.inexact) is replaced by the
 * threshold itself there, where it is continuous. */
static bool gen_activation(Rng *r, Case *c, const Var *a, int id, const char *name) {
  bool fl = dtype_is_float(a->dt);
  int form = rint_(r, 20), nd = a->ndim;
  int64_t ns[5];
  memcpy(ns, a->shape, sizeof ns);
  if (!fl && a->dt != DT_BOOL && rchance(r, 40)) { /* ints: relu6, hardtanh, threshold */
    int f = rint_(r, 3);
    char *e = f == 0 ? fmt("F.relu6(%s)", a->name)
              : f == 1 ? fmt("F.hardtanh(%s, %d, %d)", a->name, -1 - rint_(r, 3), 1 + rint_(r, 3))
                       : fmt("F.threshold(%s, %d, %d)", a->name, rint_(r, 5) - 2, rint_(r, 9) - 4);
    add_stmt(c, id, fmt("%s = %s", name, e));
    free(e);
    Var *v = new_var(c, a->dt, nd, ns);
    v->summed = a->summed;
    v->inexact = a->inexact;
    return true;
  }
  DType dt = fl ? a->dt : DT_F32;
  char *x = fl ? fmt("%s", a->name) : fmt("%s.float()", a->name);
  char *e = NULL;
  bool summed = a->summed;
  switch (form) {
  case 0: e = fmt("F.relu6(%s)", x); break;
  case 1: e = rchance(r, 50) ? fmt("F.leaky_relu(%s)", x) : fmt("F.leaky_relu(%s, %s)", x, rchance(r, 50) ? "0.2" : "negative_slope=0.01"); break;
  case 2: e = rchance(r, 50) ? fmt("F.elu(%s)", x) : fmt("F.elu(%s, alpha=%s)", x, rchance(r, 50) ? "0.5" : "1.5"); break;
  case 3: e = rchance(r, 50) ? fmt("F.selu(%s)", x) : fmt("torch.selu(%s)", x); break;
  case 4: e = rchance(r, 50) ? fmt("F.celu(%s)", x) : fmt("F.celu(%s, alpha=0.5)", x); break;
  case 5: e = fmt("F.gelu(%s)", x); break;
  case 6: e = fmt("F.gelu(%s, approximate=\"tanh\")", x); break;
  case 7: e = fmt("F.silu(%s)", x); break;
  case 8: e = fmt("F.mish(%s)", x); break;
  case 9: e = rchance(r, 50) ? fmt("F.softplus(%s)", x) : fmt("F.softplus(%s, beta=2.0, threshold=5.0)", x); break;
  case 10: e = fmt("F.softsign(%s)", x); break;
  case 11: e = rchance(r, 50) ? fmt("F.hardtanh(%s)", x) : fmt("F.hardtanh(%s, -2.0, 3.0)", x); break;
  case 12: e = fmt("F.hardsigmoid(%s)", x); break;
  case 13: e = fmt("F.hardswish(%s)", x); break;
  case 14: e = fmt("F.logsigmoid(%s)", x); break;
  case 15: { /* glu halves a dim of even size */
    int cand[5], n = 0;
    for (int d = 0; d < nd; d++)
      if (a->shape[d] % 2 == 0) cand[n++] = d;
    if (!n) break;
    int d = cand[rint_(r, n)];
    ns[d] /= 2;
    e = d == nd - 1 && rchance(r, 50) ? fmt("F.glu(%s)", x) : fmt("F.glu(%s, %d)", x, rchance(r, 30) ? d - nd : d);
    break;
  }
  case 16: case 17: { /* threshold */
    const char *th = rchance(r, 50) ? "0.5" : "-0.25";
    e = a->inexact ? fmt("F.threshold(%s, %s, %s)", x, th, th) : fmt("F.threshold(%s, %s, %s)", x, th, rchance(r, 50) ? "-1.0" : "2.0");
    break;
  }
  default: { /* softmin over a dim (a reduction) */
    if (!nd) break;
    int d = rint_(r, nd);
    e = fmt("F.softmin(%s, dim=%d)", x, rchance(r, 30) ? d - nd : d);
    summed = true;
    break;
  }
  }
  free(x);
  if (!e) return false;
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  Var *v = new_var(c, dt, nd, ns);
  v->summed = summed;
  v->inexact = true;
  return true;
}

/* A target for a loss of input x (text, dtype dt, a's shape): another var
 * that broadcasts onto a, cast to dt, or else a transformed copy of x. */
static char *loss_target(Rng *r, Case *c, const Var *a, const char *x, DType dt, bool same_shape, bool *exact) {
  int bi = pick_broadcastable(r, c, a);
  if (bi >= 0 && same_shape && c->vars[bi].ndim != a->ndim) bi = -1;
  if (bi >= 0 && same_shape && memcmp(c->vars[bi].shape, a->shape, sizeof(int64_t) * (size_t)a->ndim)) bi = -1;
  if (bi >= 0 && &c->vars[bi] != a) {
    const Var *b = &c->vars[bi];
    *exact = !b->inexact;
    return b->dt == dt ? fmt("%s", b->name) : fmt("%s.to(%s)", b->name, torch_dt[dt]);
  }
  *exact = !a->inexact;
  return a->ndim ? fmt("%s.flip(%d)", x, rint_(r, a->ndim)) : fmt("(%s * 0.5)", x);
}

/* A loss of torch.nn.functional with a as its input (an int or bool a as
 * float32): the regression losses, kl_div, binary cross-entropy on
 * probabilities and on logits, and nll_loss and cross_entropy with class
 * indices in range (from a's argmax where a is computed exactly, else from
 * index_expr), ignore_index, weights, label smoothing, every reduction. */
static bool gen_loss(Rng *r, Case *c, const Var *a, int id, const char *name) {
  bool fl = dtype_is_float(a->dt);
  DType dt = fl ? a->dt : DT_F32;
  int nd = a->ndim, form = rint_(r, 6);
  int64_t ns[5];
  memcpy(ns, a->shape, sizeof ns);
  char *x = fl ? fmt("%s", a->name) : fmt("%s.float()", a->name);
  static const char *reds[] = {"mean", "sum", "none"};
  const char *red = reds[rint_(r, 3)];
  char redarg[40] = "";
  if (strcmp(red, "mean") || rchance(r, 30)) snprintf(redarg, sizeof redarg, ", reduction=\"%s\"", red);
  bool exact;
  char *e = NULL;
  if (form <= 1) { /* mse, l1, smooth_l1, huber */
    char *y = loss_target(r, c, a, x, dt, false, &exact);
    int f = rint_(r, 4);
    if (f == 0) e = fmt("F.mse_loss(%s, %s%s)", x, y, redarg);
    else if (f == 1) e = fmt("F.l1_loss(%s, %s%s)", x, y, redarg);
    else if (f == 2) e = fmt("F.smooth_l1_loss(%s, %s%s, beta=%s)", x, y, redarg, rchance(r, 50) ? "0.5" : "2.0");
    else e = rchance(r, 50) ? fmt("F.huber_loss(%s, %s%s)", x, y, redarg) : fmt("F.huber_loss(%s, %s%s, delta=0.7)", x, y, redarg);
    free(y);
  } else if (form == 2) { /* kl_div: log-probabilities against probabilities or their logs */
    bool logt = rchance(r, 50);
    if (nd && rchance(r, 25)) { red = "batchmean"; snprintf(redarg, sizeof redarg, ", reduction=\"batchmean\""); }
    char *y = loss_target(r, c, a, x, dt, false, &exact);
    e = logt ? fmt("F.kl_div(%s, %s.clamp(-8, 8)%s, log_target=True)", x, y, redarg) : fmt("F.kl_div(%s, %s.sigmoid()%s)", x, y, redarg);
    free(y);
  } else if (form == 3) { /* binary_cross_entropy(_with_logits): targets of a's shape in [0, 1] */
    bool logits = rchance(r, 50);
    char *y = loss_target(r, c, a, x, dt, true, &exact);
    /* hard labels only from exact values: a comparison turns an ulp into a 1 */
    char *t = exact && rchance(r, 40) ? fmt("(%s > 0.25).to(%s)", y, torch_dt[dt]) : fmt("%s.sigmoid()", y);
    char *in = logits ? fmt("%s", x) : fmt(rchance(r, 50) ? "%s.sigmoid()" : "%s.clamp(0, 1)", x);
    StrBuf sb = {0};
    sb_printf(&sb, "F.binary_cross_entropy%s(%s, %s", logits ? "_with_logits" : "", in, t);
    free(in);
    for (int k = 0; k < (logits ? 2 : 1); k++) {
      if (!rchance(r, 35)) continue;
      int wi = pick_broadcastable(r, c, a);
      if (wi < 0) continue;
      const Var *w = &c->vars[wi];
      char *wt = w->dt == dt ? fmt("%s", w->name) : fmt("%s.to(%s)", w->name, torch_dt[dt]);
      sb_printf(&sb, k ? ", pos_weight=%s.abs() + 0.5" : ", weight=%s", wt);
      free(wt);
    }
    sb_printf(&sb, "%s)", redarg);
    e = sb.data;
    free(y), free(t);
  } else { /* nll_loss, cross_entropy: classes along dim 1 (dim 0 of one sample) */
    if (nd == 0 || (nd == 1 && a->inexact)) { free(x); return false; }
    bool ce = form == 5;
    int cd = nd >= 2 ? 1 : 0;
    int64_t C = a->shape[cd], ts[5];
    int tnd = 0;
    for (int d = 0; d < nd; d++)
      if (d != cd) ts[tnd++] = a->shape[d];
    char *t = nd == 1 ? fmt("%s.argmax()", x)
              : !a->inexact && rchance(r, 50) ? fmt("%s.argmax(%d)", x, cd) : index_expr(r, c, tnd, ts, 0, C);
    bool ignore = rchance(r, 30);
    int64_t ig = rint_(r, (int)C);
    char *tt = ignore && rchance(r, 50) ? fmt("torch.where(%s == %lld, -100, %s)", t, (long long)ig, t) : fmt("%s", t);
    char *in = ce || rchance(r, 30) ? fmt("%s", x) : fmt("%s.log_softmax(%d)", x, cd);
    StrBuf sb = {0};
    sb_printf(&sb, "F.%s(%s, %s", ce ? "cross_entropy" : "nll_loss", in, tt);
    free(in);
    if (ignore && !strstr(tt, "-100")) sb_printf(&sb, ", ignore_index=%lld", (long long)ig);
    if (rchance(r, 30)) {
      char *w = nd == 2 && rchance(r, 50) ? fmt("%s[0].abs() + 0.5", x) : fmt("(torch.arange(%lld) * 0.25 + 0.5).to(%s)", (long long)C, torch_dt[dt]);
      sb_printf(&sb, ", weight=%s", w);
      free(w);
    }
    if (ce && rchance(r, 30)) sb_printf(&sb, ", label_smoothing=%s", rchance(r, 50) ? "0.1" : "0.25");
    sb_printf(&sb, "%s)", redarg);
    e = sb.data;
    free(t), free(tt);
    memcpy(ns, ts, sizeof ns);
    nd = tnd;
  }
  free(x);
  if (strcmp(red, "none")) nd = 0;
  add_stmt(c, id, fmt("%s = %s", name, e));
  free(e);
  Var *v = new_var(c, dt, nd, ns);
  v->summed = a->summed || strcmp(red, "none");
  v->inexact = true;
  return true;
}

/* One statement of a family, as an extra output: tries a few operands
 * (the latest value half the time, so it fuses with what made it) and, if
 * the family applies to none, the next family. */
static int gen_family(Rng *r, Case *c) {
  static bool (*const gen[NFAMILIES])(Rng *, Case *, const Var *, int, const char *) = {gen_multi_index, gen_index_write, gen_more_op,
                                                                                        gen_activation, gen_loss};
  int f = rint_(r, NFAMILIES);
  char name[16];
  snprintf(name, sizeof name, "t%d", c->nvars);
  for (int tries = 0; tries < 12; tries++) {
    if (tries && tries % 4 == 0) f = (f + 1) % NFAMILIES;
    const Var *a = &c->vars[rchance(r, 50) ? c->nvars - 1 : rint_(r, c->nvars)];
    if (numel(a) == 0) continue;
    if (gen[f](r, c, a, c->nvars, name)) return f;
  }
  return -1;
}

/* One random statement from operand *src; false if the chosen op does not apply. */
static bool gen_op(Rng *r, Case *c, int *src) {
  if (c->nvars >= MAX_VARS || c->nstmts >= MAX_STMTS) return false;
  int ai = *src = c->nvars - 1 - (rchance(r, 60) ? 0 : rint_(r, c->nvars));
  const Var *a = &c->vars[ai];
  int id = c->nvars;
  char name[16];
  snprintf(name, sizeof name, "t%d", id);
  bool fl = dtype_is_float(a->dt);
  int64_t shape[5];
  memcpy(shape, a->shape, sizeof shape);
  switch (rint_(r, 11)) {
  case 0: case 1: { /* binary pointwise */
    static const char *ops[] = {"+", "-", "*", "/", "**"};
    int bi = pick_broadcastable(r, c, a);
    const char *op = ops[rint_(r, 5)];
    bool scalar = bi < 0 || rchance(r, 25);
    const Var *b = scalar ? NULL : &c->vars[bi];
    if (!strcmp(op, "**") && (scalar || a->dt == DT_BOOL || b->dt == DT_BOOL)) op = "*";
    if (!strcmp(op, "**")) {
      /* a tensor exponent, bounded both ways: float bases in [0.5, 4.5] to
       * powers in [-3, 3], integer bases in [-3, 3] to powers in [0, 4] */
      add_stmt(c, id, fmt(dtype_is_float(a->dt) ? "%s = (%s.clamp(-4, 4).abs() + 0.5) ** %s.clamp(%s)"
                                                 : "%s = %s.clamp(-3, 3) ** %s.clamp(%s)",
                          name, a->name, b->name, dtype_is_float(b->dt) ? "-3, 3" : "0, 4"));
      Var *v = new_var(c, bin_dtype(a, b, false), a->ndim, shape);
      v->summed = b->summed;
      v->inexact = true;
      return true;
    }
    if (!strcmp(op, "-") && (a->dt == DT_BOOL || (b && b->dt == DT_BOOL))) op = "*";
    if (!strcmp(op, "-") && scalar && a->dt == DT_BOOL) op = "*";
    DType dt = bin_dtype(a, b, op[0] == '/');
    if (scalar && !dtype_is_float(a->dt) && op[0] != '/') {
      dt = a->dt == DT_BOOL ? DT_I64 : a->dt;
      add_stmt(c, id, fmt("%s = %s %s %d", name, a->name, op, 1 + rint_(r, 3)));
    } else if (scalar) {
      add_stmt(c, id, fmt("%s = %s %s %.3g", name, a->name, op, 0.5 + rint_(r, 7) * 0.25));
    } else {
      /* (PyTorch has no abs of a bool: b + 1 is the same int64 divisor) */
      if (op[0] == '/') add_stmt(c, id, fmt(b->dt == DT_BOOL ? "%s = %s / (%s + 1)" : "%s = %s / (%s.abs() + 1)", name, a->name, b->name));
      else add_stmt(c, id, fmt("%s = %s %s %s", name, a->name, op, b->name));
      if (op[0] == '/') dt = bin_dtype(a, b, true);
      if (b->dt == DT_BOOL && op[0] == '/') dt = bin_dtype(a, &(Var){.dt = DT_I64, .ndim = b->ndim}, true);
    }
    if (a->dt == DT_BOOL && b && b->dt == DT_BOOL && op[0] != '/') dt = DT_BOOL;
    if (a->dt == DT_BOOL && b && b->dt == DT_BOOL && op[0] == '+') dt = DT_BOOL;
    Var *v = new_var(c, dt, a->ndim, shape);
    v->summed = b && b->summed;
    /* (an int true division rounds its operands to f32 first in C) */
    v->inexact = (b && b->inexact) || (op[0] == '/' && (!fl || (b && !dtype_is_float(b->dt))));
    return true;
  }
  case 2: { /* unary math */
    if (a->dt == DT_BOOL) return false;
    /* (powers: small integers become multiplications, +-0.5 roots but in
     * f16, 1.5 stays pow) */
    static const char *fl_ops[] = {"(%s.abs() + 1).log()", "(%s.abs() + 0.5).sqrt()", "%s.sigmoid()", "%s.tanh()",
                                   "(%s.abs() + 1).rsqrt()", "%s.relu()", "%s.clamp(-1, 1)", "(-%s).exp()",
                                   "%s.clamp(-4, 4) ** 3", "(%s.abs() + 0.5) ** -2", "%s.pow(2)", "(%s.abs() + 0.25) ** 1.5",
                                   "%s.abs() ** 0.5", "(%s.abs() + 0.25) ** -0.5",
                                   /* off the fast forms' ranges (CSched.fast_math: the chunk runs again
                                    * exactly): NaN and -inf logs, exps that underflow to subnormals and
                                    * 0 (never overflow: a sum or prod of large values could overflow in
                                    * one order and not in another), sigmoids of |x| > 87 */
                                   "%s.log()", "(%s * 25 - 90).exp()", "(%s * 30).sigmoid()",
                                   /* the rest of model code's math, on ranges where it is continuous (a
                                    * sum's last bits may differ between targets: no floor, no jump) */
                                   "%s.clamp(-1, 1).tan()", "%s.clamp(-0.99, 0.99).asin()", "%s.clamp(-0.99, 0.99).acos()",
                                   "torch.atan(%s)", "%s.clamp(-8, 8).sinh()", "torch.cosh(%s.clamp(-8, 8))", "%s.asinh()",
                                   "(%s.abs() + 1).acosh()", "%s.clamp(-0.9, 0.9).atanh()", "torch.erfc(%s)",
                                   "%s.clamp(-0.9, 0.9).erfinv()", "%s.clamp(-8, 8).expm1()", "(%s.abs() + 0.5).log10()",
                                   "torch.log1p(%s.abs())", "torch.atan2(%s, %s.abs() + 1)", "torch.hypot(%s, %s * 0.5)",
                                   "%s.copysign(%s.abs() + 1)"};
    static const char *int_ops[] = {"%s.abs()", "-%s", "%s.square()", "%s.clamp_min(0)", "%s.clamp(-3, 3)", "%s.clamp(-30, 30) ** 3",
                                    /* Python's % and // (and C's fmod), shifts in range and out */
                                    "%s %% 7", "%s // -3", "torch.fmod(%s, 5)", "%s << 3", "%s >> 2", "%s.remainder(%s.abs() + 1)",
                                    "%s // (%s.abs() + 1)", "%s >> %s.clamp(0, 63)", "torch.bitwise_left_shift(%s, %s.clamp(0, 40))"};
    int k = fl ? rint_(r, (int)(sizeof fl_ops / sizeof *fl_ops)) : rint_(r, (int)(sizeof int_ops / sizeof *int_ops));
    const char *tmpl = fl ? fl_ops[k] : int_ops[k];
    char *e = fmt(tmpl, a->name, a->name); /* (templates of two operands name a twice) */
    if (fl && k == 7) { free(e); e = fmt("%s.clamp(-8, 8).exp()", a->name); }
    add_stmt(c, id, fmt("%s = %s", name, e));
    free(e);
    new_var(c, a->dt, a->ndim, shape)->inexact = fl;
    return true;
  }
  case 3: { /* cast */
    DType to = rand_dtype(r);
    add_stmt(c, id, fmt("%s = %s.to(%s)", name, a->name, torch_dt[to]));
    new_var(c, to, a->ndim, shape);
    return true;
  }
  case 4: { /* permute / transpose */
    if (a->ndim < 2) return false;
    int perm[5];
    for (int i = 0; i < a->ndim; i++) perm[i] = i;
    for (int i = a->ndim - 1; i > 0; i--) {
      int j = rint_(r, i + 1), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    char p[64] = "";
    size_t o = 0;
    for (int i = 0; i < a->ndim; i++) {
      o += (size_t)snprintf(p + o, sizeof p - o, "%s%d", i ? ", " : "", perm[i]);
      shape[i] = a->shape[perm[i]];
    }
    if (rchance(r, 30)) {
      int i = rint_(r, a->ndim), j = rint_(r, a->ndim);
      memcpy(shape, a->shape, sizeof shape);
      shape[i] = a->shape[j];
      shape[j] = a->shape[i];
      add_stmt(c, id, fmt("%s = %s.transpose(%d, %d)", name, a->name, i, j - a->ndim));
    } else {
      add_stmt(c, id, fmt("%s = %s.permute(%s)", name, a->name, p));
    }
    new_var(c, a->dt, a->ndim, shape);
    return true;
  }
  case 5: { /* unsqueeze + expand, or squeeze */
    if (a->ndim < 5 && rchance(r, 60)) {
      int d = rint_(r, a->ndim + 1);
      int64_t e = SIZES[1 + rint_(r, 5)];
      int64_t ns[5];
      for (int i = 0, j = 0; i <= a->ndim; i++) ns[i] = i == d ? e : a->shape[j++];
      char st[64];
      shape_text(st, sizeof st, a->ndim + 1, ns);
      if (numel(a) * e > (fuzz_large ? MAX_EXPAND_LARGE : MAX_EXPAND)) return false;
      add_stmt(c, id, fmt("%s = %s.unsqueeze(%d).expand(%s)", name, a->name, d, st));
      new_var(c, a->dt, a->ndim + 1, ns);
      return true;
    }
    int n = 0;
    for (int i = 0; i < a->ndim; i++)
      if (a->shape[i] != 1) shape[n++] = a->shape[i];
    if (n == a->ndim) return false;
    add_stmt(c, id, fmt("%s = %s.squeeze()", name, a->name));
    new_var(c, a->dt, n, shape);
    return true;
  }
  case 6: { /* narrow one dim (a box view), a strided slice, a flip or a roll; or reshape: merge two adjacent dims, or split one */
    if (a->ndim >= 1 && rchance(r, 35)) {
      /* the last dim half the time: the one loads walk contiguously */
      int d = rchance(r, 50) ? a->ndim - 1 : rint_(r, a->ndim), kind = rint_(r, 3);
      int64_t s = a->shape[d];
      memcpy(shape, a->shape, sizeof shape);
      if (kind == 0) { /* x[..., lo:hi:step], most often to the end */
        if (s < 3) return false;
        int64_t step = 2 + rint_(r, 3), lo = rint_(r, (int)(s < step ? s : step));
        int64_t hi = rchance(r, 70) ? s : lo + 1 + rint_(r, (int)(s - lo));
        shape[d] = (hi - lo + step - 1) / step;
        char sub[96] = "";
        size_t o = 0;
        for (int i = 0; i < d; i++) o += (size_t)snprintf(sub + o, sizeof sub - o, ":, ");
        if (hi == s && rchance(r, 50)) snprintf(sub + o, sizeof sub - o, "%lld::%lld", (long long)(rchance(r, 30) ? lo - s : lo), (long long)step);
        else snprintf(sub + o, sizeof sub - o, "%lld:%lld:%lld", (long long)lo, (long long)hi, (long long)step);
        add_stmt(c, id, fmt("%s = %s[%s]", name, a->name, sub));
      } else if (kind == 1) { /* flip one dim or two */
        int e = rint_(r, a->ndim);
        if (e == d || rchance(r, 50)) add_stmt(c, id, fmt("%s = %s.flip(%d)", name, a->name, rchance(r, 30) ? d - a->ndim : d));
        else add_stmt(c, id, fmt("%s = torch.flip(%s, (%d, %d))", name, a->name, d, e - a->ndim));
      } else { /* roll along a dim, two dims or the flattened tensor */
        int64_t k = (int64_t)rint_(r, (int)(4 * s + 1)) - 2 * s;
        int e = rint_(r, a->ndim);
        if (rchance(r, 25)) add_stmt(c, id, fmt("%s = torch.roll(%s, %lld)", name, a->name, (long long)(k * 3 + 1)));
        else if (e != d && rchance(r, 40))
          add_stmt(c, id, fmt("%s = %s.roll((%lld, %d), (%d, %d))", name, a->name, (long long)k, 1 + rint_(r, 3), d, e - a->ndim));
        else add_stmt(c, id, fmt("%s = torch.roll(%s, %lld, %d)", name, a->name, (long long)k, rchance(r, 30) ? d - a->ndim : d));
      }
      new_var(c, a->dt, a->ndim, shape);
      return true;
    }
    if (a->ndim >= 1 && rchance(r, 25)) {
      int d = rint_(r, a->ndim);
      int64_t s = a->shape[d];
      if (s < 2) return false;
      int64_t start = rint_(r, (int)s), len = 1 + rint_(r, (int)(s - start));
      memcpy(shape, a->shape, sizeof shape);
      shape[d] = len;
      if (rchance(r, 50)) {
        /* the same box as a subscript: ':' for the dims before d, then lo:hi */
        char sub[64] = "";
        size_t o = 0;
        for (int i = 0; i < d; i++) o += (size_t)snprintf(sub + o, sizeof sub - o, ":, ");
        snprintf(sub + o, sizeof sub - o, "%lld:%lld", (long long)(rchance(r, 30) ? start - s : start),
                 (long long)(start + len));
        add_stmt(c, id, fmt("%s = %s[%s]", name, a->name, sub));
      } else {
        add_stmt(c, id, fmt("%s = %s.narrow(%d, %lld, %lld)", name, a->name, rchance(r, 30) ? d - a->ndim : d,
                            (long long)(rchance(r, 30) ? start - s : start), (long long)len));
      }
      new_var(c, a->dt, a->ndim, shape);
      return true;
    }
    if (a->ndim >= 2 && rchance(r, 50)) {
      int d = rint_(r, a->ndim - 1);
      int64_t ns[5];
      int n = 0;
      for (int i = 0; i < a->ndim; i++) {
        if (i == d + 1) ns[n - 1] *= a->shape[i];
        else ns[n++] = a->shape[i];
      }
      char st[64];
      shape_text(st, sizeof st, n, ns);
      add_stmt(c, id, fmt("%s = %s.reshape(%s%s)", name, a->name, st, n == 1 ? "," : ""));
      new_var(c, a->dt, n, ns);
      return true;
    }
    if (a->ndim >= 5) return false;
    for (int d = 0; d < a->ndim; d++) {
      int64_t s = a->shape[d];
      for (int64_t f = 2; f < s; f++)
        if (s % f == 0) {
          int64_t ns[5];
          int n = 0;
          for (int i = 0; i < a->ndim; i++) {
            if (i == d) { ns[n++] = f; ns[n++] = s / f; }
            else ns[n++] = a->shape[i];
          }
          char st[64];
          shape_text(st, sizeof st, n, ns);
          add_stmt(c, id, fmt("%s = %s.view(%s)", name, a->name, st));
          new_var(c, a->dt, n, ns);
          return true;
        }
    }
    return false;
  }
  case 7: case 8: { /* reduction */
    if (a->ndim == 0) return false;
    static const char *ops[] = {"sum", "mean", "amax", "amin", "prod", "var", "std"};
    int k = rint_(r, 7);
    if (!fl && (k == 1 || k >= 5)) k = 0;
    if (k >= 5 && a->summed) k = 1; /* see Var.summed */
    uint32_t mask = 0;
    if (k == 4) mask = 1u << rint_(r, a->ndim);
    else while (!mask) mask = (uint32_t)rint_(r, 1 << a->ndim);
    bool keep = rchance(r, 40);
    char dims[64] = "";
    size_t o = 0;
    int nd = 0, count = 0;
    int64_t ns[5];
    for (int d = 0; d < a->ndim; d++) {
      if (mask >> d & 1) {
        o += (size_t)snprintf(dims + o, sizeof dims - o, "%s%d", count++ ? ", " : "", rchance(r, 30) ? d - a->ndim : d);
        if (keep) ns[nd++] = 1;
      } else {
        ns[nd++] = a->shape[d];
      }
    }
    if ((ops[k][0] == 'a') && numel(a) == 0) return false;
    const char *src = a->name;
    char *expr;
    if (k == 4) expr = fmt("%s.tanh().prod(%s, keepdim=%s)", src, dims, keep ? "True" : "False");
    else if ((k == 0 || k == 2 || k == 3) && rchance(r, 20))
      expr = fmt("torch.%s(%s, dim=(%s,), keepdim=%s)", ops[k], src, dims, keep ? "True" : "False");
    else if (k == 0 || k == 2 || k == 3)
      expr = fmt("%s.%s(dim=(%s,), keepdim=%s)", src, ops[k], dims, keep ? "True" : "False");
    else if (k >= 5) expr = fmt("%s.%s(dim=(%s,), correction=%d, keepdim=%s)", src, ops[k], dims, rint_(r, 2), keep ? "True" : "False");
    else expr = fmt("%s.mean(dim=(%s,), keepdim=%s)", src, dims, keep ? "True" : "False");
    add_stmt(c, id, fmt("%s = %s", name, expr));
    free(expr);
    DType dt = a->dt;
    if ((k == 0 || k == 4) && !fl) dt = DT_I64;
    if (k == 4 && !fl) dt = a->dt; /* tanh of an int gives f32 */
    if (k == 4 && !fl) dt = DT_F32;
    Var *v = new_var(c, dt, nd, ns);
    v->summed = dtype_is_float(dt) && k != 2 && k != 3;
    v->inexact = v->summed;
    return true;
  }
  case 9: { /* normalise over a dim: needs a reduction broadcast back */
    if (!fl || a->ndim == 0) return false;
    int d = rint_(r, a->ndim);
    int form = rint_(r, 3);
    if (form == 0) add_stmt(c, id, fmt("%s = (%s - %s.amax(%d, keepdim=True)).exp()", name, a->name, a->name, d));
    else if (form == 1) add_stmt(c, id, fmt("%s = %s / (%s.abs().sum(%d, keepdim=True) + 1)", name, a->name, a->name, d));
    /* A layer: stacked, each one's mean needs every layer before it
     * (recompute.c keeps some in buffers). */
    else add_stmt(c, id, fmt("%s = %s + torch.tanh(%s - %s.mean(%d, keepdim=True))", name, a->name, a->name, a->name, d));
    new_var(c, a->dt, a->ndim, shape)->inexact = true;
    return true;
  }
  case 10: { /* indexed reads and sums at indices, with indices computed in the kernel (always in range) */
    if (a->ndim == 0 || numel(a) == 0) return false;
    int d = rint_(r, a->ndim);
    int64_t n = a->shape[d];
    if (rchance(r, 60)) {
      /* gather at indices drawn from a's own values (NaN and inf made 0 and 1e6) */
      add_stmt(c, id, fmt("%s = %s.gather(%d, torch.nan_to_num(%s.float().abs() * 7, 0.0, 1e6, 0.0).long() %% %lld)", name, a->name,
                          rchance(r, 30) ? d - a->ndim : d, a->name, (long long)n));
      new_var(c, a->dt, a->ndim, shape);
      return true;
    }
    if (a->dt == DT_BOOL) return false;
    /* index_add of a's first m slices along d at repeating positions */
    int64_t m = 1 + rint_(r, (int)(n < 7 ? n : 7));
    add_stmt(c, id, fmt("%s = %s.index_add(%d, (torch.arange(%lld) * 3 + 1) %% %lld, %s.narrow(%d, 0, %lld) * 2)", name, a->name, d,
                        (long long)m, (long long)n, a->name, d, (long long)m));
    new_var(c, a->dt, a->ndim, shape);
    return true;
  }
  default: { /* comparison and where */
    if (a->dt == DT_BOOL) return false;
    int bi = pick_broadcastable(r, c, a);
    if (bi < 0 || c->vars[bi].dt == DT_BOOL) return false;
    const Var *b = &c->vars[bi];
    DType dt = bin_dtype(a, b, false);
    /* The threshold is not 0: a value that is exactly 0 mathematically (the
     * std of a broadcast constant) comes out as 0 or as rounding noise
     * depending on the summation order, and where() would turn that into
     * an O(1) difference (fuzz seed 1007, case 1104). */
    add_stmt(c, id, fmt("%s = torch.where(%s > 0.25, %s, %s)", name, a->name, a->name, b->name));
    new_var(c, dt, a->ndim, shape)->inexact = b->inexact;
    return true;
  }
  }
}

/* One random statement; the new value inherits Var.summed from its operand. */
static bool gen_stmt(Rng *r, Case *c) {
  int nvars = c->nvars, src = 0;
  if (!gen_op(r, c, &src)) return false;
  if (c->nvars > nvars) c->vars[c->nvars - 1].summed |= c->vars[src].summed;
  if (c->nvars > nvars) c->vars[c->nvars - 1].inexact |= c->vars[src].inexact;
  return true;
}

static void gen_case(Rng *r, Case *c, int index) {
  memset(c, 0, sizeof *c);
  snprintf(c->fn, sizeof c->fn, "fuzz%d", index);
  c->ninputs = 1 + rint_(r, 3);
  for (int i = 0; i < c->ninputs; i++) {
    int nd = rint_(r, 6);
    int64_t shape[5];
    int64_t total = 1;
    for (int d = 0; d < nd; d++) {
      shape[d] = fuzz_large ? LARGE_SIZES[rint_(r, 10)] : SIZES[rint_(r, 10)];
      if (total * shape[d] > (fuzz_large ? MAX_NUMEL_LARGE : MAX_NUMEL)) shape[d] = 1;
      total *= shape[d];
    }
    /* Later inputs often take a suffix of the first's shape, to broadcast. */
    if (i > 0 && rchance(r, 60)) {
      const Var *f = &c->vars[0];
      nd = f->ndim ? rint_(r, f->ndim + 1) : 0;
      for (int d = 0; d < nd; d++) shape[d] = rchance(r, 25) ? 1 : f->shape[f->ndim - nd + d];
    }
    new_var(c, rand_dtype(r), nd, shape);
  }
  int want = 2 + rint_(r, 7);
  for (int tries = 0; c->nstmts < want && tries < 100; tries++) gen_stmt(r, c);
  c->nouts = 1 + rint_(r, 3);
  for (int k = 0; k < c->nouts; k++) c->outs[k] = c->nvars - 1 - rint_(r, c->nvars > c->ninputs + 2 ? 3 : 1);
  /* Arg-reductions come after the rest, from the same stream, so a seed's
   * other statements and outputs stay what they were (the reproducers
   * named in docs/testing.md, and the suite's tallies): a third of the
   * cases gain one, of a value computed exactly, sometimes fed to one more
   * statement, as an extra output. */
  if (rchance(r, 35) && c->nvars < MAX_VARS - 1 && c->nstmts < MAX_STMTS - 1) {
    int cand[MAX_VARS], n = 0;
    for (int i = 0; i < c->nvars; i++)
      if (!c->vars[i].inexact && c->vars[i].ndim > 0) cand[n++] = i;
    char name[16];
    snprintf(name, sizeof name, "t%d", c->nvars);
    if (n && gen_argred(r, c, &c->vars[cand[rint_(r, n)]], c->nvars, name)) {
      if (rchance(r, 40)) gen_stmt(r, c);
      c->outs[c->nouts++] = c->nvars - 1;
    }
  }
  /* Scans likewise, after the arg-reductions: a quarter of the cases gain
   * one as an extra output. */
  if (rchance(r, 25) && c->nvars < MAX_VARS && c->nstmts < MAX_STMTS && c->nouts < 4) {
    char name[16];
    snprintf(name, sizeof name, "t%d", c->nvars);
    if (gen_scan(r, c, &c->vars[rint_(r, c->nvars)], c->nvars, name)) {
      c->outs[c->nouts++] = c->nvars - 1;
      c->scan = true;
    }
  }
  /* The families of gen_family last, likewise: two cases in five gain one
   * statement as an extra output (the suite's run time stays what it was
   * while each family still comes up dozens of times in 500 cases). */
  c->family = -1;
  if (rchance(r, 40) && c->nvars < MAX_VARS && c->nstmts < MAX_STMTS && c->nouts < 6 && (c->family = gen_family(r, c)) >= 0)
    c->outs[c->nouts++] = c->nvars - 1;
}

/* Python source; skip[i] drops statement i (for minimisation). */
static char *case_source(const Case *c, const bool *skip) {
  StrBuf sb = {0};
  sb_printf(&sb, "import torch\n%s\n\ndef %s(", c->family == FAM_ACTIVATION || c->family == FAM_LOSS ? "import torch.nn.functional as F\n" : "",
            c->fn);
  for (int i = 0; i < c->ninputs; i++) {
    const Var *v = &c->vars[i];
    char st[64];
    shape_text(st, sizeof st, v->ndim, v->shape);
    sb_printf(&sb, "%s%s: \"%s[%s]\"", i ? ", " : "", v->name, dtype_name(v->dt), st);
  }
  sb_puts(&sb, "):\n");
  for (int i = 0; i < c->nstmts; i++)
    if (!skip || !skip[i]) sb_printf(&sb, "    %s\n", c->stmts[i]);
  sb_puts(&sb, "    return ");
  for (int k = 0; k < c->nouts; k++) sb_printf(&sb, "%s%s", k ? ", " : "", c->vars[c->outs[k]].name);
  sb_puts(&sb, "\n");
  return sb.data;
}

static CoilErr *write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return coil_err("cannot write %s: %s", path, strerror(errno));
  fputs(text, f);
  if (fclose(f)) return coil_err("cannot write %s: %s", path, strerror(errno));
  return NULL;
}

/* Run one case in this process on target t: 0 pass, 1 mismatch.  cp is the
 * case compiled for the C target, whose kernels lib holds; another target
 * compiles the same file for itself first. */
static int run_case(const Compiled *c_compiled, JitLib *lib, const Target *target, uint64_t seed, char *why, size_t nwhy) {
  RunOptions ro = {.seed = seed, .equal_nan = true, .quiet = true};
  Tensors t = {0};
  Compiled own;
  bool has_own = target != &cpu_target;
  const Compiled *cp = c_compiled;
  CoilErr *e = NULL;
  if (has_own) {
    CompileOptions co = {.file = c_compiled->module.file, .fn = c_compiled->graph.fn_name, .target = target};
    e = compile_source(&co, &own);
    cp = &own;
  }
  if (!e) e = run_make_inputs(cp, &ro, &t);
  if (!e && has_own) {
    for (int i = 0; i < cp->program.nbufs; i++)
      if (cp->program.bufs[i].kind != BUF_INPUT)
        memset(t.bufs[i], 0xff, (size_t)cp->program.bufs[i].numel * (size_t)dtype_size(cp->program.bufs[i].dtype));
    e = target->run(&own, t.bufs, NULL);
  } else if (!e) {
    e = run_kernels(cp, lib, &t);
  }
  if (e) {
    snprintf(why, nwhy, "[%s] %s", target->name, e->msg);
    coil_err_free(e);
    tensors_free(&t);
    if (has_own) compiled_free(&own);
    return 1;
  }
  /* The fuzzer's own test: COIL_FUZZ_SELFTEST corrupts every output, so
   * tests/suites/fuzz.sh can check that a mismatch is caught and written. */
  if (getenv("COIL_FUZZ_SELFTEST"))
    for (int i = 0; i < cp->program.nbufs; i++)
      if (cp->program.bufs[i].kind == BUF_OUTPUT && cp->program.bufs[i].numel)
      {
        /* the first element's top byte (a NaN's exponent too: a NaN stays
         * one under a low byte's change), or a bool's value */
        DType dt = cp->program.bufs[i].dtype;
        if (dt == DT_BOOL) ((unsigned char *)t.bufs[i])[0] ^= 1;
        else ((unsigned char *)t.bufs[i])[dtype_size(dt) - 1] ^= 0x5a;
      }
  const Graph *g = &cp->graph;
  void **inputs = calloc((size_t)g->ninputs + 1, sizeof(void *));
  for (int i = 0; i < cp->program.nbufs; i++)
    if (cp->program.bufs[i].kind == BUF_INPUT) inputs[cp->program.bufs[i].index] = t.bufs[i];
  RV **ref = calloc((size_t)g->noutputs, sizeof(RV *)), **ref64 = calloc((size_t)g->noutputs, sizeof(RV *));
  RefCasts casts = target->casts;
  CoilErr *re = ref_run(g, inputs, false, casts, ref);
  if (!re) re = ref_run(g, inputs, true, casts, ref64);
  if (re) { /* the kernels ran where the reference found an index out of range */
    snprintf(why, nwhy, "[%s] the kernels ran, the reference: %s", target->name, re->msg);
    coil_err_free(re);
    for (int k = 0; k < g->noutputs; k++) free(ref[k]), free(ref64[k]);
    free(ref), free(ref64), free(inputs);
    tensors_free(&t);
    if (has_own) compiled_free(&own);
    return 1;
  }
  int64_t *memo = calloc((size_t)g->nnodes, sizeof(int64_t));
  int status = 0;
  for (int i = 0; i < cp->program.nbufs && !status; i++) {
    const Buffer *b = &cp->program.bufs[i];
    if (b->kind != BUF_OUTPUT) continue;
    double rtol, atol;
    default_tolerance(b->dtype, &rtol, &atol);
    atol *= sqrt((double)reduction_length(b->node, memo));
    /* Pointwise chains may differ by an ulp of a transcendental per step. */
    rtol *= 4;
    atol *= 4;
    CheckStats cs;
    if (check_output(b, t.bufs[i], ref[b->index], ref64[b->index], rtol, atol, true, true, &cs)) {
      bool fl = dtype_is_float(b->dtype);
      snprintf(why, nwhy, "[%s] out%d: %lld of %lld elements differ; first at %lld: got %.9g, expected %.9g", target->name, b->index,
               (long long)cs.bad, (long long)b->numel, (long long)cs.first, run_load_value(b->dtype, t.bufs[i], cs.first),
               fl ? ref[b->index][cs.first].f : (double)ref[b->index][cs.first].i);
      status = 1;
    }
  }
  for (int k = 0; k < g->noutputs; k++) { free(ref[k]); free(ref64[k]); }
  free(ref); free(ref64); free(inputs); free(memo);
  tensors_free(&t);
  if (has_own) compiled_free(&own);
  return status;
}

/* Compile and run one source file in a child process.  0 pass, 1 fail
 * (why filled), 2 coil rejected it. */
static const Target *targets[3];
static int ntargets;

static int check_file(const char *path, uint64_t seed, char *why, size_t nwhy) {
  int fds[2];
  if (pipe(fds)) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char msg[2048] = "";
    CompileOptions co = {.file = path, .target = &cpu_target};
    Compiled cp;
    CoilErr *e = compile_source(&co, &cp);
    int st = 0;
    JitLib lib = {0};
    if (e) { snprintf(msg, sizeof msg, "coil rejected the function: %s", e->msg); st = 2; }
    else if ((e = jit_compile(cp.code.data, &lib))) { snprintf(msg, sizeof msg, "%s", e->msg); st = 1; }
    else
      for (int k = 0; k < ntargets && !st; k++) st = run_case(&cp, &lib, targets[k], seed, msg, sizeof msg);
    if (write(fds[1], msg, strlen(msg)) < 0) st = 1;
    _exit(st);
  }
  close(fds[1]);
  ssize_t n = read(fds[0], why, nwhy - 1);
  why[n > 0 ? n : 0] = 0;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    snprintf(why, nwhy, "crashed with signal %d", WTERMSIG(status));
    return 1;
  }
  return WEXITSTATUS(status);
}

/* Drop statements one at a time while the case still fails the same way. */
static char *minimise(const Case *c, const char *dir, uint64_t seed, int fail_kind) {
  bool skip[MAX_STMTS] = {0};
  char path[4096], why[2048];
  snprintf(path, sizeof path, "%s/minimise.py", dir);
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = c->nstmts - 1; i >= 0; i--) {
      if (skip[i]) continue;
      bool used_by_output = false;
      for (int k = 0; k < c->nouts; k++) used_by_output |= c->outs[k] == c->stmt_var[i];
      if (used_by_output) continue;
      skip[i] = true;
      char *src = case_source(c, skip);
      CoilErr *e = write_text(path, src);
      free(src);
      if (e) { coil_err_free(e); skip[i] = false; continue; }
      if (check_file(path, seed, why, sizeof why) == fail_kind) progress = true;
      else skip[i] = false;
    }
  }
  unlink(path);
  return case_source(c, skip);
}

static bool fuzz_verbose; /* -v: a line per case */

/* What a run covered: cases passed, and the CPU plans they exercised
 * (chains of kernels, reductions split across threads, nodes kept in
 * buffers so kernels stop recomputing them). */
typedef struct FuzzTally {
  long passed, row_chains, col_chains, split_kernels, kept, indexed, indexed_stores, scans;
  long families[NFAMILIES]; /* cases with a statement of each family */
} FuzzTally;

/* One worker's share of a run: the batches base = worker, worker + jobs, ...
 * (in units of batch).  Case i is generated from (seed, i) alone, so the
 * split does not change which functions are tested. */
static int fuzz_worker(uint64_t seed, long count, long batch, double seconds, const char *out, const char *dir,
                       int worker, int jobs, FuzzTally *tally) {
  double t0 = coil_now_ms();
  long passed = 0;
  int failed = 0;
  for (long base = (long)worker * batch; base < count && !failed; base += batch * jobs) {
    if (seconds > 0 && coil_now_ms() - t0 > seconds * 1e3) break; /* --seconds: stop between batches */
    long n = count - base < batch ? count - base : batch;
    Case *cases = calloc((size_t)n, sizeof(Case));
    Compiled *cps = calloc((size_t)n, sizeof(Compiled));
    bool *ok = calloc((size_t)n, 1);
    StrBuf lib_src = {0};
    emit_c_prelude(&lib_src);
    for (long j = 0; j < n && !failed; j++) {
      Rng r = {seed * 1000003u + (uint64_t)(base + j)};
      gen_case(&r, &cases[j], (int)(base + j));
      char *src = case_source(&cases[j], NULL);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.py", dir, cases[j].fn);
      CoilErr *e = write_text(path, src);
      free(src);
      CompileOptions co = {.file = path, .target = &cpu_target};
      if (!e) e = compile_source(&co, &cps[j]);
      if (e) {
        printf("case %ld (seed %llu): coil rejected a generated function:\n%s\n", base + j, (unsigned long long)seed, e->msg);
        coil_err_free(e);
        failed = 1;
        char *m = case_source(&cases[j], NULL);
        char rp[4200];
        snprintf(rp, sizeof rp, "%s/fuzz_%llu_%ld.py", out, (unsigned long long)seed, base + j);
        coil_err_free(write_text(rp, m));
        printf("reproducer: %s\n", rp);
        free(m);
        break;
      }
      const CpuPlan *plan = cpu_plan(&cps[j]);
      emit_c_kernels(&lib_src, &plan->program, plan->sched, &plan->chains);
      ok[j] = true;
      for (int h = 0; h < plan->chains.n; h++)
        if (plan->chains.chain[h].n > 1) plan->chains.chain[h].ctile ? tally->col_chains++ : tally->row_chains++;
      for (int k = 0; k < plan->program.nkernels; k++) tally->split_kernels += plan->sched[k].nsplit > 1;
      const Fusion *fu = &cps[j].fusion;
      for (int b = 0; b < fu->nbufs; b++) tally->kept += fu->bufs[b].kind == BUF_TEMP && fu->kept && fu->kept[fu->bufs[b].node->id];
      for (int k = 0; k < plan->program.nkernels; k++) {
        for (int i = 0; i < plan->program.kernels[k].nvals; i++) tally->indexed += plan->program.kernels[k].vals[i].op == OP_GATHER;
        for (int i = 0; i < plan->program.kernels[k].nstores; i++) tally->indexed_stores += plan->program.kernels[k].stores[i].indexed;
      }
      tally->scans += cases[j].scan;
      if (cases[j].family >= 0) tally->families[cases[j].family]++;
    }
    JitLib lib = {0};
    CoilErr *e = failed ? NULL : jit_compile(lib_src.data, &lib);
    if (e) {
      /* Find the case the C compiler rejects, and report it alone. */
      coil_err_free(e);
      failed = 1;
      for (long j = 0; j < n; j++) {
        if (!ok[j]) continue;
        StrBuf one = {0};
        emit_c_prelude(&one);
        const CpuPlan *plan = cpu_plan(&cps[j]);
        emit_c_kernels(&one, &plan->program, plan->sched, &plan->chains);
        JitLib l1 = {0};
        CoilErr *e1 = jit_compile(one.data, &l1);
        sb_free(&one);
        jit_close(&l1);
        if (!e1) continue;
        printf("case %ld (seed %llu): generated C does not compile:\n%s\n", base + j, (unsigned long long)seed, e1->msg);
        coil_err_free(e1);
        char *m = minimise(&cases[j], dir, seed + (uint64_t)(base + j), 1);
        char rp[4200];
        snprintf(rp, sizeof rp, "%s/fuzz_%llu_%ld.py", out, (unsigned long long)seed, base + j);
        coil_err_free(write_text(rp, m));
        printf("reproducer (minimised): %s\n%s", rp, m);
        free(m);
        break;
      }
    }
    for (long j = 0; j < n && !failed; j++) {
      if (!ok[j]) continue;
      char why[2048] = "";
      fflush(stdout);
      int fds[2];
      if (pipe(fds)) { failed = 1; break; }
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        int st = 0;
        for (int k = 0; k < ntargets && !st; k++) st = run_case(&cps[j], &lib, targets[k], seed + (uint64_t)(base + j), why, sizeof why);
        if (write(fds[1], why, strlen(why)) < 0) st = 1;
        _exit(st);
      }
      close(fds[1]);
      ssize_t got = read(fds[0], why, sizeof why - 1);
      why[got > 0 ? got : 0] = 0;
      close(fds[0]);
      int status;
      waitpid(pid, &status, 0);
      int kind = WIFSIGNALED(status) ? 1 : WEXITSTATUS(status);
      if (WIFSIGNALED(status)) snprintf(why, sizeof why, "crashed with signal %d", WTERMSIG(status));
      if (fuzz_verbose) printf("case %ld: %s\n", base + j, kind ? why : "ok");
      if (!kind) { passed++; continue; }
      failed = 1;
      printf("case %ld (seed %llu): %s\n", base + j, (unsigned long long)seed, why);
      char *m = minimise(&cases[j], dir, seed + (uint64_t)(base + j), kind);
      char rp[4200];
      snprintf(rp, sizeof rp, "%s/fuzz_%llu_%ld.py", out, (unsigned long long)seed, base + j);
      coil_err_free(write_text(rp, m));
      printf("reproducer (minimised): %s\n%s", rp, m);
      free(m);
    }
    jit_close(&lib);
    sb_free(&lib_src);
    for (long j = 0; j < n; j++) {
      if (ok[j]) compiled_free(&cps[j]);
      for (int s = 0; s < cases[j].nstmts; s++) free(cases[j].stmts[s]);
    }
    free(cases); free(cps); free(ok);
  }
  tally->passed = passed;
  return failed;
}

static const char FUZZ_HELP[] =
    "usage: coil fuzz [--seed S] [--count N] [--seconds T] [--target c|triton-npu|triton-gpu|all]\n"
    "                 [--out DIR] [--batch B] [--jobs J] [--large] [-v]\n"
    "\n"
    "Generates N random functions in coil's subset (default 200), compiles each, runs it and\n"
    "compares it with the eager reference.  A mismatch, a crash, or coil rejecting a valid\n"
    "function writes a minimised reproducer DIR/fuzz_SEED_I.py (default DIR: .) and exits 1.\n"
    "Cases are compiled in batches of B (default 40) so the C compiler runs once per batch;\n"
    "--seconds stops between batches once T seconds have passed.  --jobs runs J worker\n"
    "processes (default 1), each taking every J-th batch: case I is the same function\n"
    "whatever J is, so a failure reproduces with --jobs 1.  --large draws sizes up to 4100\n"
    "and inputs up to 2^20 elements, where the CPU schedule chains kernels (row and column\n"
    "chains) and splits reductions; the same seed gives other functions than without it.\n"
    "The Triton targets run the emitted module through coil's Triton executor.\n";

int fuzz_main(int argc, char **argv) {
  uint64_t seed = 1;
  long count = 200, batch = 40, jobs = 1;
  double seconds = 0; /* 0: no time limit */
  const char *out = ".", *target = "c";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(FUZZ_HELP, stdout); return 0; }
    if (!strcmp(a, "-v")) { fuzz_verbose = true; continue; }
    if (!strcmp(a, "--large")) { fuzz_large = true; continue; }
    if (!v) { fprintf(stderr, "coil fuzz: %s needs a value\n%s", a, FUZZ_HELP); return 2; }
    char *end = NULL;
    if (!strcmp(a, "--seed")) seed = strtoull(v, &end, 10);
    else if (!strcmp(a, "--count")) count = strtol(v, &end, 10);
    else if (!strcmp(a, "--batch")) batch = strtol(v, &end, 10);
    else if (!strcmp(a, "--jobs")) jobs = strtol(v, &end, 10);
    else if (!strcmp(a, "--seconds")) seconds = strtod(v, &end);
    else if (!strcmp(a, "--out")) out = v;
    else if (!strcmp(a, "--target")) target = v;
    else { fprintf(stderr, "coil fuzz: unknown option %s\n%s", a, FUZZ_HELP); return 2; }
    if (end && *end) { fprintf(stderr, "coil fuzz: %s needs a number, got '%s'\n", a, v); return 2; }
    i++;
  }
  if (!strcmp(target, "all")) {
    targets[0] = target_find("c"), targets[1] = target_find("triton-npu"), targets[2] = target_find("triton-gpu");
    ntargets = 3;
  } else if (target_find(target)) {
    targets[0] = target_find(target);
    ntargets = 1;
  } else {
    fprintf(stderr, "coil fuzz: unknown target '%s' (targets: c, triton-npu, triton-gpu, all)\n", target);
    return 2;
  }
  if (count < 1 || batch < 1) { fprintf(stderr, "coil fuzz: --count and --batch must be positive\n"); return 2; }
  if (jobs < 1 || jobs > 64) { fprintf(stderr, "coil fuzz: --jobs must be between 1 and 64\n"); return 2; }
  if (mkdir(out, 0755) && errno != EEXIST) { fprintf(stderr, "coil fuzz: cannot create %s: %s\n", out, strerror(errno)); return 2; }
  char dir[] = "/tmp/coil-fuzz-XXXXXX";
  if (!mkdtemp(dir)) { fprintf(stderr, "coil fuzz: cannot create a temporary directory\n"); return 2; }
  double t0 = coil_now_ms();
  FuzzTally tally = {0};
  int failed = 0;
  if (jobs == 1) {
    failed = fuzz_worker(seed, count, batch, seconds, out, dir, 0, 1, &tally);
  } else {
    /* Each worker is a process (a case can crash its runner, and the JIT is
     * not shared); each reports its tally (cases passed, chains and splits compiled) through a pipe. */
    int fds[64];
    pid_t pids[64];
    fflush(stdout);
    for (int w = 0; w < jobs; w++) {
      int pfd[2];
      if (pipe(pfd)) { fprintf(stderr, "coil fuzz: pipe: %s\n", strerror(errno)); return 2; }
      pids[w] = fork();
      if (pids[w] == 0) {
        close(pfd[0]);
        FuzzTally t = {0};
        int f = fuzz_worker(seed, count, batch, seconds, out, dir, w, jobs, &t);
        fflush(stdout);
        _exit(write(pfd[1], &t, sizeof t) == (ssize_t)sizeof t ? f : 1);
      }
      close(pfd[1]);
      fds[w] = pfd[0];
      if (pids[w] < 0) { fprintf(stderr, "coil fuzz: fork: %s\n", strerror(errno)); return 2; }
    }
    for (int w = 0; w < jobs; w++) {
      FuzzTally t = {0};
      if (read(fds[w], &t, sizeof t) == (ssize_t)sizeof t) {
        tally.passed += t.passed, tally.row_chains += t.row_chains, tally.col_chains += t.col_chains;
        tally.split_kernels += t.split_kernels, tally.kept += t.kept, tally.indexed += t.indexed, tally.indexed_stores += t.indexed_stores;
        tally.scans += t.scans;
        for (int k = 0; k < NFAMILIES; k++) tally.families[k] += t.families[k];
      }
      close(fds[w]);
      int status;
      waitpid(pids[w], &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status)) failed++;
    }
  }
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {}
  printf("fuzz: %ld passed, %d failed (seed %llu, %.1f s; compiled: %ld row chains, %ld column chains, %ld split kernels, "
         "%ld kept buffers, %ld indexed loads, %ld indexed stores, %ld scans",
         tally.passed, failed, (unsigned long long)seed, (coil_now_ms() - t0) / 1e3, tally.row_chains, tally.col_chains,
         tally.split_kernels, tally.kept, tally.indexed, tally.indexed_stores, tally.scans);
  for (int k = 0; k < NFAMILIES; k++) printf(", %ld %s", tally.families[k], family_name[k]);
  printf(")\n");
  return failed ? 1 : 0;
}
