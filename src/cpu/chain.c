/* CPU chains: the program level of the CPU schedule.
 *
 * Consecutive kernels that share their first x axis (the rows), none split,
 * where every buffer one of them writes and a later one reads is written
 * and read a row at a time (row i's part of it lies in [c*i, c*i + c) for
 * both), run row by row in one parallel loop: each row's data is still in
 * cache when the next kernel of the chain reads it (softmax reads its input
 * once from memory, not three times).  Each kernel computes exactly what it
 * computes alone, in the same order; only the interleaving changes.
 *
 * Within a chain this pass also decides the row buffers (values computed
 * once and read back by a later kernel), which kernel prefetches the next
 * row, and which stores bypass the caches.  The C printer follows the plan;
 * `coil dump -d schedule` prints it after the kernels' schedules.
 *
 * Requires: simplified kernels with a CSched each.  Guarantees: the chains
 * cover the kernels in order, each kernel in exactly one chain. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"

enum { CHAIN_MIN_ROWS = 64 };

/* Does index e (of kernel k) keep row x0 of a buffer inside [c*x0, c*x0+c)?
 * *c is set from the first index seen and checked against later ones.
 * (outer: col_local's; a row is always its kernel's first x axis.) */
static bool row_local(Arena *a, const Kernel *k, bool outer, const IExpr *e, int64_t *c) {
  (void)outer;
  int x0 = k->x[0];
  int64_t coef = ix_coef(e, x0);
  if (coef <= 0 || ix_mentions_nonlinear(e, x0)) return false;
  if (*c && *c != coef) return false;
  int64_t lo, hi;
  ix_bounds(kernel_range(a, k), e, &lo, &hi);
  hi -= coef * (k->axes[x0].size - 1);
  if (lo < 0 || hi >= coef) return false;
  *c = coef;
  return true;
}

/* A kernel may run a row at a time unless it is split, or its rows are
 * the vectorised axis of a reduction (a column reduction would then walk
 * its columns one at a time), or it walks a tile of x points inside each
 * outer r point (sched.c's r_tile: its x points are not done one after
 * another). */
static bool row_kernel(const Kernel *k, const CSched *s) {
  return s->nsplit == 1 && k->nx && !(s->mode == VEC_X && k->nx == 1 && k->ngroups) && !(s->mode == VEC_R && s->xtile > 1);
}

/* Every buffer a kernel in [first, next) stores and kernel next reads is
 * handed over locally: each store and each read index passes local(),
 * which also checks they agree on the row's (or tile's) stride *c. */
typedef bool (*LocalFn)(Arena *a, const Kernel *k, bool outer, const IExpr *e, int64_t *c);

static bool handoffs_local(Arena *a, const Program *p, int first, int next, LocalFn local, bool outer) {
  const Kernel *kn = &p->kernels[next];
  for (int j = first; j < next; j++) {
    const Kernel *kp = &p->kernels[j];
    for (int st = 0; st < kp->nstores; st++) {
      int buf = kp->stores[st].buf;
      int64_t c = 0;
      bool read = false;
      for (int i = 0; i < kn->nvals; i++) {
        if (kn->vals[i].op != OP_INPUT || kn->vals[i].buf != buf) continue;
        read = true;
        if (!local(a, kn, outer, kn->vals[i].index, &c)) return false;
      }
      if (!read) continue;
      for (int t = 0; t < kp->nstores; t++)
        if (kp->stores[t].buf == buf && !local(a, kp, outer, kp->stores[t].index, &c)) return false;
    }
  }
  return true;
}

static bool can_chain(Arena *a, const Program *p, const CSched *s, int first, int next) {
  const Kernel *kn = &p->kernels[next];
  if (!row_kernel(kn, &s[next])) return false;
  const Kernel *k0 = &p->kernels[first];
  int64_t rows = k0->axes[k0->x[0]].size;
  if (kn->axes[kn->x[0]].size != rows || rows < CHAIN_MIN_ROWS) return false;
  return handoffs_local(a, p, first, next, row_local, false);
}

/* Column chains.  Kernels that reduce over an outer axis and vectorise
 * their innermost x axis (softmax over the channels of NCHW: the max over
 * c, the sum of exp over c, then the division, for every (n, hw)) read the
 * whole input once each, from memory: there is no row to keep in cache.
 * When they share that innermost axis (and their first x axis, where the
 * first kernel has two), and every buffer one of them writes and a later
 * one reads is indexed by those axes alone, they run a tile of ctile
 * columns at a time (every point of the reduction for ctile columns):
 * the tile is still in L2 when the next kernel reads it.  Each kernel
 * computes exactly what it computes alone, in the same order. */
enum { CTILE_BYTES = 256 << 10, CTILE_MIN = 64, CTILE_MAX = 2048 };

static int inner_x(const Kernel *k) { return k->x[k->nx - 1]; }

static bool col_kernel(const Kernel *k, const CSched *s) { return s->mode == VEC_X && k->nx >= 1; }

/* Is e exactly c * (first x axis) + (innermost x axis), or just the
 * innermost axis when !outer, with no other axis in it?  *c as in
 * row_local. */
static bool col_local(Arena *a, const Kernel *k, bool outer, const IExpr *e, int64_t *c) {
  (void)a; /* no constant, non-negative coefficients: the index starts at 0 */
  int xo = outer ? k->x[0] : -1, xi = inner_x(k);
  if (e->c != 0) return false;
  for (int ax = 0; ax < k->naxes; ax++) {
    if (ix_mentions_nonlinear(e, ax)) return false;
    int64_t coef = ix_coef(e, ax);
    if (ax == xi && coef != 1) return false;
    if (ax != xi && ax != xo && coef != 0) return false;
  }
  if (!outer) return true;
  int64_t coef = ix_coef(e, xo);
  if (coef < k->axes[xi].size || (*c && *c != coef)) return false;
  *c = coef;
  return true;
}

