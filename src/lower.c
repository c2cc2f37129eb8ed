/* Lowering: fused graph -> kernel IR.
 *
 * Each root is evaluated at the kernel's x axes.  Evaluating a node at an
 * index (one IExpr per dim) walks the graph: views re-index (permute
 * shuffles, expand pins broadcast dims to 0, reshape goes through the flat
 * offset and is simplified back to strides where it is contiguous), loads
 * of buffers become affine offsets, and a reduction evaluates its input at
 * (its kept dims, the r axes of its group).  Values are hash-consed, so a
 * subexpression used twice is computed once; the values and the nodes
 * already evaluated are found through hash tables, so lowering stays
 * linear in the kernel's size (a linear search made a 400-layer function
 * take seconds).
 *
 * Requires: a Fusion (fuse.c).  Guarantees: kernels kernel_verify() accepts. */
#include <string.h>

#include "coil.h"

typedef struct Memo {
  const GNode *node;
  IExpr **idx;
  int ctx; /* the guard context it was lowered in */
  int val;
} Memo;

/* An open-addressing table of indices (into the kernel's values or the
 * memo), by hash; slots hold index + 1, 0 is empty. */
typedef struct Table {
  int *slot;
  uint64_t mask;
  int n;
} Table;

typedef struct Lower {
  Arena *a;
  const Fusion *f;
  Kernel *k;
  int64_t *sizes; /* axis sizes, for index ranges */
  int capaxes;
  Memo *memo;
  int nmemo, capmemo;
  Table vals, memos;
  uint64_t *val_hash, *memo_hash; /* per value, per memo entry */
  /* Inside a pad's input: the ranges of every pad being lowered, outer
   * first (its loads may read only where they hold).  Inside a branch of a
   * where on index values: what holds wherever the value is used (facts;
   * cat's index < end of a piece), so a pad there need not select its
   * fill where it is never used.  ctx: an id of the context (0: none), so
   * that a node is memoized per context. */
  IRangeCond *guards, facts[8 * COIL_MAX_DIMS];
  int nguards, capguards, nfacts, ctx, nctx;
  const bool *pads; /* per graph node: a pad is in its cone */
  const bool *here; /* per graph node: shared (Fusion.shared) and stored by this kernel: computed, not loaded */
} Lower;

/* Where to look for hash h: call with *at = 0 first; returns the next
 * index stored under a colliding slot, or -1 at an empty slot. */
static int table_next(const Table *t, uint64_t h, uint64_t *at, uint64_t *pos) {
  if (!t->slot) return -1;
  *pos = (*at == 0 ? h : *pos + 1) & t->mask;
  (*at)++;
  return t->slot[*pos] - 1;
}

static void table_put(Arena *a, Table *t, const uint64_t *hashes, uint64_t h, int index) {
  if (!t->slot || (uint64_t)(t->n + 1) * 2 > t->mask + 1) {
    uint64_t cap = t->slot ? (t->mask + 1) * 2 : 256;
    int *old = t->slot;
    uint64_t oldcap = t->slot ? t->mask + 1 : 0;
    t->slot = ARENA_ARRAY(a, int, cap);
    t->mask = cap - 1;
    for (uint64_t i = 0; i < oldcap; i++)
      if (old[i]) {
        uint64_t p = hashes[old[i] - 1] & t->mask;
        while (t->slot[p]) p = (p + 1) & t->mask;
        t->slot[p] = old[i];
      }
  }
  uint64_t p = h & t->mask;
  while (t->slot[p]) p = (p + 1) & t->mask;
  t->slot[p] = index + 1;
  t->n++;
}

static IRange range(Lower *L) { return (IRange){L->sizes}; }

static int add_axis(Lower *L, AxisKind kind, int64_t size, int group) {
  Kernel *k = L->k;
  if (k->naxes == L->capaxes) {
    int cap = L->capaxes ? L->capaxes * 2 : 16;
    KAxis *ax = ARENA_ARRAY(L->a, KAxis, cap);
    int64_t *sz = ARENA_ARRAY(L->a, int64_t, cap);
    if (k->naxes) {
      memcpy(ax, k->axes, sizeof(KAxis) * (size_t)k->naxes);
      memcpy(sz, L->sizes, sizeof(int64_t) * (size_t)k->naxes);
    }
    k->axes = ax;
    L->sizes = sz;
    L->capaxes = cap;
  }
  k->axes[k->naxes] = (KAxis){.kind = kind, .size = size, .group = group};
  L->sizes[k->naxes] = size;
  return k->naxes++;
}

/* Constants compare by their bits: 0.0 and -0.0 are different values
 * (1 / x tells them apart), and a NaN constant is itself. */
