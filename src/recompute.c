/* Recomputation: when kernels compute too much again.
 *
 * Fusion keeps in buffers only inputs, outputs and the reductions it must:
 * a pointwise value is computed by every kernel that needs it, which is
 * cheaper than writing it to memory and reading it back, as long as those
 * kernels are few and the value cheap.  A function that chains reductions
 * through pointwise layers breaks that: in a stack of layer norms each
 * mean and variance computes every earlier layer again from x, so the work
 * grows with the square of the depth (eight layers over 16 rows of 131072:
 * 76 ms; 9.8 ms with layers kept).  A target may take part of that back
 * (the CPU's chains pass values between kernels in row buffers, and say
 * so through Compiled.reuse); what remains is measured here, after the
 * target's plan, as the factor between the work the kernels do and the
 * graph's own.  Past
 * RECOMPUTE_MAX, the pipeline (compile.c) keeps in a buffer the pointwise
 * node that saves the most (the kernels that compute it, less one, times
 * the work of what it takes to compute it) and plans again, until the
 * factor is within bounds or nothing is left to keep.
 *
 * Work is counted as op_cost per value times the points it is
 * computed at: a value inside a reduction once per reduced element.  A
 * kept node costs a write and a read per element, from memory when it is
 * large: about as long as KEEP_MIN_WORK vector operations per element on
 * the development machine (a 4-byte element each way at 32 GB/s against
 * two cores of 16 lanes), so a node is kept only when it saves more. */
#include <stdlib.h>
#include <string.h>

#include "coil.h"

static double numel(const GNode *n) { return (double)shape_numel(n->ndim, n->shape); }

static double graph_work(const Graph *g) {
  double w = 0;
  for (int i = 0; i < g->nnodes; i++) {
    const GNode *n = g->nodes[i];
    if (op_is_pointwise(n->op)) w += op_cost(n->op) * numel(n);
    else if (op_info[n->op].kind == OK_REDUCE) w += numel(n->in[0]);
  }
  return w;
}

/* The axes value i of k is computed along (a bit per axis): the printers
 * hoist a value out of the loops it does not vary along (a row's rsqrt is
 * computed once per row), so it costs once per point of these. */
static uint64_t value_axes(const Kernel *k, int i, const uint64_t *axes) {
  const KVal *v = &k->vals[i];
  uint64_t m = 0;
  if (op_is_load(v->op) || v->op == OP_IOTA) {
    for (int a = 0; a < k->naxes && a < 64; a++)
      if (kval_mentions(v, a)) m |= 1ull << a;
  } else if (op_info[v->op].kind == OK_REDUCE) {
    const KRed *r = &k->reds[v->red];
    m = axes[r->src];
    const KGroup *G = &k->groups[r->group];
    for (int t = 0; t < G->naxes; t++) m &= ~(1ull << (G->axes[t] & 63));
  }
  for (int t = 0; t < v->narg; t++) m |= axes[v->arg[t]];
  return m;
}

double recompute_factor(const Graph *g, const Program *p, const int *const *reuse_all) {
  double w = 0;
  for (int i = 0; i < p->nkernels; i++) {
    const Kernel *k = &p->kernels[i];
    bool *need = calloc((size_t)k->nvals + 1, 1);
    uint64_t *axes = calloc((size_t)k->nvals + 1, sizeof *axes);
    if (!need || !axes) coil_unreachable("out of memory");
    const int *reuse = reuse_all ? reuse_all[i] : NULL;
    kernel_mark_needed(k, need, reuse);
    for (int v = 0; v < k->nvals; v++) {
      axes[v] = value_axes(k, v, axes);
      if (!need[v] || (reuse && reuse[v] >= 0)) continue;
      double points = 1;
      for (int a = 0; a < k->naxes; a++)
        if (a >= 64 || axes[v] >> a & 1) points *= (double)k->axes[a].size;
      w += op_cost(k->vals[v].op) * points;
    }
    for (int r = 0; r < k->nreds; r++) {
      double points = 1;
      uint64_t m = axes[k->reds[r].src];
      for (int a = 0; a < k->naxes; a++)
        if (a >= 64 || m >> a & 1) points *= (double)k->axes[a].size;
      w += points;
    }
    free(need);
    free(axes);
  }
  double gw = graph_work(g);
  return gw > 0 ? w / gw : 1;
}

/* Mark, with stamp, the nodes kernel K computes: from its roots through
 * nodes without buffers (a reduction without one is computed inside). */
static void mark_computed(const GNode *n, bool top, const Fusion *f, int *seen, int stamp, int *count) {
  if (seen[n->id] == stamp) return;
  seen[n->id] = stamp;
  if (!top && f->node_buf[n->id] >= 0) return; /* read from its buffer */
  count[n->id]++;
  for (int i = 0; i < n->nin; i++) mark_computed(n->in[i], false, f, seen, stamp, count);
}

/* The work of computing n where nodes with buffers are read. */
static double cone_work(const GNode *n, const Fusion *f, int *seen, int stamp) {
  if (seen[n->id] == stamp) return 0;
  seen[n->id] = stamp;
  if (n->op == OP_INPUT || f->node_buf[n->id] >= 0) return 0;
  double w = op_is_pointwise(n->op) ? op_cost(n->op) * numel(n) : op_info[n->op].kind == OK_REDUCE ? numel(n->in[0]) : 0;
  for (int i = 0; i < n->nin; i++) w += cone_work(n->in[i], f, seen, stamp);
  return w;
}

int recompute_pick(Arena *a, const Graph *g, const Fusion *f) {
  int nn = g->nnodes, stamp = 0;
  int *count = ARENA_ARRAY(a, int, nn + 1), *seen = ARENA_ARRAY(a, int, nn + 1);
  for (int k = 0; k < f->nkernels; k++) {
    ++stamp;
    for (int r = 0; r < f->kernels[k].nroots; r++) mark_computed(f->kernels[k].roots[r], true, f, seen, stamp, count);
  }
  int best = -1;
  double best_saving = 0;
  for (int i = 0; i < nn; i++) {
    const GNode *n = g->nodes[i];
    if (!op_is_pointwise(n->op) || f->node_buf[i] >= 0 || count[i] < 2) continue;
    double saving = (count[i] - 1) * cone_work(n, f, seen, ++stamp);
    if (saving > best_saving && saving > KEEP_MIN_WORK * numel(n)) best = i, best_saving = saving;
  }
  return best;
}