static bool can_col_chain(Arena *a, const Program *p, const CSched *s, int first, int next) {
  const Kernel *k0 = &p->kernels[first], *kn = &p->kernels[next];
  if (!col_kernel(kn, &s[next])) return false;
  bool outer = k0->nx == 2;
  if (kn->nx < k0->nx || kn->axes[inner_x(kn)].size != k0->axes[inner_x(k0)].size) return false;
  if (outer && kn->axes[kn->x[0]].size != k0->axes[k0->x[0]].size) return false;
  return handoffs_local(a, p, first, next, col_local, outer);
}

/* Bytes a kernel loads per column of the innermost axis: each load's
 * element size times the sizes of the axes it walks besides the chain's. */
static int64_t column_bytes(const Kernel *k, bool outer) {
  int64_t bytes = 0;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT) continue;
    int64_t n = dtype_size(v->dtype);
    for (int ax = 0; ax < k->naxes; ax++)
      if (ax != inner_x(k) && !(outer && ax == k->x[0]) && ix_mentions(v->index, ax)) n *= k->axes[ax].size;
    bytes += n;
  }
  return bytes;
}

/* The column tile: as many columns as keep the largest kernel's loads
 * within CTILE_BYTES, a power of two in [CTILE_MIN, CTILE_MAX] (or the
 * whole axis when shorter); 0 when not even CTILE_MIN fit. */
static int64_t column_tile(const Program *p, int first, int n) {
  const Kernel *k0 = &p->kernels[first];
  bool outer = k0->nx == 2;
  int64_t most = 1, inner = k0->axes[inner_x(k0)].size;
  for (int j = first; j < first + n; j++) {
    int64_t b = column_bytes(&p->kernels[j], outer);
    most = b > most ? b : most;
  }
  int64_t t = CTILE_MAX;
  while (t >= CTILE_MIN && t * most > CTILE_BYTES) t /= 2;
  if (t < CTILE_MIN) return 0;
  return inner < t ? inner : t;
}

/* Row buffers.  In a chain, a later kernel may recompute, for every
 * element of the row, a value an earlier row reduction already computed
 * element by element: softmax's division recomputes exp(x - max) of the
 * sum before it; in a stack of layer norms, each mean and variance
 * recomputes every earlier layer's output from x, so the work per element
 * grew with the square of the depth.  The earlier kernel then keeps the
 * value in a row buffer (one row, on the stack) and the later one, a
 * pointwise kernel along the row or a reduction of the row, reads it back:
 * the same value, computed once.  Two values are the same when their DAGs
 * match op for op and every load reads the same element once the later
 * kernel's axis along the row is mapped to the earlier kernel's reduction
 * axis.  Only values costly enough to be worth a load are kept: what the
 * later kernel would still compute for it (its cone, less what it reads
 * from row buffers already) costs at least a transcendental.  The largest
 * such value goes first, so one buffer replaces a whole cone. */
enum { ROW_BUF_MAX = 16384, ROW_BUF_MIN_COST = 16 };

/* A kernel of the chain whose values kernel jc may read back: its index,
 * how jc's axes map onto its own, and the values of jc found equal to one
 * of its own (same[j]: that value, or -1; allocated when first compared),
 * so that a DAG's shared values are compared once. */
typedef struct Source {
  int jp;
  IExpr **sub;
  int *same;
} Source;

static bool same_value(Arena *a, const Kernel *P, int i, const Kernel *C, int j, const Source *src, int *budget) {
  const KVal *u = &P->vals[i], *v = &C->vals[j];
  if (src->same[j] == i) return true;
  if (--*budget < 0) return false;
  if (u->op != v->op || u->dtype != v->dtype || u->cdtype != v->cdtype || u->narg != v->narg) return false;
  if (op_info[u->op].kind == OK_REDUCE) return false;
  bool eq = true;
  /* Constants by their bits: a NaN constant (torch.where(c, nan, x)) equals itself. */
  if (u->op == OP_CONST) eq = !memcmp(&u->fval, &v->fval, sizeof u->fval) && u->ival == v->ival;
  else if (u->op == OP_INPUT || u->op == OP_IOTA) eq = kval_same_access(a, kernel_range(a, C), u, v, src->sub);
  for (int t = 0; t < u->narg && eq; t++) eq = same_value(a, P, u->arg[t], C, v->arg[t], src, budget);
  if (eq) src->same[j] = i;
  return eq;
}

/* Values by their shape: a hash of a value's DAG that leaves out its
 * loads' indices, so that values same_value finds equal have equal shapes.
 * share_values compares a value only with the earlier kernels' values of
 * its shape: in a chain of 200 layers, comparing each with every value of
 * every earlier kernel took 46 s. */
typedef struct Shaped {
  uint64_t shape;
  int val;
} Shaped;

typedef struct Catalog {
  uint64_t **shape; /* per chain kernel, per value */
  Shaped **sorted;  /* per chain kernel, its values by shape */
} Catalog;

static int by_shape(const void *a, const void *b) {
  const Shaped *x = a, *y = b;
  return x->shape < y->shape ? -1 : x->shape > y->shape ? 1 : x->val - y->val;
}