static bool same_val(const KVal *a, const KVal *b) {
  if (a->op != b->op || a->dtype != b->dtype || a->cdtype != b->cdtype || a->narg != b->narg) return false;
  for (int i = 0; i < a->narg; i++)
    if (a->arg[i] != b->arg[i]) return false;
  if (a->nguard != b->nguard) return false;
  for (int j = 0; j < a->nguard; j++)
    if (a->guard[j].lo != b->guard[j].lo || a->guard[j].hi != b->guard[j].hi || !ix_equal(a->guard[j].e, b->guard[j].e)) return false;
  if (a->nguard && (memcmp(&a->fval, &b->fval, sizeof a->fval) || a->ival != b->ival)) return false;
  switch (a->op) {
  case OP_INPUT: return a->buf == b->buf && ix_equal(a->index, b->index);
  case OP_GATHER:
    return a->buf == b->buf && ix_equal(a->index, b->index) && a->gstride == b->gstride && a->gsize == b->gsize && a->gwrap == b->gwrap &&
           a->gnode == b->gnode;
  case OP_IOTA: return ix_equal(a->index, b->index);
  case OP_CONST: return !memcmp(&a->fval, &b->fval, sizeof a->fval) && a->ival == b->ival;
  default: return op_info[a->op].kind != OK_REDUCE || (a->red == b->red && a->argval == b->argval);
  }
}

static uint64_t hash_val(const KVal *v) {
  uint64_t h = coil_mix64((uint64_t)v->op << 40 ^ (uint64_t)v->dtype << 24 ^ (uint64_t)v->cdtype << 8 ^ (uint64_t)v->narg);
  for (int i = 0; i < v->narg; i++) h = coil_mix64(h + (uint64_t)v->arg[i] * (uint64_t)(2 * i + 1));
  if (op_is_load(v->op)) h = coil_mix64(h ^ (uint64_t)v->buf) ^ ix_hash(v->index);
  if (v->op == OP_IOTA) h = coil_mix64(h ^ ix_hash(v->index));
  for (int j = 0; j < v->nguard; j++) h = coil_mix64(h ^ ix_hash(v->guard[j].e) ^ (uint64_t)v->guard[j].hi * 31);
  if (v->op == OP_CONST) {
    uint64_t bits;
    memcpy(&bits, &v->fval, sizeof bits);
    h = coil_mix64(coil_mix64(h ^ bits) ^ (uint64_t)v->ival);
  }
  if (op_info[v->op].kind == OK_REDUCE) h = coil_mix64(h ^ (uint64_t)v->red ^ (uint64_t)v->argval << 32);
  return h;
}

static int add_val(Lower *L, KVal v) {
  Kernel *k = L->k;
  uint64_t h = hash_val(&v), at = 0, pos = 0;
  for (int i; (i = table_next(&L->vals, h, &at, &pos)) >= 0;)
    if (L->val_hash[i] == h && same_val(&k->vals[i], &v)) {
      k->vals[i].nonpos |= v.nonpos; /* the same value: what one spelling proves holds */
      return i;
    }
  if (k->nvals == k->capvals) {
    int cap = k->capvals ? k->capvals * 2 : 64;
    KVal *nv = ARENA_ARRAY(L->a, KVal, cap);
    uint64_t *nh = ARENA_ARRAY(L->a, uint64_t, cap);
    if (k->nvals) {
      memcpy(nv, k->vals, sizeof(KVal) * (size_t)k->nvals);
      memcpy(nh, L->val_hash, sizeof(uint64_t) * (size_t)k->nvals);
    }
    k->vals = nv;
    L->val_hash = nh;
    k->capvals = cap;
  }
  k->vals[k->nvals] = v;
  L->val_hash[k->nvals] = h;
  table_put(L->a, &L->vals, L->val_hash, h, k->nvals);
  return k->nvals++;
}

/* offset = sum(idx[d] * contiguous_stride[d]): a reshape's flat index */
static IExpr *flat_offset(Lower *L, int ndim, const int64_t *shape, IExpr **idx) {
  IExpr *off = ix_const(L->a, 0);
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    off = ix_add(L->a, off, ix_scale(L->a, idx[d], stride));
    stride *= shape[d];
  }
  return off;
}

static int lower_node(Lower *L, const GNode *n, IExpr **idx, bool top);
static int lower_pad(Lower *L, const GNode *n, IExpr **idx);
static int constant(Lower *L, DType t, double f, int64_t i);

/* Where a buffer holds the element at idx: its strides, which for an
 * input are the caller's (a transposed or expanded view is read in place,
 * and its loads are as affine as any). */
static IExpr *buffer_offset(Lower *L, const Buffer *b, IExpr **idx) {
  IExpr *off = ix_const(L->a, 0);
  for (int d = 0; d < b->ndim; d++) off = ix_add(L->a, off, ix_scale(L->a, idx[d], b->stride[d]));
  return off;
}

/* A load of buffer buf at idx.  Inside a pad (L->nguards), it reads only
 * where the pads' ranges hold, unless it stays inside the buffer without
 * them (a value the pad discards there is read plainly), and without the
 * outer ranges it needs not to stay inside; fill: a pad that reads the
 * buffer directly gives its fill outside its own nown ranges (the last,
 * always kept), else NULL. */
