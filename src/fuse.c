/* Fusion: which nodes get buffers, and which roots share a kernel.
 *
 * Every other value is computed again by each kernel that needs it: a
 * pointwise value is cheaper to recompute than to write and read back,
 * until recompute.c finds the kernels doing too much of it and names
 * nodes to keep (kept).
 *
 * Requires: a verified graph.
 * Guarantees: every graph output and input has a buffer, and every kept
 * node; a reduction
 * without a buffer is reached (through pointwise ops and views only) by
 * the roots of exactly one kernel, at a domain of its own size, so the
 * kernel can compute it once per output point; kernels are listed in an
 * order in which each one's inputs already exist. */
#include <string.h>

#include "coil.h"

typedef struct Users {
  int *list;
  int n, cap;
} Users;

typedef struct Fuser {
  Arena *a;
  const Graph *g;
  Users *users;
  bool *mat;
  bool *gathered; /* an indexed read's input: read from its buffer only */
} Fuser;

static void add_user(Fuser *F, int of, int user) {
  Users *u = &F->users[of];
  if (u->n == u->cap) {
    int cap = u->cap ? u->cap * 2 : 4;
    int *l = ARENA_ARRAY(F->a, int, cap);
    if (u->n) memcpy(l, u->list, sizeof(int) * (size_t)u->n);
    u->list = l;
    u->cap = cap;
  }
  u->list[u->n++] = user;
}

static bool is_reduce(const GNode *n) { return op_info[n->op].kind == OK_REDUCE; }

/* Walk forward from reduction r through unmaterialized nodes.  Returns
 * true if r must get a buffer: it feeds another reduction, or reaches a
 * root larger than itself (a broadcast), or roots of different shapes. */
static bool needs_buffer(Fuser *F, const GNode *r, bool *seen, const GNode **root_seen) {
  int64_t numel = shape_numel(r->ndim, r->shape);
  int stack_cap = F->g->nnodes + 1, sp = 0;
  int *stack = ARENA_ARRAY(F->a, int, stack_cap);
  memset(seen, 0, sizeof(bool) * (size_t)F->g->nnodes);
  stack[sp++] = r->id;
  seen[r->id] = true;
  *root_seen = NULL;
  while (sp) {
    int id = stack[--sp];
    Users *u = &F->users[id];
    for (int i = 0; i < u->n; i++) {
      const GNode *v = F->g->nodes[u->list[i]];
      if (seen[v->id]) continue;
      seen[v->id] = true;
      /* a sum at indices' kernel runs over its values' points: a reduction
       * it reads comes from a buffer */
      if (is_reduce(v) || v->op == OP_SCATTER_ADD) return true;
      if (F->mat[v->id] || v == r) {
        if (shape_numel(v->ndim, v->shape) > numel) return true;
        if (*root_seen && ((*root_seen)->ndim != v->ndim ||
                           memcmp((*root_seen)->shape, v->shape, sizeof(int64_t) * (size_t)v->ndim)))
          return true;
        *root_seen = v;
      }
      if (!F->mat[v->id]) stack[sp++] = v->id;
    }
  }
  /* r itself may be an output: then it has a buffer already. */
  return false;
}

/* Whether n's value is a pure function of buffers, through unmaterialized
 * nodes: no reduction (its loops belong to one root domain), no indexed
 * read or write. */
static bool pointwise_cone(Fuser *F, const GNode *n, bool top, bool *seen) {
  if (seen[n->id]) return true;
  seen[n->id] = true;
  if (!top && F->mat[n->id]) return true;
  OpKind kind = op_info[n->op].kind;
  if (kind == OK_REDUCE || kind == OK_GATHER || kind == OK_SCATTER) return false;
  for (int i = 0; i < n->nin; i++)
    if (!pointwise_cone(F, n->in[i], false, seen)) return false;
  return true;
}