static Catalog catalog(Arena *a, const Program *p, const CChain *ch) {
  Catalog c = {ARENA_ARRAY(a, uint64_t *, ch->n), ARENA_ARRAY(a, Shaped *, ch->n)};
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    uint64_t *h = c.shape[j] = ARENA_ARRAY(a, uint64_t, k->nvals + 1);
    Shaped *s = c.sorted[j] = ARENA_ARRAY(a, Shaped, k->nvals + 1);
    for (int i = 0; i < k->nvals; i++) {
      const KVal *v = &k->vals[i];
      uint64_t x = coil_mix64((uint64_t)v->op << 40 ^ (uint64_t)v->dtype << 24 ^ (uint64_t)v->cdtype << 8 ^ (uint64_t)v->narg);
      if (v->op == OP_CONST) {
        uint64_t bits;
        memcpy(&bits, &v->fval, sizeof bits);
        x = coil_mix64(coil_mix64(x ^ bits) ^ (uint64_t)v->ival);
      }
      if (v->op == OP_INPUT) x = coil_mix64(x ^ (uint64_t)v->buf);
      for (int t = 0; t < v->narg; t++) x = coil_mix64(x + h[v->arg[t]] * (uint64_t)(2 * t + 1));
      h[i] = x;
      s[i] = (Shaped){x, i};
    }
    qsort(s, (size_t)k->nvals, sizeof *s, by_shape);
  }
  return c;
}

/* The first of k's values (sorted by shape) with the given shape. */
static int first_of_shape(const Shaped *s, int n, uint64_t shape) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s[mid].shape < shape) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Kernel jc's axis along a row buffer, its length and the map from jc's
 * axes to jp's, when jp and jc qualify; else false. */
typedef bool (*MatchFn)(Arena *a, const Program *p, const CSched *sched, const CChain *ch, int jp, int jc, IExpr ***sub,
                        int *along, int64_t *n);

static bool row_reduction(const Kernel *k, const CSched *s) {
  return s->mode == VEC_R && k->ngroups == 1 && k->groups[0].naxes == 1 && k->nx == 1;
}

/* A row chain: jp reduces the row, jc is a pointwise kernel along the row
 * or a reduction of the row; the buffer holds the row. */
static bool match_rows(Arena *a, const Program *p, const CSched *sched, const CChain *ch, int jp, int jc, IExpr ***sub,
                       int *along, int64_t *n) {
  const Kernel *P = &p->kernels[ch->first + jp], *C = &p->kernels[ch->first + jc];
  const CSched *sc = &sched[ch->first + jc];
  if (!row_reduction(P, &sched[ch->first + jp])) return false;
  if (sc->mode == VEC_X && !C->ngroups && C->nx == 2) *along = C->x[1];
  else if (row_reduction(C, sc)) *along = C->groups[0].axes[0];
  else return false;
  int r = P->groups[0].axes[0];
  *n = P->axes[r].size;
  if (C->axes[*along].size != *n || *n > ROW_BUF_MAX) return false;
  *sub = ARENA_ARRAY(a, IExpr *, C->naxes + 1);
  (*sub)[C->x[0]] = ix_axis(a, P->x[0]);
  (*sub)[*along] = ix_axis(a, r);
  return true;
}

/* A column chain: jp reduces over one axis r (the sum of exp over the
 * channels), jc is a pointwise kernel whose middle x axis is r (the
 * division, for every channel) or a reduction over r like jp (the
 * variance after the mean).  The buffer holds the tile: r's points times
 * the tile's columns. */
enum { COL_BUF_MAX = 65536 };

static bool col_reduction(const Kernel *k, const CSched *s, int o) {
  return s->mode == VEC_X && k->ngroups == 1 && k->groups[0].naxes == 1 && k->nx == o + 1;
}

static bool match_cols(Arena *a, const Program *p, const CSched *sched, const CChain *ch, int jp, int jc, IExpr ***sub,
                       int *along, int64_t *n) {
  const Kernel *P = &p->kernels[ch->first + jp], *C = &p->kernels[ch->first + jc];
  const CSched *sc = &sched[ch->first + jc];
  int o = ch->outer ? 1 : 0;
  if (!col_reduction(P, &sched[ch->first + jp], o)) return false;
  if (sc->mode == VEC_X && !C->ngroups && C->nx == o + 2) *along = C->x[o];
  else if (col_reduction(C, sc, o)) *along = C->groups[0].axes[0];
  else return false;
  int r = P->groups[0].axes[0];
  *n = P->axes[r].size * ch->ctile;
  if (C->axes[*along].size != P->axes[r].size || *n > COL_BUF_MAX) return false;
  *sub = ARENA_ARRAY(a, IExpr *, C->naxes + 1);
  if (o) (*sub)[C->x[0]] = ix_axis(a, P->x[0]);
  (*sub)[*along] = ix_axis(a, r);
  (*sub)[C->x[C->nx - 1]] = ix_axis(a, P->x[o]);
  return true;
}

/* What computing value i costs k, counted up to limit: its cone, each
 * value once, less the values read from buffers. */
static int cone_cost(const Kernel *k, int i, const int *reuse, int *visit, int stamp, int limit) {
  if (visit[i] == stamp) return 0;
  visit[i] = stamp;
  if (reuse[i] >= 0) return 0;
  int c = op_cost(k->vals[i].op);
  for (int t = 0; t < k->vals[i].narg && c < limit; t++) c += cone_cost(k, k->vals[i].arg[t], reuse, visit, stamp, limit - c);
  return c;
}

/* A chain's buffers together stay within CHAIN_BUF_BYTES: they are
 * declared on each thread's stack (libgomp's threads get the process's
 * stack limit, often 8 MB, but as little as 2 MB where it is unlimited). */
enum { CHAIN_BUF_BYTES = 512 << 10 };

/* Bytes of one buffered value: its C compute type (bf16 and f16 compute
 * in float). */
static int64_t buf_elem_bytes(DType t) { return dtype_size(t) < 4 ? 4 : dtype_size(t); }