static int load(Lower *L, int buf, const GNode *n, IExpr **idx, const GNode *fill, int nown) {
  KVal v = {.op = OP_INPUT, .dtype = n->dtype, .cdtype = n->dtype, .buf = buf};
  const Buffer *b = &L->f->bufs[buf];
  v.index = buffer_offset(L, b, idx);
  if (L->nguards) {
    int64_t lo, hi;
    ix_bounds(range(L), v.index, &lo, &hi);
    if (fill || lo < 0 || hi >= b->numel) {
      /* the pads' ranges, less the outer ones it stays inside the buffer
       * without (a pad that reads it directly keeps its own: nown) */
      int n = L->nguards, keep = fill ? nown : 0;
      IRangeCond *g = ARENA_ARRAY(L->a, IRangeCond, n);
      memcpy(g, L->guards, sizeof(IRangeCond) * (size_t)n);
      for (int j = 0; j < n - keep && n > 1;) {
        IRangeCond *t = ARENA_ARRAY(L->a, IRangeCond, n);
        memcpy(t, g, sizeof(IRangeCond) * (size_t)j);
        memcpy(t + j, g + j + 1, sizeof(IRangeCond) * (size_t)(n - j - 1));
        ix_bounds_where(range(L), v.index, t, n - 1, &lo, &hi);
        if (lo >= 0 && hi < b->numel) g = t, n--;
        else j++;
      }
      v.nguard = n;
      v.guard = g;
      if (fill) v.fval = fill->fval, v.ival = fill->ival;
    }
  }
  return add_val(L, v);
}

static int find_group(Lower *L, int nr, const int64_t *sizes) {
  Kernel *k = L->k;
  for (int g = 0; g < k->ngroups; g++) {
    if (k->groups[g].naxes != nr) continue;
    bool same = true;
    for (int i = 0; i < nr; i++) same &= k->axes[k->groups[g].axes[i]].size == sizes[i];
    if (same) return g;
  }
  KGroup *ng = ARENA_ARRAY(L->a, KGroup, k->ngroups + 1);
  if (k->ngroups) memcpy(ng, k->groups, sizeof(KGroup) * (size_t)k->ngroups);
  k->groups = ng;
  int g = k->ngroups++;
  k->groups[g].naxes = nr;
  for (int i = 0; i < nr; i++) k->groups[g].axes[i] = add_axis(L, AX_R, sizes[i], g);
  return g;
}

static int lower_argreduce(Lower *L, const GNode *n, IExpr **idx);

static int lower_reduce(Lower *L, const GNode *n, IExpr **idx) {
  if (op_is_argred(n->op)) return lower_argreduce(L, n, idx);
  const GNode *x = n->in[0];
  int64_t sizes[COIL_MAX_DIMS];
  int nr = 0;
  /* An empty reduction is its identity (the graph refuses empty amax/amin). */
  for (int d = 0; d < x->ndim; d++)
    if (n->rmask >> d & 1 && x->shape[d] == 0) {
      KVal c = {.op = OP_CONST, .dtype = n->dtype, .cdtype = n->dtype, .fval = n->op == OP_PROD, .ival = n->op == OP_PROD};
      return add_val(L, c);
    }
  for (int d = 0; d < x->ndim; d++)
    if (n->rmask >> d & 1 && x->shape[d] > 1) sizes[nr++] = x->shape[d];
  IExpr *sidx[COIL_MAX_DIMS];
  int g = nr ? find_group(L, nr, sizes) : -1;
  for (int d = 0, kept = 0, r = 0; d < x->ndim; d++) {
    if (!(n->rmask >> d & 1)) sidx[d] = idx[kept++];
    else if (x->shape[d] == 1) sidx[d] = ix_const(L->a, 0);
    else sidx[d] = ix_axis(L->a, L->k->groups[g].axes[r++]);
  }
  int src = lower_node(L, x, sidx, false);
  if (g < 0) {
    /* Every reduced dim has size 1: the reduction is a conversion. */
    KVal c = {.op = OP_CAST, .dtype = n->dtype, .cdtype = n->dtype, .arg = {src}, .narg = 1};
    return add_val(L, c);
  }
  Kernel *k = L->k;
  /* mean and sum of one input share one accumulator */
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].op == n->op && k->reds[r].dtype == n->dtype && k->reds[r].src == src && k->reds[r].group == g) {
      k->reds[r].nan_quiet &= n->nan_quiet; /* quiet only if every user allows it */
      KVal v = {.op = n->op, .dtype = n->dtype, .cdtype = n->dtype, .red = r};
      return add_val(L, v);
    }
  KRed *nr2 = ARENA_ARRAY(L->a, KRed, k->nreds + 1);
  if (k->nreds) memcpy(nr2, k->reds, sizeof(KRed) * (size_t)k->nreds);
  k->reds = nr2;
  k->reds[k->nreds] = (KRed){.op = n->op, .dtype = n->dtype, .src = src, .group = g, .nan_quiet = n->nan_quiet};
  KVal v = {.op = n->op, .dtype = n->dtype, .cdtype = n->dtype, .red = k->nreds++};
  return add_val(L, v);
}

/* An arg-reduction: x at (its kept dims, the r axes of its group), and
 * the index value of each r point's place in PyTorch's order, the reduced
 * dims flattened row-major (a size-1 dim adds nothing).  That place is an
 * index value like any other, so simplify.c and order.c rewrite it with
 * the axes they merge and reorder, and it stays the logical position
 * whatever order the loops then take.  Its values and its indices share
 * one accumulator (KRed.idx). */