/* Whether n has a buffer only because it is returned, and is pointwise
 * over buffers: a root of the same shape that reads it can join the
 * kernel that stores it and take it from registers (lower.c computes it
 * there once for both), rather than wait for that kernel and read it back.
 * So a returned value that another returned value is computed from (a
 * normalised row and its scaled copy; a forward's value saved for the
 * backward and used further) costs one pass. */
static bool shares_in_kernel(Fuser *F, const GNode *n, const bool *kept, bool *seen) {
  if (n->op == OP_INPUT || (kept && kept[n->id]) || F->gathered[n->id]) return false;
  bool returned = false;
  for (int k = 0; k < F->g->noutputs; k++) returned |= F->g->outputs[k] == n;
  if (!returned) return false;
  memset(seen, 0, sizeof(bool) * (size_t)F->g->nnodes);
  return pointwise_cone(F, n, true, seen);
}

/* Marks at[] the shared nodes n reads at its own point: through
 * unmaterialized pointwise nodes only (a view between them reads another
 * point, where computing the value again would read its whole cone rather
 * than one buffer). */
static void same_point_reads(Fuser *F, const GNode *n, bool top, const bool *shared, bool *seen, bool *at) {
  if (seen[n->id]) return;
  seen[n->id] = true;
  if (!top && F->mat[n->id]) {
    at[n->id] = shared[n->id];
    return;
  }
  if (op_info[n->op].kind == OK_VIEW) return;
  for (int i = 0; i < n->nin; i++) same_point_reads(F, n->in[i], false, shared, seen, at);
}

/* The materialized nodes root reads, through unmaterialized nodes. */
static void collect_reads(Fuser *F, const GNode *n, bool top, bool *seen, int *out, int *nout) {
  if (seen[n->id]) return;
  seen[n->id] = true;
  if (!top && F->mat[n->id]) {
    out[(*nout)++] = n->id;
    return;
  }
  for (int i = 0; i < n->nin; i++) collect_reads(F, n->in[i], false, seen, out, nout);
}

static bool same_shape(const GNode *a, const GNode *b) {
  return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim);
}