/* Buffers before they get their places (assign_slots): buffer b holds
 * value val[b] of chain kernel filler[b], n[b] of them, until kernel
 * last[b] has read it. */
typedef struct Pending {
  int n, cap;
  int *filler, *val, *last;
  int64_t *size;
} Pending;

static int pending_add(Arena *a, Pending *pb, int filler, int val, int64_t size) {
  if (pb->n == pb->cap) {
    int cap = pb->cap ? 2 * pb->cap : 16;
    int *f = ARENA_ARRAY(a, int, cap), *v = ARENA_ARRAY(a, int, cap), *l = ARENA_ARRAY(a, int, cap);
    int64_t *sz = ARENA_ARRAY(a, int64_t, cap);
    if (pb->n) {
      memcpy(f, pb->filler, sizeof(int) * (size_t)pb->n);
      memcpy(v, pb->val, sizeof(int) * (size_t)pb->n);
      memcpy(l, pb->last, sizeof(int) * (size_t)pb->n);
      memcpy(sz, pb->size, sizeof(int64_t) * (size_t)pb->n);
    }
    pb->filler = f, pb->val = v, pb->last = l, pb->size = sz, pb->cap = cap;
  }
  pb->filler[pb->n] = filler, pb->val[pb->n] = val, pb->last[pb->n] = filler, pb->size[pb->n] = size;
  return pb->n++;
}

/* Find the values of chain kernel jc that earlier kernels compute, element
 * for element once jc's axes are mapped onto theirs (match), and give each
 * a pending buffer.  A value of jc qualifies where it is computed per point
 * along the buffer's axis: in jc's reduction loop, or anywhere in a
 * pointwise jc.  Its largest values go first, the latest kernels first
 * (they have computed the most), so one buffer replaces a whole cone. */
static void share_values(Arena *a, const Program *p, const CSched *sched, CChain *ch, int jc, MatchFn match, const Catalog *cat,
                         Pending *pb) {
  const Kernel *C = &p->kernels[ch->first + jc];
  Source *src = ARENA_ARRAY(a, Source, jc);
  int nsrc = 0, along = -1;
  int64_t n = 0;
  for (int jp = jc - 1; jp >= 0; jp--) {
    Source *s = &src[nsrc];
    if (!match(a, p, sched, ch, jp, jc, &s->sub, &along, &n)) continue;
    s->jp = jp;
    s->same = NULL;
    nsrc++;
  }
  if (!nsrc) return;
  int *reuse = ch->reuse[jc];
  bool *varies = ARENA_ARRAY(a, bool, C->nvals + 1), *need = ARENA_ARRAY(a, bool, C->nvals + 1);
  int *visit = ARENA_ARRAY(a, int, C->nvals + 1);
  kernel_varies_along(C, along, varies);
  kernel_mark_needed(C, need, reuse);
  for (int j = C->nvals - 1; j >= 0; j--) {
    const KVal *v = &C->vals[j];
    if (op_info[v->op].kind == OK_LEAF || op_info[v->op].kind == OK_REDUCE || v->op == OP_CAST) continue;
    if (reuse[j] >= 0 || !need[j] || !varies[j] || (C->ngroups && v->scope != 0)) continue;
    if (cone_cost(C, j, reuse, visit, j + 1, ROW_BUF_MIN_COST) < ROW_BUF_MIN_COST) continue;
    uint64_t shape = cat->shape[jc][j];
    for (int t = 0; t < nsrc && reuse[j] < 0; t++) {
      const Kernel *P = &p->kernels[ch->first + src[t].jp];
      const Shaped *sorted = cat->sorted[src[t].jp];
      int *save = ch->save[src[t].jp];
      for (int at = first_of_shape(sorted, P->nvals, shape); at < P->nvals && sorted[at].shape == shape; at++) {
        int i = sorted[at].val, budget = 4096;
        if (P->vals[i].scope != 0) continue; /* in the reduction loop (so it varies along r) */
        if (!src[t].same) {
          src[t].same = ARENA_ARRAY(a, int, C->nvals + 1);
          for (int u = 0; u < C->nvals; u++) src[t].same[u] = -1;
        }
        if (!same_value(a, P, i, C, j, &src[t], &budget)) continue;
        if (save[i] < 0) save[i] = pending_add(a, pb, src[t].jp, i, n);
        reuse[j] = save[i];
        pb->last[save[i]] = jc;
        break;
      }
    }
    if (reuse[j] >= 0) kernel_mark_needed(C, need, reuse); /* j's cone is no longer computed here */
  }
}

/* Places for the pending buffers.  A place holds one buffer's values from
 * its filler until its last reader, then the next one's (kernels run in
 * chain order for each row or tile), so a stack of layer norms needs two
 * rows however deep it is.  Places live on the thread's stack, within
 * CHAIN_BUF_BYTES together; a buffer that finds none is dropped, and its
 * readers compute the value themselves. */