static int lower_argreduce(Lower *L, const GNode *n, IExpr **idx) {
  const GNode *x = n->in[0];
  int64_t sizes[COIL_MAX_DIMS];
  int nr = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (n->rmask >> d & 1 && x->shape[d] == 0) coil_unreachable("an empty arg-reduction (the graph refuses it)");
    if (n->rmask >> d & 1 && x->shape[d] > 1) sizes[nr++] = x->shape[d];
  }
  IExpr *sidx[COIL_MAX_DIMS];
  int g = nr ? find_group(L, nr, sizes) : -1;
  for (int d = 0, kept = 0, r = 0; d < x->ndim; d++) {
    if (!(n->rmask >> d & 1)) sidx[d] = idx[kept++];
    else if (x->shape[d] == 1) sidx[d] = ix_const(L->a, 0);
    else sidx[d] = ix_axis(L->a, L->k->groups[g].axes[r++]);
  }
  int src = lower_node(L, x, sidx, false);
  if (g < 0) {
    /* One element: its value, at index 0. */
    if (!n->argval) return constant(L, DT_I64, 0, 0);
    KVal c = {.op = OP_CAST, .dtype = n->dtype, .cdtype = n->dtype, .arg = {src}, .narg = 1};
    return add_val(L, c);
  }
  IExpr *pos = ix_const(L->a, 0);
  int64_t stride = 1;
  for (int d = x->ndim - 1; d >= 0; d--) {
    if (!(n->rmask >> d & 1)) continue;
    pos = ix_add(L->a, pos, ix_scale(L->a, sidx[d], stride));
    stride *= x->shape[d];
  }
  KVal iv = {.op = OP_IOTA, .dtype = DT_I64, .cdtype = DT_I64, .index = pos};
  int at = add_val(L, iv);
  Kernel *k = L->k;
  int r = 0;
  while (r < k->nreds && !(k->reds[r].op == n->op && k->reds[r].dtype == n->cdtype && k->reds[r].src == src && k->reds[r].group == g &&
                           k->reds[r].idx == at))
    r++;
  if (r == k->nreds) {
    KRed *nr2 = ARENA_ARRAY(L->a, KRed, k->nreds + 1);
    if (k->nreds) memcpy(nr2, k->reds, sizeof(KRed) * (size_t)k->nreds);
    k->reds = nr2;
    k->reds[k->nreds++] = (KRed){.op = n->op, .dtype = n->cdtype, .src = src, .group = g, .idx = at};
  }
  KVal v = {.op = n->op, .dtype = n->dtype, .cdtype = n->dtype, .red = r, .argval = n->argval};
  return add_val(L, v);
}

/* x ** n for a small integer constant n is multiplication (x ** -1 and
 * x ** -2 a reciprocal of it), as PyTorch's CPU kernel computes x ** 2 and
 * x ** 3; a libm powf is a call, and a loop with a call does not vectorise
 * (a row sum of x ** 3 ran at 0.03 of the read ceiling).  x * x is
 * rounded as PyTorch rounds it: to bf16 for a bf16 x ** 3 and x ** -2 (its
 * bf16 vector ops round each op), to the compute dtype otherwise (f16 and
 * the other bf16 powers compute in f32 and round once).  So 2, 3, -1 and -2
 * give its bits in every dtype; 4 is (x * x) * (x * x), PyTorch's bits for
 * bf16 and f16 and within 2 ulp of its pow for f32.  ref.c computes the
 * same way.  x ** 0.5 and x ** -0.5 are sqrt and rsqrt, as PyTorch's
 * kernel computes them for f32, f64 and bf16: -0 ** -0.5 is -inf and
 * -inf ** 0.5 NaN, as sqrt gives (powf gave +inf for both,
 * tests/regress/pow_halves.py); not for f16, whose pow PyTorch computes
 * with std::pow (+inf there).  Returns -1 for any other power. */
static int pow_by_multiplies(Lower *L, const KVal *p) {
  const KVal *e = &L->k->vals[p->arg[1]];
  if (e->op != OP_CONST) return -1;
  double y = dtype_is_float(e->dtype) ? e->fval : (double)e->ival;
  if ((y == 0.5 || y == -0.5) && dtype_is_float(p->cdtype) && p->dtype != DT_F16) {
    KVal root = {.op = y > 0 ? OP_SQRT : OP_RSQRT, .dtype = p->dtype, .cdtype = p->cdtype, .arg = {p->arg[0]}, .narg = 1};
    return add_val(L, root);
  }
  /* x ** 1 is x, NaN, infinities and -0 included (PyTorch copies x): the
   * RMSNorm backward of Inductor's decompositions has pow(a, 1.0), which
   * c_powf computed per element */
  if (y == 1 && L->k->vals[p->arg[0]].dtype == p->dtype) return p->arg[0];
  if (!(y >= -2 && y <= 4) || y != (int)y || y == 0 || y == 1) return -1;
  int n = (int)y, x = p->arg[0];
  if (n < 0 && !dtype_is_float(p->cdtype)) return -1;
  DType inner = p->dtype == DT_BF16 && (n == 3 || n == -2) ? DT_BF16 : p->cdtype;
  KVal sq = {.op = OP_MUL, .dtype = inner, .cdtype = p->cdtype, .arg = {x, x}, .narg = 2};
  int x2 = n == 2 ? -1 : add_val(L, sq);
  KVal last = {.dtype = p->dtype, .cdtype = p->cdtype};
  switch (n) {
  case 2: last.op = OP_MUL, last.arg[0] = x, last.arg[1] = x, last.narg = 2; break;
  case 3: last.op = OP_MUL, last.arg[0] = x2, last.arg[1] = x, last.narg = 2; break;
  case 4: last.op = OP_MUL, last.arg[0] = x2, last.arg[1] = x2, last.narg = 2; break;
  case -1: last.op = OP_RECIP, last.arg[0] = x, last.narg = 1; break;
  default: last.op = OP_RECIP, last.arg[0] = x2, last.narg = 1; break;
  }
  return add_val(L, last);
}