CoilErr *fuse_graph(Arena *a, const Graph *g, const bool *kept, Fusion *f) {
  Fuser F = {.a = a, .g = g};
  int nn = g->nnodes;
  F.users = ARENA_ARRAY(a, Users, nn);
  F.mat = ARENA_ARRAY(a, bool, nn);
  F.gathered = ARENA_ARRAY(a, bool, nn);
  bool *seen = ARENA_ARRAY(a, bool, nn), *seen2 = ARENA_ARRAY(a, bool, nn);
  bool *shared = ARENA_ARRAY(a, bool, nn); /* shares_in_kernel, per node */
  bool *soft = ARENA_ARRAY(a, bool, nn + g->noutputs), *at_point = ARENA_ARRAY(a, bool, nn);
  for (int i = 0; i < nn; i++)
    for (int k = 0; k < g->nodes[i]->nin; k++) add_user(&F, g->nodes[i]->in[k]->id, i);
  for (int i = 0; i < nn; i++) {
    /* a sum at indices is added into its buffer (after a kernel wrote its
     * base there) */
    if (g->nodes[i]->op == OP_INPUT || g->nodes[i]->op == OP_SCATTER_ADD || (kept && kept[i])) F.mat[i] = true;
    /* an indexed read reads its input at points only the data name: from
     * a buffer, never by computing it there */
    if (g->nodes[i]->op == OP_GATHER) F.mat[g->nodes[i]->in[0]->id] = F.gathered[g->nodes[i]->in[0]->id] = true;
  }
  for (int k = 0; k < g->noutputs; k++) F.mat[g->outputs[k]->id] = true;

  int *kernel_of = ARENA_ARRAY(a, int, nn);
  int *reads = ARENA_ARRAY(a, int, nn);
  FusedKernel *ks = ARENA_ARRAY(a, FusedKernel, nn + g->noutputs);
  bool **deps = ARENA_ARRAY(a, bool *, nn + g->noutputs);
  int nk;
  for (;;) {
    /* 1. Reductions that cannot live inside one consumer get buffers. */
    bool changed = true;
    while (changed) {
      changed = false;
      for (int i = 0; i < nn; i++) {
        const GNode *n = g->nodes[i];
        const GNode *root;
        if (is_reduce(n) && !F.mat[i] && needs_buffer(&F, n, seen, &root)) {
          F.mat[i] = true;
          changed = true;
        }
      }
    }
    /* 2. Group roots into kernels, in topological order. */
    nk = 0;
    for (int i = 0; i < nn; i++) {
      kernel_of[i] = -1;
      shared[i] = F.mat[i] && shares_in_kernel(&F, g->nodes[i], kept, seen);
    }
    for (int i = 0; i < nn; i++) {
      const GNode *n = g->nodes[i];
      if (!F.mat[i] || n->op == OP_INPUT) continue;
      int nr = 0;
      memset(seen, 0, sizeof(bool) * (size_t)nn);
      collect_reads(&F, n, true, seen, reads, &nr);
      /* d: the kernels n must wait for.  A read of a shared value (soft)
       * is no wait if n joins the kernel that stores it. */
      bool *d = ARENA_ARRAY(a, bool, nn + g->noutputs);
      memset(soft, 0, sizeof(bool) * (size_t)(nk + 1));
      memset(seen, 0, sizeof(bool) * (size_t)nn);
      memset(at_point, 0, sizeof(bool) * (size_t)nn);
      same_point_reads(&F, n, true, shared, seen, at_point);
      for (int r = 0; r < nr; r++) {
        int kk = kernel_of[reads[r]];
        if (kk < 0) continue;
        if (at_point[reads[r]] && same_shape(ks[kk].roots[0], n)) {
          soft[kk] = true;
          continue;
        }
        d[kk] = true;
        for (int j = 0; j < nk; j++) d[j] |= deps[kk][j];
      }
      int join = -1;
      for (int kk = 0; kk < nk && join < 0; kk++) {
        if (!soft[kk] || d[kk]) continue;
        /* join kk: every other soft read is a wait, which must not lead back to kk */
        bool *d2 = seen2;
        memcpy(d2, d, sizeof(bool) * (size_t)nk);
        for (int j = 0; j < nk; j++)
          if (soft[j] && j != kk) {
            d2[j] = true;
            for (int q = 0; q < nk; q++) d2[q] |= deps[j][q];
          }
        if (d2[kk]) continue;
        memcpy(d, d2, sizeof(bool) * (size_t)nk);
        join = kk;
      }
      if (join < 0)
        for (int j = 0; j < nk; j++)
          if (soft[j]) {
            d[j] = true;
            for (int q = 0; q < nk; q++) d[q] |= deps[j][q];
          }
      for (int kk = 0; kk < nk && join < 0; kk++)
        if (!d[kk] && same_shape(ks[kk].roots[0], n)) join = kk;
      if (join < 0) {
        join = nk++;
        ks[join] = (FusedKernel){.roots = ARENA_ARRAY(a, GNode *, nn + g->noutputs),
                                 .root_buf = ARENA_ARRAY(a, int, nn + g->noutputs)};
        deps[join] = d;
      } else {
        for (int j = 0; j < nk; j++) deps[join][j] |= d[j];
        /* what join now waits for, every kernel waiting for join waits for
         * too: deps stay transitive, so a later root that reads such a
         * kernel sees join among its dependencies and never joins it into
         * a cycle (fuzz seed 1 case 98 did, once arg-reductions joined the
         * generator: tests/regress/fuse_join_cycle.py) */
        for (int kk = 0; kk < nk; kk++)
          if (deps[kk][join])
            for (int j = 0; j < nk; j++) deps[kk][j] |= d[j];
      }
      ks[join].roots[ks[join].nroots++] = (GNode *)n;
      kernel_of[i] = join;
    }
    /* 3. A reduction without a buffer must be reached by one kernel only. */
    bool again = false;
    for (int i = 0; i < nn && !again; i++) {
      if (!is_reduce(g->nodes[i]) || F.mat[i]) continue;
      int owner = -1;
      for (int kk = 0; kk < nk && !again; kk++)
        for (int r = 0; r < ks[kk].nroots; r++) {
          memset(seen, 0, sizeof(bool) * (size_t)nn);
          int nr = 0;
          collect_reads(&F, ks[kk].roots[r], true, seen, reads, &nr);
          if (!seen[i]) continue;
          if (owner >= 0 && owner != kk) {
            F.mat[i] = true;
            again = true;
            break;
          }
          owner = kk;
        }
    }
    if (!again) break;
  }

  /* Buffers: inputs, outputs (one per returned position), temporaries. */
  f->g = g;
  f->kept = kept;
  f->shared = shared;
  f->bufs = ARENA_ARRAY(a, Buffer, nn + g->noutputs + g->ninputs);
  f->node_buf = ARENA_ARRAY(a, int, nn);
  for (int i = 0; i < nn; i++) f->node_buf[i] = -1;
  f->nbufs = 0;
  for (int i = 0; i < nn; i++) {
    const GNode *n = g->nodes[i];
    if (n->op != OP_INPUT) continue;
    const InputSpec *s = &g->inputs[n->input];
    Buffer *b = &f->bufs[f->nbufs];
    *b = (Buffer){.kind = BUF_INPUT, .index = n->input, .name = s->name, .dtype = n->dtype, .ndim = n->ndim,
                  .numel = strided_extent(n->ndim, n->shape, s->stride), .node = n};
    memcpy(b->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim);
    memcpy(b->stride, s->stride, sizeof(int64_t) * (size_t)n->ndim);
    f->node_buf[i] = f->nbufs++;
  }
  int *out_buf = ARENA_ARRAY(a, int, g->noutputs);
  for (int k = 0; k < g->noutputs; k++) {
    const GNode *n = g->outputs[k];
    Buffer *b = &f->bufs[f->nbufs];
    *b = (Buffer){.kind = BUF_OUTPUT, .index = k, .name = arena_printf(a, "out%d", k), .dtype = n->dtype,
                  .ndim = n->ndim, .numel = shape_numel(n->ndim, n->shape), .node = n};
    memcpy(b->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim);
    contiguous_strides(n->ndim, n->shape, b->stride);
    out_buf[k] = f->nbufs++;
    if (f->node_buf[n->id] < 0) f->node_buf[n->id] = out_buf[k];
  }
  for (int i = 0; i < nn; i++) {
    const GNode *n = g->nodes[i];
    if (!F.mat[i] || f->node_buf[i] >= 0) continue;
    Buffer *b = &f->bufs[f->nbufs];
    *b = (Buffer){.kind = BUF_TEMP, .index = i, .name = arena_printf(a, "buf%d", i), .dtype = n->dtype,
                  .ndim = n->ndim, .numel = shape_numel(n->ndim, n->shape), .node = n};
    memcpy(b->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim);
    contiguous_strides(n->ndim, n->shape, b->stride);
    f->node_buf[i] = f->nbufs++;
  }
  /* Each kernel stores each of its roots into every buffer that holds it:
   * a node returned twice is stored twice; an input returned as is gets a
   * copy kernel (a root whose value is its own load). */
  int nscatter = 0;
  for (int i = 0; i < nn; i++) nscatter += g->nodes[i]->op == OP_SCATTER_ADD;
  f->kernels = ARENA_ARRAY(a, FusedKernel, nk + nscatter + g->noutputs);
  f->nkernels = 0;
  /* A root that joined an earlier kernel may read a later one's buffer:
   * order kernels by their dependencies (lowest index first). */
  int *order = ARENA_ARRAY(a, int, nk + 1);
  bool *done = ARENA_ARRAY(a, bool, nk + 1);
  for (int placed = 0; placed < nk; placed++) {
    int pick = -1;
    for (int kk = 0; kk < nk && pick < 0; kk++) {
      if (done[kk]) continue;
      bool ready = true;
      for (int j = 0; j < nk; j++) ready &= !deps[kk][j] || done[j] || j == kk;
      if (ready) pick = kk;
    }
    coil_assert(pick >= 0);
    done[pick] = true;
    order[placed] = pick;
  }
  for (int oi = 0; oi < nk; oi++) {
    FusedKernel *src = &ks[order[oi]];
    FusedKernel *dst = &f->kernels[f->nkernels++];
    *dst = (FusedKernel){.roots = ARENA_ARRAY(a, GNode *, src->nroots + g->noutputs),
                         .root_buf = ARENA_ARRAY(a, int, src->nroots + g->noutputs)};
    for (int r = 0; r < src->nroots; r++) {
      const GNode *n = src->roots[r];
      bool any = false;
      for (int k = 0; k < g->noutputs; k++)
        if (g->outputs[k] == n) {
          dst->roots[dst->nroots] = (GNode *)n;
          dst->root_buf[dst->nroots++] = out_buf[k];
          any = true;
        }
      if (!any) {
        dst->roots[dst->nroots] = (GNode *)n;
        dst->root_buf[dst->nroots++] = f->node_buf[n->id];
      }
    }
    /* Each sum at indices among the roots (the kernel wrote its base):
     * its scatter kernel, next, before any kernel that reads it (those
     * wait for this one), adding into every buffer that holds it. */
    int nroots = dst->nroots;
    for (int r = 0; r < nroots; r++) {
      const GNode *n = dst->roots[r];
      bool first = true;
      for (int q = 0; q < r; q++) first &= dst->roots[q] != n;
      if (n->op != OP_SCATTER_ADD || !first) continue;
      FusedKernel *sk = &f->kernels[f->nkernels++];
      *sk = (FusedKernel){.roots = ARENA_ARRAY(a, GNode *, nroots), .root_buf = ARENA_ARRAY(a, int, nroots), .scatter = true};
      for (int q = r; q < nroots; q++)
        if (dst->roots[q] == n) sk->roots[sk->nroots] = (GNode *)n, sk->root_buf[sk->nroots++] = dst->root_buf[q];
    }
  }
  /* Outputs that are inputs: a copy kernel each. */
  for (int k = 0; k < g->noutputs; k++) {
    const GNode *n = g->outputs[k];
    if (n->op != OP_INPUT) continue;
    FusedKernel *dst = &f->kernels[f->nkernels++];
    *dst = (FusedKernel){.roots = ARENA_ARRAY(a, GNode *, 1), .root_buf = ARENA_ARRAY(a, int, 1), .nroots = 1};
    dst->roots[0] = (GNode *)n;
    dst->root_buf[0] = out_buf[k];
  }
  return NULL;
}