static void assign_slots(Arena *a, const Program *p, CChain *ch, const Pending *pb) {
  int *slot = ARENA_ARRAY(a, int, pb->n + 1), *order = ARENA_ARRAY(a, int, pb->n + 1);
  for (int b = 0; b < pb->n; b++) {
    int j = b;
    for (; j > 0 && pb->filler[order[j - 1]] > pb->filler[b]; j--) order[j] = order[j - 1];
    order[j] = b;
  }
  int busy_until[ROW_BUFS_MAX]; /* the last reader of the buffer a place holds */
  int64_t used = 0;
  ch->nbuf = 0;
  for (int o = 0; o < pb->n; o++) {
    int b = order[o];
    DType t = p->kernels[ch->first + pb->filler[b]].vals[pb->val[b]].dtype;
    slot[b] = -1;
    for (int s = 0; s < ch->nbuf && slot[b] < 0; s++)
      if (busy_until[s] < pb->filler[b] && ch->bufsize[s] == pb->size[b] && ch->buftype[s] == t) slot[b] = s;
    if (slot[b] < 0 && ch->nbuf < ROW_BUFS_MAX && used + pb->size[b] * buf_elem_bytes(t) <= CHAIN_BUF_BYTES) {
      slot[b] = ch->nbuf++;
      ch->bufsize[slot[b]] = pb->size[b];
      ch->buftype[slot[b]] = t;
      used += pb->size[b] * buf_elem_bytes(t);
    }
    if (slot[b] >= 0) busy_until[slot[b]] = pb->last[b];
  }
  for (int j = 0; j < ch->n; j++)
    for (int v = 0; v < p->kernels[ch->first + j].nvals; v++) {
      if (ch->save[j][v] >= 0) ch->save[j][v] = slot[ch->save[j][v]];
      if (ch->reuse[j][v] >= 0) ch->reuse[j][v] = slot[ch->reuse[j][v]];
    }
}

/* Row prefetch.  A chain reads a row from memory in its first kernel (a
 * max, a sum of squares: little arithmetic per byte), then works on it from
 * cache; while it computes, the memory system would idle.  So the kernel of
 * the chain with the most arithmetic per element prefetches the next row of
 * the first kernel's row loads, a little per iteration of its vector loop
 * (as much of the next row as its loop covers of this one; all at once
 * made softmax slower), and the first kernel then finds it in cache.
 * Needs: the first kernel reduces rows along one axis (VEC_R), the
 * prefetching one loops along a row of the same length (VEC_R over one
 * axis, or a VEC_X tile of the whole row). */
static int kernel_cost(const Kernel *k, const int *reuse) {
  int c = 0;
  for (int i = 0; i < k->nvals; i++)
    if (reuse[i] < 0) c += op_cost(k->vals[i].op); /* a reused value costs a load */
  return c;
}

static bool stores_buf(const Program *p, const CChain *ch, int buf) {
  for (int j = ch->first; j < ch->first + ch->n; j++)
    for (int t = 0; t < p->kernels[j].nstores; t++)
      if (p->kernels[j].stores[t].buf == buf) return true;
  return false;
}

static void plan_row_prefetch(const Program *p, const CSched *sched, CChain *ch) {
  const Kernel *k0 = &p->kernels[ch->first];
  RowPrefetch *pf = &ch->pf;
  if (sched[ch->first].mode != VEC_R || k0->ngroups != 1 || k0->groups[0].naxes != 1) return;
  int x0 = k0->x[0], inner = k0->groups[0].axes[0];
  *pf = (RowPrefetch){.inner = inner, .len = k0->axes[inner].size};
  for (int i = 0; i < k0->nvals && pf->n < PF_MAX; i++) {
    const KVal *v = &k0->vals[i];
    if (v->op != OP_INPUT || v->nguard || v->scope != 0 || stores_buf(p, ch, v->buf)) continue;
    if (ix_coef(v->index, inner) != 1 || ix_mentions_nonlinear(v->index, inner)) continue;
    if (ix_coef(v->index, x0) <= 0 || ix_mentions_nonlinear(v->index, x0)) continue;
    bool dup = false;
    for (int t = 0; t < pf->n; t++) dup |= pf->buf[t] == v->buf && ix_equal(pf->index[t], v->index);
    if (dup) continue;
    pf->buf[pf->n] = v->buf;
    pf->esize[pf->n] = dtype_size(v->dtype);
    pf->index[pf->n++] = v->index;
  }
  if (!pf->n) return;
  int best_cost = -1;
  for (int j = 1; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    const CSched *sj = &sched[ch->first + j];
    bool along = sj->mode == VEC_R ? k->ngroups == 1 && k->groups[0].naxes == 1 && k->axes[k->groups[0].axes[0]].size == pf->len
                                   : !k->ngroups && k->nx == 2 && k->axes[k->x[1]].size == pf->len && sj->xtile == pf->len;
    if (along && kernel_cost(k, ch->reuse[j]) > best_cost) ch->pf_kernel = j, best_cost = kernel_cost(k, ch->reuse[j]);
  }
}

/* Streaming stores.  A large output that no kernel of the program reads
 * back is written with stores that bypass the caches (coil_stream in the
 * C prelude): an ordinary store first reads the line it writes, so a
 * written-once output costs its size twice in memory traffic.  Measured on
 * the development machine (wall medians, both threads): softmax's 134 MB
 * output 9.3 instead of 10.6-11.8 ms, rms_norm's 8.8 instead of 11.1 ms.
 * Only in chains that prefetch their next row: without it rms_norm ran
 * 10% slower, its threads waiting for the streamed lines to leave before
 * reading on.  Only stores of a contiguous run along the vectorised x axis
 * of a tile of at least STREAM_MIN_RUN values, and buffers of at least
 * STREAM_MIN_BYTES (more than a last-level cache holds: a smaller output
 * may still be in cache when the caller reads it). */
enum { STREAM_MIN_BYTES = 32 << 20, STREAM_MIN_RUN = 256 };

static bool buffer_read(const Program *p, int buf) {
  for (int j = 0; j < p->nkernels; j++)
    for (int i = 0; i < p->kernels[j].nvals; i++)
      if (p->kernels[j].vals[i].op == OP_INPUT && p->kernels[j].vals[i].buf == buf) return true;
  return false;
}