static int constant(Lower *L, DType t, double f, int64_t i) {
  KVal c = {.op = OP_CONST, .dtype = t, .cdtype = t, .fval = f, .ival = i};
  return add_val(L, c);
}

static int binop(Lower *L, Op op, DType t, DType cd, int a, int b) {
  KVal c = {.op = op, .dtype = t, .cdtype = cd, .arg = {a, b}, .narg = 2};
  return add_val(L, c);
}

/* The index at which n reads its operand x (broadcast dims pinned to 0). */
static void operand_index(Lower *L, const GNode *n, const GNode *x, IExpr **idx, IExpr **sub) {
  int off = n->ndim - x->ndim;
  for (int d = 0; d < x->ndim; d++) sub[d] = x->shape[d] == 1 && n->shape[d + off] != 1 ? ix_const(L->a, 0) : idx[d + off];
}

/* What a where's condition c (at idx) says of index values where it
 * holds (neg: where it fails): a comparison of an iota with an integer
 * constant, or (holding) an and of such.  Appends to f; returns the count,
 * or -1 when it says nothing this simple. */
static int cond_facts(Lower *L, const GNode *c, IExpr **idx, bool neg, IRangeCond *f, int room) {
  IExpr *sub[COIL_MAX_DIMS];
  if (c->op == OP_AND && !neg) {
    int n = 0;
    for (int i = 0; i < 2; i++) {
      operand_index(L, c, c->in[i], idx, sub);
      int m = cond_facts(L, c->in[i], sub, false, f + n, room - n);
      if (m < 0) return -1;
      n += m;
    }
    return n;
  }
  if (op_info[c->op].kind != OK_COMPARE || c->cdtype != DT_I64 || room < 1) return -1;
  const GNode *it = c->in[0], *k = c->in[1];
  if (it->op != OP_IOTA || k->op != OP_CONST || k->ndim || dtype_is_float(k->dtype)) return -1;
  operand_index(L, c, it, idx, sub);
  IExpr *e = ix_add(L->a, ix_scale(L->a, sub[it->dim], it->step), ix_const(L->a, it->ival));
  int64_t K = k->ival, lo = INT64_MIN, hi = INT64_MAX;
  Op op = c->op;
  if (neg) {
    switch (op) {
    case OP_LT: op = OP_GE; break;
    case OP_LE: op = OP_GT; break;
    case OP_GT: op = OP_LE; break;
    case OP_GE: op = OP_LT; break;
    default: return -1;
    }
  }
  switch (op) {
  case OP_LT: hi = K; break;
  case OP_LE: if (K == INT64_MAX) return -1; hi = K + 1; break;
  case OP_GT: if (K == INT64_MAX) return -1; lo = K + 1; break;
  case OP_GE: lo = K; break;
  case OP_EQ: if (K == INT64_MAX) return -1; lo = K, hi = K + 1; break;
  default: return -1;
  }
  f[0] = (IRangeCond){e, lo, hi};
  return 1;
}

/* Lower x at idx where the facts f (n of them) hold too. */
static int lower_under(Lower *L, const GNode *x, IExpr **idx, const IRangeCond *f, int n) {
  if (n <= 0 || !L->pads[x->id] || L->nfacts + n > (int)(sizeof L->facts / sizeof L->facts[0])) return lower_node(L, x, idx, false);
  int saved_ctx = L->ctx, saved_n = L->nfacts;
  memcpy(L->facts + L->nfacts, f, sizeof(IRangeCond) * (size_t)n);
  L->nfacts += n;
  L->ctx = ++L->nctx;
  int v = lower_node(L, x, idx, false);
  L->nfacts = saved_n;
  L->ctx = saved_ctx;
  return v;
}

/* A pad at idx: its input at idx + start where that is inside the input,
 * its fill elsewhere.  The dims whose index can leave the input (by the
 * ranges of the axes) are guarded: their ranges join the context, so the
 * input's loads read only inside them; a pad of a buffer is then one
 * guarded load with the pad's fill, a pad of a computed value a where of
 * the ranges (index values compared) between it and the fill, of the
 * ranges the facts do not already imply (cat's pieces need none). */