void fuse_dump(StrBuf *sb, const Fusion *f) {
  static const char *kinds[] = {"input", "output", "temp"};
  sb_puts(sb, "buffers\n");
  for (int i = 0; i < f->nbufs; i++) {
    const Buffer *b = &f->bufs[i];
    sb_printf(sb, "  b%d %s %s %s", i, kinds[b->kind], b->name, dtype_name(b->dtype));
    shape_str(sb, b->ndim, b->shape);
    if (b->kind == BUF_INPUT && f->g->inputs[b->index].strided) {
      sb_putc(sb, ' ');
      stride_str(sb, b->ndim, b->stride);
      sb_printf(sb, " (%lld elements of storage)", (long long)b->numel);
    }
    sb_printf(sb, "  = %%%d%s\n", b->node->id,
              b->kind != BUF_TEMP || !f->kept || !f->kept[b->node->id] ? "" : "  (kept: computing it in each kernel cost more)");
  }
  for (int k = 0; k < f->nkernels; k++) {
    const FusedKernel *K = &f->kernels[k];
    sb_printf(sb, "kernel %d: %s", k, K->scatter ? "adds at indices into" : "roots");
    for (int r = 0; r < K->nroots; r++) sb_printf(sb, " %%%d->b%d", K->roots[r]->id, K->root_buf[r]);
    sb_puts(sb, "\n");
  }
}