static bool streams(const Program *p, const Kernel *k, const CSched *s, const KStore *st) {
  const Buffer *b = &p->bufs[st->buf];
  /* A chain kernel's vectorised x axis: its innermost x axis past the row. */
  int xin = s->mode == VEC_X && k->nx > 1 ? k->x[k->nx - 1] : -1;
  if (xin < 0 || s->xtile < STREAM_MIN_RUN || b->kind != BUF_OUTPUT) return false;
  if (ix_coef(st->index, xin) != 1 || ix_mentions_nonlinear(st->index, xin)) return false;
  if (b->numel * dtype_size(b->dtype) < STREAM_MIN_BYTES) return false;
  return !buffer_read(p, st->buf);
}

/* A chain runs its kernels' first x axis as the row loop; a kernel whose
 * only x axis that is has no vector loop over x left, so its x-loop
 * staging of f16 conversions (sched.c) goes. */
static void drop_row_staging(const Program *p, CSched *sched, const CChain *ch) {
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    CSched *s = &sched[ch->first + j];
    if (s->mode != VEC_X || k->nx != 1) continue;
    for (int i = 0; i < k->nvals; i++)
      if (k->vals[i].scope < 0) s->stage_load[i] = false;
    for (int t = 0; t < k->nstores; t++) s->stage_store[t] = false;
  }
}

/* A chain's per-kernel plan, empty: no buffers, no streamed stores; 128-bit
 * vectors when every kernel asks for them. */
static void start_plan(Arena *a, const Program *p, const CSched *sched, CChain *ch) {
  ch->save = ARENA_ARRAY(a, int *, ch->n);
  ch->reuse = ARENA_ARRAY(a, int *, ch->n);
  ch->stream = ARENA_ARRAY(a, bool *, ch->n);
  ch->narrow = true;
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    ch->save[j] = ARENA_ARRAY(a, int, k->nvals + 1);
    ch->reuse[j] = ARENA_ARRAY(a, int, k->nvals + 1);
    for (int i = 0; i <= k->nvals; i++) ch->save[j][i] = ch->reuse[j][i] = -1;
    ch->stream[j] = ARENA_ARRAY(a, bool, k->nstores + 1);
    ch->narrow &= sched[ch->first + j].narrow;
  }
}

static void plan_chain(Arena *a, const Program *p, CSched *sched, CChain *ch) {
  start_plan(a, p, sched, ch);
  if (ch->n == 1) return;
  const Kernel *k0 = &p->kernels[ch->first];
  drop_row_staging(p, sched, ch);
  ch->rows = k0->axes[k0->x[0]].size;
  Pending pb = {0};
  Catalog cat = catalog(a, p, ch);
  for (int jc = 1; jc < ch->n; jc++) share_values(a, p, sched, ch, jc, match_rows, &cat, &pb);
  assign_slots(a, p, ch, &pb);
  plan_row_prefetch(p, sched, ch);
  if (!ch->pf_kernel) return;
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    for (int s = 0; s < k->nstores; s++) ch->stream[j][s] = streams(p, k, &sched[ch->first + j], &k->stores[s]);
  }
}

/* Column prefetch.  As in a row chain, the first kernel reads the tile
 * from memory (a max: little arithmetic per byte) and the others work on
 * it from L2.  A pointwise kernel of the chain that walks the first
 * kernel's reduction axis as its middle x axis (softmax's division, once
 * per channel) prefetches the next step's tile while it computes: in each
 * chunk of its x loop, the same columns of the same reduction point of the
 * next tile.  Needs: the first kernel reduces one axis, its loads are
 * contiguous along the columns. */
static void plan_col_prefetch(const Program *p, const CSched *sched, CChain *ch) {
  const Kernel *k0 = &p->kernels[ch->first];
  int o = ch->outer ? 1 : 0;
  if (k0->ngroups != 1 || k0->groups[0].naxes != 1) return;
  int r = k0->groups[0].axes[0], xi = inner_x(k0);
  RowPrefetch pf = {.inner = xi, .len = ch->ctile, .raxis = r};
  for (int i = 0; i < k0->nvals && pf.n < PF_MAX; i++) {
    const KVal *v = &k0->vals[i];
    if (v->op != OP_INPUT || v->nguard || stores_buf(p, ch, v->buf)) continue;
    if (ix_coef(v->index, xi) != 1 || ix_mentions_nonlinear(v->index, xi) || !ix_mentions(v->index, r)) continue;
    pf.buf[pf.n] = v->buf;
    pf.esize[pf.n] = dtype_size(v->dtype);
    pf.index[pf.n++] = v->index;
  }
  if (!pf.n) return;
  for (int j = ch->n - 1; j >= 1; j--) {
    const Kernel *k = &p->kernels[ch->first + j];
    if (sched[ch->first + j].mode == VEC_X && !k->ngroups && k->nx == o + 2 && k->axes[k->x[o]].size == k0->axes[r].size) {
      ch->pf = pf;
      ch->pf_kernel = j;
      return;
    }
  }
}

/* The column chain from kernel i, if one of at least `least` kernels (and
 * two) exists, with a tile that fits and enough steps for the threads:
 * its length, and its tile in *ctile; else 0. */
static int col_chain(Arena *tmp, const Program *p, const CSched *sched, int i, int least, int64_t *ctile) {
  const Kernel *k = &p->kernels[i];
  if (!col_kernel(k, &sched[i]) || k->nx > 2) return 0;
  int m = 1;
  while (i + m < p->nkernels && can_col_chain(tmp, p, sched, i, i + m)) m++;
  if (m < least || m < 2) return 0;
  int64_t t = column_tile(p, i, m), rows = k->nx == 2 ? k->axes[k->x[0]].size : 1, inner = k->axes[inner_x(k)].size;
  if (!t || rows * ((inner + t - 1) / t) < CHAIN_MIN_ROWS) return 0;
  *ctile = t;
  return m;
}