static int lower_pad(Lower *L, const GNode *n, IExpr **idx) {
  const GNode *x = n->in[0];
  IExpr *sub[COIL_MAX_DIMS], *in[COIL_MAX_DIMS];
  IRangeCond mine[COIL_MAX_DIMS], sel[COIL_MAX_DIMS];
  int nmine = 0, nsel = 0;
  for (int d = 0; d < n->ndim; d++) {
    sub[d] = ix_add(L->a, idx[d], ix_const(L->a, n->start[d]));
    int64_t lo, hi, flo, fhi, len = x->shape[d];
    ix_bounds(range(L), sub[d], &lo, &hi);
    ix_bounds_where(range(L), sub[d], L->facts, L->nfacts, &flo, &fhi);
    if (fhi < 0 || flo >= len) return constant(L, n->dtype, n->fval, n->ival); /* only fill is read */
    /* where it is read at all, a dim of one point is read at 0 (stack's,
     * select_scatter's unsqueezed piece) */
    in[d] = len == 1 ? ix_const(L->a, 0) : sub[d];
    if (lo >= 0 && hi < len) continue;
    mine[nmine++] = (IRangeCond){sub[d], lo < 0 ? 0 : INT64_MIN, hi >= len ? len : INT64_MAX};
    if (flo < 0 || fhi >= len) sel[nsel++] = (IRangeCond){sub[d], flo < 0 ? 0 : INT64_MIN, fhi >= len ? len : INT64_MAX};
  }
  if (!nmine) return lower_node(L, x, in, false);
  if (L->nguards + nmine > L->capguards) {
    int cap = 2 * (L->nguards + nmine);
    IRangeCond *g = ARENA_ARRAY(L->a, IRangeCond, cap);
    if (L->nguards) memcpy(g, L->guards, sizeof(IRangeCond) * (size_t)L->nguards);
    L->guards = g;
    L->capguards = cap;
  }
  int saved_ctx = L->ctx, saved_n = L->nguards;
  memcpy(L->guards + L->nguards, mine, sizeof(IRangeCond) * (size_t)nmine);
  L->nguards += nmine;
  L->ctx = ++L->nctx;
  int buf = L->f->node_buf[x->id], v;
  if (x->op == OP_INPUT || (buf >= 0 && !L->here[x->id])) {
    v = load(L, buf, x, in, n, nmine);
  } else {
    v = lower_node(L, x, in, false);
    int cond = -1;
    for (int j = 0; j < nsel; j++) {
      KVal e = {.op = OP_IOTA, .dtype = DT_I64, .cdtype = DT_I64, .index = sel[j].e};
      int at = add_val(L, e);
      for (int side = 0; side < 2; side++) {
        int64_t b = side ? sel[j].hi : sel[j].lo;
        if (b == (side ? INT64_MAX : INT64_MIN)) continue;
        int c = binop(L, side ? OP_LT : OP_GE, DT_BOOL, DT_I64, at, constant(L, DT_I64, 0, b));
        cond = cond < 0 ? c : binop(L, OP_AND, DT_BOOL, DT_BOOL, cond, c);
      }
    }
    if (cond >= 0) {
      KVal w = {.op = OP_WHERE, .dtype = n->dtype, .cdtype = n->dtype, .arg = {cond, v, constant(L, n->dtype, n->fval, n->ival)}, .narg = 3};
      v = add_val(L, w);
    }
  }
  L->nguards = saved_n;
  L->ctx = saved_ctx;
  return v;
}

/* An indexed read at idx: the index's value there, and a load of the
 * input's buffer (fuse.c gave it one) at the affine part of the point plus
 * the value times the dim's stride.  Inside a pad it reads only where the
 * pads' ranges hold, as a load does (the value is checked only there). */
static int lower_gather(Lower *L, const GNode *n, IExpr **idx) {
  const GNode *x = n->in[0];
  int buf = L->f->node_buf[x->id];
  coil_assert(buf >= 0);
  const Buffer *b = &L->f->bufs[buf];
  IExpr *sub[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) sub[d] = d == n->dim || n->perm[d] < 0 ? ix_const(L->a, 0) : idx[n->perm[d]];
  KVal v = {.op = OP_GATHER, .dtype = x->dtype, .cdtype = x->dtype, .buf = buf, .narg = 1, .gstride = b->stride[n->dim],
            .gsize = x->shape[n->dim], .gwrap = n->wraps, .gnode = n->id};
  v.arg[0] = lower_node(L, n->in[1], idx, false);
  v.index = buffer_offset(L, b, sub);
  if (L->nguards) {
    v.nguard = L->nguards;
    v.guard = ARENA_ARRAY(L->a, IRangeCond, L->nguards);
    memcpy(v.guard, L->guards, sizeof(IRangeCond) * (size_t)L->nguards);
  }
  return add_val(L, v);
}

