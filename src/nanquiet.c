/* Quiet maxima: a float amax or amin whose NaN cannot change an output.
 *
 * PyTorch's amax of a row that holds a NaN is NaN.  On a GPU tl.max drops
 * NaNs, so the GPU dialect's final tree of a float amax pairs tl.max with a
 * count of x != x, a second tree over the row (src/triton/print.c), and
 * bench case 15 (logsumexp) ran at 75% of the read with it.  Yet in
 * logsumexp and softmax that NaN is never needed: m = amax(x) reaches the
 * outputs only beside sum(exp(x - m)), and a NaN anywhere in x's row makes
 * that sum NaN, and so every output of the row, whatever m is.
 *
 * This pass proves that for an amax or amin A of X over dims R, and marks
 * A nan_quiet: a NaN in A may then be dropped (the GPU dialect reduces it
 * with tl.max alone; the other targets ignore the mark).  The proof is a
 * forward pass over the graph that tracks, without relying on A's value:
 *   ELEM  n has X's shape and is NaN at every point where X is NaN;
 *   ROW   n is NaN at every point whose row (X's points that differ from
 *         it only in R) holds a NaN; n has X's shape or a row's (R kept
 *         as 1, or dropped).
 * X is ELEM; an op that gives NaN for a NaN operand (+ - * /, exp, log,
 * sqrt, ...; a float cast) carries its operands' marks; a sum or prod of
 * an ELEM or ROW value over R is ROW; a ROW value broadcast over its row
 * stays ROW; a reshape between a row's two shapes keeps ROW.
 *
 * A is quiet when it is not an output, every output that depends on it is
 * ROW, and every node that depends on it is aligned: its value at a point
 * depends on A only at that point's row (elementwise ops, a row's value
 * broadcast over its row, reshapes between a row's shapes, reductions over
 * R).  Then at a point whose row holds a NaN the outputs are NaN whatever
 * A is, and any other point reads A only where it has no NaN to drop.
 * Without alignment a row's output could read another row's A: in
 * sum(exp(x - m)) + m.flip(0), or + m.sum(), a NaN-free row would add the
 * NaN of another (tests/golden/nan_quiet.py).  Aligned nodes never index or
 * scatter, so an index computed from A cannot fail its check one way and
 * not the other.  The marks hold whatever values the unmarked nodes take,
 * so several quiet maxima in one graph, each dropping its NaN, still give
 * every output its exact value. */
#include <string.h>

#include "coil.h"

typedef enum Poison { CLEAN, ELEM, ROW } Poison;

/* NaN in any operand gives NaN, on every target. */
static bool nan_strict(const GNode *n) {
  if (!dtype_is_float(n->dtype)) return false;
  switch (n->op) {
  case OP_NEG: case OP_ABS: case OP_EXP: case OP_LOG: case OP_SQRT: case OP_RSQRT: case OP_RECIP: case OP_EXP2:
  case OP_LOG2: case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    return true;
  case OP_CAST: return dtype_is_float(n->in[0]->dtype);
  default: return false;
  }
}

static bool same_shape(const GNode *a, const GNode *b) {
  return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim);
}

/* A row's shape: X's with the R dims at 1 (keepdim) or dropped. */
static bool row_shape(const GNode *n, const GNode *x, uint32_t r) {
  if (n->ndim == x->ndim) {
    for (int d = 0; d < x->ndim; d++)
      if (n->shape[d] != (r >> d & 1 ? 1 : x->shape[d])) return false;
    return true;
  }
  int k = 0;
  for (int d = 0; d < x->ndim; d++)
    if (!(r >> d & 1) && (k >= n->ndim || n->shape[k++] != x->shape[d])) return false;
  return k == n->ndim;
}

/* Is operand o of n a row's value broadcast over the row (the keepdim
 * form into X's shape)? */
static bool row_broadcast(const GNode *n, const GNode *o, const GNode *x, uint32_t r) {
  return same_shape(n, x) && o->ndim == x->ndim && row_shape(o, x, r);
}

/* What operand o, marked p, carries to every point of its user n. */
static Poison carried(const GNode *n, const GNode *o, Poison p, const GNode *x, uint32_t r) {
  if (p == CLEAN) return CLEAN;
  if (same_shape(n, o)) return p;
  return p == ROW && row_broadcast(n, o, x, r) ? ROW : CLEAN;
}

static Poison mark_of(const GNode *n, const Poison *mark, const GNode *a) {
  const GNode *x = a->in[0];
  uint32_t r = a->rmask;
  if (n == x) return ELEM;
  if (n == a) return CLEAN; /* A's own NaN is what is in question */
  if (nan_strict(n)) {
    Poison best = CLEAN;
    for (int k = 0; k < n->nin; k++) {
      Poison c = carried(n, n->in[k], mark[n->in[k]->id], x, r);
      if (c > best) best = c;
    }
    return best;
  }
  if (n->op == OP_RESHAPE && mark[n->in[0]->id] == ROW && row_shape(n, x, r) && row_shape(n->in[0], x, r)) return ROW;
  if (n->op == OP_RESHAPE && same_shape(n, n->in[0])) return mark[n->in[0]->id];
  if ((n->op == OP_SUM || n->op == OP_PROD) && dtype_is_float(n->dtype) && n->rmask == r && same_shape(n->in[0], x) &&
      mark[n->in[0]->id] != CLEAN)
    return ROW;
  return CLEAN;
}

/* Does n, which depends on A, read A only at its own points' rows? (Its
 * operands that depend on A are aligned already.) */
static bool aligned(const GNode *n, const GNode *x, uint32_t r, const bool *dep) {
  bool full = same_shape(n, x), row = row_shape(n, x, r);
  if (!full && !row) return false;
  switch (op_info[n->op].kind) {
  case OK_UNARY: case OK_BINARY: case OK_COMPARE: case OK_WHERE: case OK_CAST:
    for (int k = 0; k < n->nin; k++) {
      const GNode *o = n->in[k];
      if (dep[o->id] && !same_shape(o, n) && !row_broadcast(n, o, x, r)) return false;
    }
    return true;
  case OK_VIEW: return n->op == OP_RESHAPE && (same_shape(n, n->in[0]) || (row && row_shape(n->in[0], x, r)));
  case OK_REDUCE: return n->rmask == r && same_shape(n->in[0], x);
  default: return false;
  }
}

static bool quiet(const Graph *g, const GNode *a, Poison *mark, bool *dep) {
  for (int k = 0; k < g->noutputs; k++)
    if (g->outputs[k] == a) return false;
  for (int i = 0; i < g->nnodes; i++) {
    const GNode *n = g->nodes[i];
    dep[i] = n == a;
    for (int k = 0; k < n->nin && !dep[i]; k++) dep[i] = dep[n->in[k]->id];
    if (dep[i] && n != a && !aligned(n, a->in[0], a->rmask, dep)) return false;
    mark[i] = mark_of(n, mark, a);
  }
  for (int k = 0; k < g->noutputs; k++)
    if (dep[g->outputs[k]->id] && mark[g->outputs[k]->id] != ROW) return false;
  return true;
}

void graph_quiet_nans(Arena *a, Graph *g) {
  Poison *mark = ARENA_ARRAY(a, Poison, g->nnodes + 1);
  bool *dep = ARENA_ARRAY(a, bool, g->nnodes + 1);
  for (int i = 0; i < g->nnodes; i++) {
    GNode *n = g->nodes[i];
    if ((n->op == OP_AMAX || n->op == OP_AMIN) && dtype_is_float(n->dtype) && n->rmask) n->nan_quiet = quiet(g, n, mark, dep);
  }
}