/* A column chain: its kernels run unsplit, the tiles being the tasks;
 * buffers of a tile (match_cols); the next tile prefetched
 * (plan_col_prefetch); stores stream as in row chains. */
static void plan_col_chain(Arena *a, const Program *p, CSched *sched, CChain *ch, int64_t ctile) {
  const Kernel *k0 = &p->kernels[ch->first];
  start_plan(a, p, sched, ch);
  ch->ctile = ctile;
  ch->outer = k0->nx == 2;
  ch->rows = ch->outer ? k0->axes[k0->x[0]].size : 1;
  ch->inner = k0->axes[inner_x(k0)].size;
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[ch->first + j];
    CSched *s = &sched[ch->first + j];
    s->nsplit = 1;
    s->xtile = ctile;
    for (int g = 0; g < k->ngroups; g++) s->streams[g] = 1; /* runs side by side are a split part's */
    for (int t = 0; t < k->nstores; t++) ch->stream[j][t] = streams(p, k, s, &k->stores[t]);
  }
  Pending pb = {0};
  Catalog cat = catalog(a, p, ch);
  for (int jc = 1; jc < ch->n; jc++) share_values(a, p, sched, ch, jc, match_cols, &cat, &pb);
  assign_slots(a, p, ch, &pb);
  plan_col_prefetch(p, sched, ch);
}

/* Indexed loads and stores stay out of chains: a chain's kernels share one
 * function, its row and tile buffers match loads by their affine indices,
 * and an indexed store's adds must run in the order of its collision axes,
 * which a row at a time does not keep. */
static bool has_indexed_load(const Kernel *k) {
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_GATHER) return true;
  return kernel_has_indexed_store(k);
}

void chain_plan(Arena *a, const Program *p, CSched *sched, CChains *out) {
  out->chain = ARENA_ARRAY(a, CChain, p->nkernels + 1);
  out->n = 0;
  for (int i = 0; i < p->nkernels;) {
    Arena tmp = {0}; /* can_chain's index ranges */
    int n = 1, plain = 0; /* plain: kernels from i on without indexed loads */
    while (i + plain < p->nkernels && !has_indexed_load(&p->kernels[i + plain])) plain++;
    if (row_kernel(&p->kernels[i], &sched[i]) && plain)
      while (i + n < i + plain && can_chain(&tmp, p, sched, i, i + n)) n++;
    /* A column chain that covers as many kernels is preferred to a row
     * chain of VEC_X kernels: its tiles stay in L2 however large a row is
     * (channel softmax with 64 rows of 1.4 MB: 10.1 -> 8.9 ms; of 200 KB:
     * 6.0 -> 5.5), and it shares values through tile buffers. */
    int64_t ctile = 0;
    int m = plain > 1 ? col_chain(&tmp, p, sched, i, n, &ctile) : 0;
    if (m && m <= plain) n = m;
    else ctile = 0;
    arena_free(&tmp);
    CChain *ch = &out->chain[out->n++];
    *ch = (CChain){.first = i, .n = n};
    if (ctile) plan_col_chain(a, p, sched, ch, ctile);
    else plan_chain(a, p, sched, ch);
    i += n;
  }
}

CoilErr *chain_verify(const Program *p, const CSched *sched, const CChains *c) {
  int next = 0;
  for (int i = 0; i < c->n; i++) {
    const CChain *ch = &c->chain[i];
    if (ch->first != next || ch->n < 1 || ch->first + ch->n > p->nkernels)
      return coil_err("chain verifier: chain %d covers kernels [%d, %d), expected to start at %d", i, ch->first, ch->first + ch->n, next);
    next = ch->first + ch->n;
    for (int j = 0; j < ch->n && ch->n > 1; j++)
      if (has_indexed_load(&p->kernels[ch->first + j])) return coil_err("chain verifier: chain %d holds an indexed load", i);
    if (ch->nbuf < 0 || ch->nbuf > ROW_BUFS_MAX) return coil_err("chain verifier: chain %d has %d row buffers", i, ch->nbuf);
    if (ch->ctile) {
      /* A column chain: every kernel vectorises the same innermost axis,
       * unsplit, with the first x axis shared when outer. */
      if (ch->n < 2 || ch->ctile > ch->inner)
        return coil_err("chain verifier: column chain %d (tile %lld of %lld)", i, (long long)ch->ctile, (long long)ch->inner);
      const Kernel *k0 = &p->kernels[ch->first];
      for (int j = 0; j < ch->n; j++) {
        const Kernel *k = &p->kernels[ch->first + j];
        const CSched *s = &sched[ch->first + j];
        if (s->mode != VEC_X || s->nsplit != 1 || k->nx < k0->nx || k->axes[inner_x(k)].size != ch->inner ||
            (ch->outer && k->axes[k->x[0]].size != ch->rows))
          return coil_err("chain verifier: %s does not fit column chain %d", k->name, i);
      }
    }
    /* A chain runs its kernels a row at a time: no VEC_R x tile walked
     * across rows (sched.c r_tile). */
    for (int j = 0; j < ch->n && ch->n > 1; j++)
      if (sched[ch->first + j].mode == VEC_R && sched[ch->first + j].xtile > 1)
        return coil_err("chain verifier: %s walks an x tile of %lld inside its r points, in chain %d", p->kernels[ch->first + j].name,
                          (long long)sched[ch->first + j].xtile, i);
    if (ch->pf_kernel < 0 || ch->pf_kernel >= ch->n || (ch->pf_kernel && !ch->pf.n))
      return coil_err("chain verifier: chain %d prefetches from kernel %d of %d", i, ch->pf_kernel, ch->n);
    for (int j = 0; j < ch->n; j++) {
      const Kernel *k = &p->kernels[ch->first + j];
      for (int v = 0; v < k->nvals; v++) {
        int most = ch->save[j][v] > ch->reuse[j][v] ? ch->save[j][v] : ch->reuse[j][v];
        if (most >= ch->nbuf) return coil_err("chain verifier: %s v%d names row buffer %d of %d", k->name, v, most, ch->nbuf);
        /* A kernel fills a place once, and never one it reads: the values
         * of one row or tile would overwrite each other. */
        for (int u = 0; u < v && ch->save[j][v] >= 0; u++)
          if (ch->save[j][u] == ch->save[j][v])
            return coil_err("chain verifier: %s fills row buffer %d twice (v%d, v%d)", k->name, ch->save[j][v], u, v);
        for (int u = 0; u < k->nvals && ch->save[j][v] >= 0; u++)
          if (ch->reuse[j][u] == ch->save[j][v])
            return coil_err("chain verifier: %s fills row buffer %d (v%d) and reads it (v%d)", k->name, ch->save[j][v], v, u);
        /* A buffer is read only after an earlier kernel of the chain filled it. */
        if (ch->reuse[j][v] >= 0) {
          bool ok = false;
          for (int jp = 0; jp < j && !ok; jp++)
            for (int u = 0; u < p->kernels[ch->first + jp].nvals && !ok; u++) ok = ch->save[jp][u] == ch->reuse[j][v];
          if (!ok) return coil_err("chain verifier: %s v%d reads row buffer %d before any kernel fills it", k->name, v, ch->reuse[j][v]);
        }
      }
      if (ch->n == 1)
        for (int s = 0; s < k->nstores; s++)
          if (ch->stream[j][s]) return coil_err("chain verifier: %s streams a store outside a chain", k->name);
    }
  }
  if (next != p->nkernels) return coil_err("chain verifier: the chains cover %d of %d kernels", next, p->nkernels);
  return NULL;
}