static int lower_node(Lower *L, const GNode *n, IExpr **idx, bool top) {
  int buf = L->f->node_buf[n->id];
  if (n->op == OP_INPUT || (buf >= 0 && !top && !L->here[n->id])) return load(L, buf, n, idx, NULL, 0);
  uint64_t h = coil_mix64((uint64_t)n->id ^ (uint64_t)L->ctx << 32), at = 0, pos = 0;
  for (int d = 0; d < n->ndim; d++) h = coil_mix64(h ^ ix_hash(idx[d]));
  for (int i; (i = table_next(&L->memos, h, &at, &pos)) >= 0;) {
    Memo *m = &L->memo[i];
    if (L->memo_hash[i] != h || m->node != n || m->ctx != L->ctx) continue;
    bool same = true;
    for (int d = 0; d < n->ndim && same; d++) same = ix_equal(m->idx[d], idx[d]);
    if (same) return m->val;
  }
  int v;
  IExpr *sub[3][COIL_MAX_DIMS];
  switch (op_info[n->op].kind) {
  case OK_LEAF: {
    KVal c = {.op = OP_CONST, .dtype = n->dtype, .cdtype = n->dtype, .fval = n->fval, .ival = n->ival};
    if (n->op == OP_IOTA) {
      /* ival + step * (the point's index along dim): a constant where that is one */
      IExpr *e = ix_add(L->a, ix_scale(L->a, idx[n->dim], n->step), ix_const(L->a, n->ival));
      if (e->n) c = (KVal){.op = OP_IOTA, .dtype = DT_I64, .cdtype = DT_I64, .index = e};
      else c.ival = e->c;
    }
    v = add_val(L, c);
    break;
  }
  case OK_CAST: {
    KVal c = {.op = OP_CAST, .dtype = n->dtype, .cdtype = n->cdtype, .narg = 1};
    c.arg[0] = lower_node(L, n->in[0], idx, false);
    /* a float rounded to another float keeps its sign (and stays NaN) */
    c.nonpos = L->k->vals[c.arg[0]].nonpos && dtype_is_float(c.dtype);
    v = add_val(L, c);
    break;
  }
  case OK_UNARY: case OK_BINARY: case OK_COMPARE: case OK_WHERE: {
    KVal c = {.op = n->op, .dtype = n->dtype, .cdtype = n->cdtype, .narg = n->nin};
    for (int i = 0; i < n->nin; i++) {
      const GNode *x = n->in[i];
      operand_index(L, n, x, idx, sub[i]);
      if (n->op == OP_WHERE && i > 0 && L->pads[x->id]) {
        /* a branch is used only where the condition holds (or fails) */
        IRangeCond f[2 * COIL_MAX_DIMS];
        int nf = cond_facts(L, n->in[0], sub[0], i == 2, f, 2 * COIL_MAX_DIMS);
        c.arg[i] = lower_under(L, x, sub[i], f, nf);
      } else {
        c.arg[i] = lower_node(L, x, sub[i], false);
      }
    }
    c.nonpos = graph_nonpositive(n);
    v = c.op == OP_POW ? pow_by_multiplies(L, &c) : -1;
    if (v < 0) v = add_val(L, c);
    break;
  }
  case OK_VIEW: {
    const GNode *x = n->in[0];
    if (n->op == OP_PAD) {
      v = lower_pad(L, n, idx);
      break;
    }
    if (n->op == OP_PERMUTE) {
      for (int d = 0; d < n->ndim; d++) sub[0][n->perm[d]] = idx[d];
    } else if (n->op == OP_EXPAND) {
      int off = n->ndim - x->ndim;
      for (int d = 0; d < x->ndim; d++) sub[0][d] = x->shape[d] == 1 ? ix_const(L->a, 0) : idx[d + off];
    } else if (n->op == OP_SLICE) {
      /* start + step * i: affine, the step negative for a flip */
      for (int d = 0; d < n->ndim; d++)
        sub[0][d] = n->shape[d] == 1 ? ix_const(L->a, n->start[d])
                                     : ix_add(L->a, ix_scale(L->a, idx[d], n->sstep[d]), ix_const(L->a, n->start[d]));
    } else {
      IExpr *flat = flat_offset(L, n->ndim, n->shape, idx);
      int64_t stride = 1;
      for (int d = x->ndim - 1; d >= 0; d--) {
        sub[0][d] = ix_mod(L->a, range(L), ix_div(L->a, range(L), flat, stride), x->shape[d]);
        stride *= x->shape[d];
      }
    }
    v = lower_node(L, x, sub[0], false);
    break;
  }
  case OK_GATHER: v = lower_gather(L, n, idx); break;
  /* a sum at indices as a root of its first kernel: its base (the kernel
   * after adds the values in, lower_scatter) */
  case OK_SCATTER: v = lower_node(L, n->in[0], idx, false); break;
  case OK_REDUCE: v = lower_reduce(L, n, idx); break;
  default: coil_unreachable("bad op kind");
  }
  if (L->nmemo == L->capmemo) {
    L->capmemo = L->capmemo ? L->capmemo * 2 : 64;
    Memo *m = ARENA_ARRAY(L->a, Memo, L->capmemo);
    uint64_t *mh = ARENA_ARRAY(L->a, uint64_t, L->capmemo);
    if (L->nmemo) {
      memcpy(m, L->memo, sizeof(Memo) * (size_t)L->nmemo);
      memcpy(mh, L->memo_hash, sizeof(uint64_t) * (size_t)L->nmemo);
    }
    L->memo = m;
    L->memo_hash = mh;
  }
  IExpr **copy = ARENA_ARRAY(L->a, IExpr *, n->ndim + 1);
  memcpy(copy, idx, sizeof(IExpr *) * (size_t)n->ndim);
  L->memo_hash[L->nmemo] = h;
  table_put(L->a, &L->memos, L->memo_hash, h, L->nmemo);
  L->memo[L->nmemo++] = (Memo){n, copy, L->ctx, v};
  return v;
}