void chain_dump(StrBuf *sb, const Program *p, const CSched *sched, const CChains *c) {
  for (int i = 0; i < c->n; i++) {
    const CChain *ch = &c->chain[i];
    if (ch->n == 1) continue;
    const Kernel *k0 = &p->kernels[ch->first];
    Arena a = {0};
    const char *const *names0 = kernel_axis_names(&a, k0);
    sb_printf(sb, "chain %s", k0->name);
    for (int j = 1; j < ch->n; j++) sb_printf(sb, ", %s", p->kernels[ch->first + j].name);
    if (ch->ctile && ch->outer)
      sb_printf(sb, ": a tile of %lld of %s[%lld] at a time, in each row of %s[%lld]\n", (long long)ch->ctile,
                names0[inner_x(k0)], (long long)ch->inner, names0[k0->x[0]], (long long)ch->rows);
    else if (ch->ctile)
      sb_printf(sb, ": a tile of %lld of %s[%lld] at a time\n", (long long)ch->ctile, names0[inner_x(k0)], (long long)ch->inner);
    else
      sb_printf(sb, ": a row of %s[%lld] at a time\n", names0[k0->x[0]], (long long)ch->rows);
    for (int b = 0; b < ch->nbuf; b++) {
      sb_printf(sb, "  %s buffer %d: %s[%lld]", ch->ctile ? "tile" : "row", b, dtype_name(ch->buftype[b]), (long long)ch->bufsize[b]);
      /* Each fill, then the kernels that read it (before the next fill). */
      int fills = 0;
      for (int j = 0; j < ch->n; j++) {
        const Kernel *k = &p->kernels[ch->first + j];
        for (int v = 0; v < k->nvals; v++)
          if (ch->save[j][v] == b) sb_printf(sb, "%s filled by %s v%d, read by", fills++ ? ";" : ",", k->name, v);
        for (int v = 0; v < k->nvals; v++)
          if (ch->reuse[j][v] == b) sb_printf(sb, " %s v%d", k->name, v);
      }
      sb_puts(sb, "\n");
    }
    if (ch->pf_kernel) {
      sb_printf(sb, "  %s prefetches the next %s of", p->kernels[ch->first + ch->pf_kernel].name, ch->ctile ? "tile" : "row");
      for (int t = 0; t < ch->pf.n; t++) {
        sb_printf(sb, "%s %s[", t ? "," : "", p->bufs[ch->pf.buf[t]].name);
        ix_print(sb, ch->pf.index[t], names0, false);
        sb_puts(sb, "]");
      }
      sb_puts(sb, "\n");
      bool ahead = false;
      for (int j = 0; j < ch->n; j++)
        for (int v = 0; v < p->kernels[ch->first + j].nvals; v++) ahead |= sched[ch->first + j].stream_ahead[v] > 0;
      if (ahead) sb_puts(sb, "  so no load of the chain prefetches ahead along its row\n");
    }
    for (int j = 0; j < ch->n; j++) {
      const Kernel *k = &p->kernels[ch->first + j];
      for (int s = 0; s < k->nstores; s++)
        if (ch->stream[j][s]) sb_printf(sb, "  %s streams its stores to %s past the caches\n", k->name, p->bufs[k->stores[s].buf].name);
    }
    bool asked = false;
    for (int j = 0; j < ch->n; j++) asked |= sched[ch->first + j].narrow;
    if (ch->narrow) sb_puts(sb, "  vectors of 128 bits on AMD Zen, as every kernel of the chain asks\n");
    else if (asked) sb_puts(sb, "  vectors as wide as the compiler likes: not every kernel asks for 128 bits on AMD Zen\n");
    arena_free(&a);
  }
}