static void name_axes(Arena *a, Kernel *k) {
  for (int i = 0; i < k->nx; i++) k->axes[k->x[i]].name = arena_printf(a, "x%d", i);
  int r = k->nx;
  for (int g = 0; g < k->ngroups; g++)
    for (int i = 0; i < k->groups[g].naxes; i++) k->axes[k->groups[g].axes[i]].name = arena_printf(a, "r%d", r++);
}

/* The points a fused kernel runs over: its roots' shape, or a scatter
 * kernel's values'. */
static const GNode *kernel_domain(const FusedKernel *fk) { return fk->scatter ? fk->roots[0]->in[2] : fk->roots[0]; }

/* A scatter kernel (FusedKernel.scatter) at the values' point idx: the
 * index value and the value, and per buffer of the root an indexed store
 * that adds the value at the affine part of the point plus the index value
 * times the dim's stride. */
static void lower_scatter(Lower *L, const FusedKernel *fk, IExpr **idx) {
  const GNode *n = fk->roots[0];
  int iv = lower_node(L, n->in[1], idx, false), vv = lower_node(L, n->in[2], idx, false);
  IExpr *sub[COIL_MAX_DIMS];
  for (int d = 0; d < n->ndim; d++) sub[d] = d == n->dim ? ix_const(L->a, 0) : idx[d];
  for (int r = 0; r < fk->nroots; r++) {
    const Buffer *b = &L->f->bufs[fk->root_buf[r]];
    L->k->stores[L->k->nstores++] = (KStore){.buf = fk->root_buf[r], .index = buffer_offset(L, b, sub), .val = vv, .indexed = true,
                                             .ival = iv, .gstride = b->stride[n->dim], .gsize = n->shape[n->dim], .gwrap = n->wraps,
                                             .gnode = n->id};
  }
}

static CoilErr *lower_kernel(Arena *a, const Fusion *f, const FusedKernel *fk, Kernel *k, int index, const bool *pads) {
  bool *here = ARENA_ARRAY(a, bool, f->g->nnodes + 1);
  for (int r = 0; r < fk->nroots && !fk->scatter; r++) here[fk->roots[r]->id] = f->shared && f->shared[fk->roots[r]->id];
  Lower L = {.a = a, .f = f, .k = k, .pads = pads, .here = here};
  k->name = arena_printf(a, "coil_%s_k%d", f->g->fn_name, index);
  const GNode *shape = kernel_domain(fk);
  IExpr *idx[COIL_MAX_DIMS];
  for (int d = 0; d < shape->ndim; d++) {
    if (shape->shape[d] == 1) {
      idx[d] = ix_const(a, 0);
      continue;
    }
    int ax = add_axis(&L, AX_X, shape->shape[d], -1);
    k->x[k->nx++] = ax;
    idx[d] = ix_axis(a, ax);
  }
  k->stores = ARENA_ARRAY(a, KStore, fk->nroots);
  if (fk->scatter) lower_scatter(&L, fk, idx);
  for (int r = 0; r < fk->nroots && !fk->scatter; r++) {
    const GNode *n = fk->roots[r];
    int v = lower_node(&L, n, idx, n->op != OP_INPUT);
    const Buffer *b = &f->bufs[fk->root_buf[r]];
    k->stores[k->nstores++] = (KStore){.buf = fk->root_buf[r], .index = buffer_offset(&L, b, idx), .val = v};
  }
  name_axes(a, k);
  kernel_set_scopes(k);
  return NULL;
}

CoilErr *lower_program(Arena *a, const Fusion *f, Program *p) {
  *p = (Program){.g = f->g, .bufs = f->bufs, .nbufs = f->nbufs};
  p->kernels = ARENA_ARRAY(a, Kernel, f->nkernels + 1);
  const Graph *g = f->g;
  bool *pads = ARENA_ARRAY(a, bool, g->nnodes + 1);
  for (int i = 0; i < g->nnodes; i++) {
    const GNode *n = g->nodes[i];
    pads[i] = n->op == OP_PAD;
    for (int j = 0; j < n->nin; j++) pads[i] |= pads[n->in[j]->id];
  }
  for (int i = 0; i < f->nkernels; i++) {
    /* Roots with no elements need no kernel: nothing reads an empty buffer
     * except through a reduction over its empty dim, which is a constant. */
    const GNode *r0 = kernel_domain(&f->kernels[i]);
    if (shape_numel(r0->ndim, r0->shape) == 0) continue;
    CoilErr *e = lower_kernel(a, f, &f->kernels[i], &p->kernels[p->nkernels], i, pads);
    if (e) return e;
    p->nkernels++;
  }
  return NULL;
}
