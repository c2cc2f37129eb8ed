/* The eager reference evaluator.
 *
 * Evaluates the graph a line at a time: eval_line(n, idx, dim, len) gives
 * n at idx, idx + e_dim, ... (len points).  Views map the line onto their
 * input (a permute moves the dim, an expand of a size-1 dim makes it a
 * constant, a reshape follows it while it stays within one input dim);
 * pointwise ops apply PyTorch's dtype semantics element by element.
 * Reductions are computed first, in graph order, each into its own array,
 * in parallel over their output points; they sum in double and round once.
 * Nothing else is materialized, so the seed case needs no intermediate
 * tensor of the input's size, except the pointwise nodes many reductions
 * would evaluate again (keep_nodes: stacked layers).
 *
 * Requires: a verified graph and its inputs.  It shares no code with the
 * compiler's lowering or printers, so it checks them independently. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "coil.h"

#define LINE_MAX_LEN 2048

typedef struct Line {
  const RV *p;
  int64_t stride; /* 0: one value for the whole line */
} Line;

/* Per-thread memory for one top-level line, and a memo of the lines
 * computed for it, so a value used twice (x + x) is computed once. */
typedef struct Memo {
  unsigned gen;
  int dim;
  int64_t len;
  int64_t idx[COIL_MAX_DIMS];
  Line line;
} Memo;

typedef struct Scratch {
  RV *buf;
  size_t used, cap;
  Memo *memo; /* per node id */
  unsigned gen;
} Scratch;

typedef struct Ref {
  const Graph *g;
  void *const *inputs;
  bool f64;
  RefCasts casts;
  RV **red; /* per node id: a reduction's results, or a kept node's values */
  int bad;  /* 1 + the id of an indexed read given an index out of range (0: none) */
} Ref;

static RV *scratch(Scratch *S, int64_t n) {
  if (S->used + (size_t)n > S->cap) coil_unreachable("reference scratch exhausted");
  RV *p = S->buf + S->used;
  S->used += (size_t)n;
  return p;
}

static bool isf(DType t) { return dtype_is_float(t); }

static RV read_elem(DType t, const void *base, int64_t i) {
  RV v;
  switch (t) {
  case DT_F32: v.f = ((const float *)base)[i]; break;
  case DT_F64: v.f = ((const double *)base)[i]; break;
  case DT_BF16: v.f = bf16_to_f32(((const uint16_t *)base)[i]); break;
  case DT_F16: v.f = f16_to_f32(((const uint16_t *)base)[i]); break;
  case DT_I32: v.i = ((const int32_t *)base)[i]; break;
  case DT_I64: v.i = ((const int64_t *)base)[i]; break;
  case DT_BOOL: v.i = ((const uint8_t *)base)[i] != 0; break;
  default: coil_unreachable("dtype");
  }
  return v;
}

static double round_to(const Ref *R, DType t, double x) { return R->f64 ? x : dtype_round(t, x); }

static int64_t wrap_int(DType t, int64_t v) {
  if (t == DT_I32) return (int32_t)(uint32_t)(uint64_t)v;
  if (t == DT_BOOL) return v != 0;
  return v;
}

/* A float to an integer, truncating.  NaN and values out of range have no
 * answer in C or PyTorch; each machine gives its own: x86 (the C target,
 * PyTorch on the CPU) the integer indefinite, INT_MIN; a GPU (the Triton
 * targets, PyTorch on CUDA) 0 for NaN and the nearer end otherwise. */
static int64_t f2i(RefCasts casts, DType t, double x) {
  if (t == DT_BOOL) return x != 0;
  double lo = t == DT_I32 ? -2147483648.0 : -9223372036854775808.0, hi = -lo;
  int64_t min = t == DT_I32 ? INT32_MIN : INT64_MIN, max = t == DT_I32 ? INT32_MAX : INT64_MAX;
  if (x == x && x >= lo && x < hi) return (int64_t)x;
  if (casts == REF_CASTS_CPU) return min;
  return x != x ? 0 : x < 0 ? min : max;
}

static int64_t ipow(int64_t b, int64_t e) {
  if (e < 0) return b == 1 ? 1 : b == -1 ? (e & 1 ? -1 : 1) : 0;
  uint64_t r = 1, ub = (uint64_t)b;
  while (e) {
    if (e & 1) r *= ub;
    ub *= ub;
    e >>= 1;
  }
  return (int64_t)r;
}

static double fmaxnan(double a, double b) { return a != a || a > b ? a : b; }
static double fminnan(double a, double b) { return a != a || a < b ? a : b; }

/* PyTorch's CPU pow by a small integer multiplies, rounding x * x to bf16
 * for a bf16 x ** 3 and x ** -2 and to the compute dtype otherwise, and
 * by 0.5 and -0.5 takes sqrt and rsqrt except for f16 (lower.c lowers them
 * the same way); any other power, and every power by a tensor exponent
 * (which PyTorch takes element by element), is pow.  The caller rounds the
 * result to the node's dtype. */
static double ref_pow(const Ref *R, const GNode *n, double a, double b) {
  if (n->in[1]->op != OP_CONST) return pow(a, b);
  /* sqrt's signs and NaNs, not pow's, as PyTorch but for f16 (lower.c) */
  if ((b == 0.5 || b == -0.5) && n->dtype != DT_F16) return b > 0 ? sqrt(a) : 1 / sqrt(a);
  if (R->f64 || !(b == 2 || b == 3 || b == 4 || b == -1 || b == -2)) return pow(a, b);
  DType cd = n->cdtype, inner = n->dtype == DT_BF16 && (b == 3 || b == -2) ? DT_BF16 : cd;
  double sq = round_to(R, inner, a * a);
  if (b == 2) return a * a;
  if (b == 3) return round_to(R, cd, sq * a);
  if (b == 4) return round_to(R, cd, sq * sq);
  if (b == -1) return 1 / a;
  return round_to(R, cd, 1 / sq);
}

/* One element of a pointwise op.  a, b, c are the operands' values, of the
 * operands' dtypes ta, tb, tc. */
static RV apply(const Ref *R, const GNode *n, const RV *v, const DType *t) {
  RV r;
  DType cd = n->cdtype;
  if (n->op == OP_WHERE) {
    RV pick = v[0].i ? v[1] : v[2];
    DType pt = v[0].i ? t[1] : t[2];
    if (isf(n->dtype)) r.f = round_to(R, n->dtype, isf(pt) ? pick.f : (double)pick.i);
    else r.i = isf(pt) ? f2i(R->casts, n->dtype, pick.f) : wrap_int(n->dtype, pick.i);
    return r;
  }
  if (isf(cd)) {
    double a = isf(t[0]) ? v[0].f : (double)v[0].i;
    double b = n->nin > 1 ? (isf(t[1]) ? v[1].f : (double)v[1].i) : 0;
    double x;
    switch (n->op) {
    case OP_NEG: x = -a; break;
    case OP_ABS: x = fabs(a); break;
    case OP_EXP: x = exp(a); break;
    case OP_LOG: x = log(a); break;
    case OP_SQRT: x = sqrt(a); break;
    case OP_RSQRT: x = 1 / sqrt(a); break;
    case OP_SIGMOID: /* in long double: in double, 1 + e^-a rounds to 1 from a = 36.7 and e^-a overflows below -709.8 */
      x = (double)(1.0L / (1.0L + expl(-(long double)a)));
      break;
    case OP_TANH: x = tanh(a); break;
    case OP_RECIP: x = 1 / a; break;
    case OP_ERF: x = erf(a); break;
    case OP_SIN: x = sin(a); break;
    case OP_COS: x = cos(a); break;
    case OP_EXP2: x = exp2(a); break;
    case OP_LOG2: x = log2(a); break;
    case OP_FLOOR: x = floor(a); break;
    case OP_TAN: x = tan(a); break;
    case OP_ASIN: x = asin(a); break;
    case OP_ACOS: x = acos(a); break;
    case OP_ATAN: x = atan(a); break;
    case OP_SINH: x = sinh(a); break;
    case OP_COSH: x = cosh(a); break;
    case OP_ASINH: x = asinh(a); break;
    case OP_ACOSH: x = acosh(a); break;
    case OP_ATANH: x = atanh(a); break;
    case OP_ERFC: x = erfc(a); break;
    case OP_ERFINV: x = coil_erfinv(a); break;
    case OP_EXPM1: x = expm1(a); break;
    case OP_LOG10: x = log10(a); break;
    case OP_LOG1P: x = log1p(a); break;
    case OP_ATAN2: x = atan2(a, b); break;
    case OP_HYPOT: x = hypot(a, b); break;
    case OP_COPYSIGN: x = copysign(a, b); break;
    case OP_FMOD: x = fmod(a, b); break;
    case OP_CEIL: x = ceil(a); break;
    case OP_ADD: x = a + b; break;
    case OP_SUB: x = a - b; break;
    case OP_MUL: x = a * b; break;
    case OP_DIV: x = a / b; break;
    case OP_POW: x = ref_pow(R, n, a, b); break;
    case OP_MAXIMUM: x = fmaxnan(a, b); break;
    case OP_MINIMUM: x = fminnan(a, b); break;
    case OP_LT: r.i = a < b; return r;
    case OP_LE: r.i = a <= b; return r;
    case OP_GT: r.i = a > b; return r;
    case OP_GE: r.i = a >= b; return r;
    case OP_EQ: r.i = a == b; return r;
    case OP_NE: r.i = a != b; return r;
    default: coil_unreachable("float op");
    }
    /* Operands were converted to the compute dtype first. */
    r.f = round_to(R, n->dtype, x);
    return r;
  }
  int64_t a = isf(t[0]) ? f2i(R->casts, cd, v[0].f) : v[0].i;
  int64_t b = n->nin > 1 ? (isf(t[1]) ? f2i(R->casts, cd, v[1].f) : v[1].i) : 0;
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int64_t x;
  switch (n->op) {
  case OP_NEG: x = (int64_t)(0 - ua); break;
  case OP_ABS: x = a < 0 ? (int64_t)(0 - ua) : a; break;
  case OP_NOT: x = !a; break;
  case OP_ADD: x = (int64_t)(ua + ub); break;
  case OP_SUB: x = (int64_t)(ua - ub); break;
  case OP_MUL: x = (int64_t)(ua * ub); break;
  case OP_POW: x = ipow(a, b); break;
  case OP_MAXIMUM: x = a > b ? a : b; break;
  case OP_MINIMUM: x = a < b ? a : b; break;
  case OP_AND: x = a & b; break;
  case OP_OR: x = a | b; break;
  case OP_XOR: x = a ^ b; break;
  /* x % 0 and x / 0 are 0, MIN / -1 wraps (see ops.h) */
  case OP_FMOD: x = b == 0 || b == -1 ? 0 : a % b; break;
  case OP_IDIV: x = b == 0 ? 0 : b == -1 ? (int64_t)(0 - ua) : a / b; break;
  case OP_SHL: {
    int bits = cd == DT_I32 ? 32 : 64;
    x = b < 0 || b >= bits ? 0 : cd == DT_I32 ? (int32_t)((uint32_t)ua << b) : (int64_t)(ua << b);
    break;
  }
  case OP_SHR: {
    int bits = cd == DT_I32 ? 32 : 64;
    x = a >> (b < 0 || b >= bits ? 63 : b);
    break;
  }
  case OP_LT: x = a < b; break;
  case OP_LE: x = a <= b; break;
  case OP_GT: x = a > b; break;
  case OP_GE: x = a >= b; break;
  case OP_EQ: x = a == b; break;
  case OP_NE: x = a != b; break;
  default: coil_unreachable("int op");
  }
  r.i = wrap_int(n->dtype, x);
  return r;
}

static RV cast_elem(const Ref *R, DType from, DType to, RV v) {
  RV r;
  if (isf(to)) r.f = round_to(R, to, isf(from) ? v.f : (double)v.i);
  else r.i = isf(from) ? f2i(R->casts, to, v.f) : wrap_int(to, v.i);
  return r;
}

static Line eval_line(Ref *R, Scratch *S, const GNode *n, const int64_t *idx, int dim, int64_t len);

/* The line along `dim` of n (dim < 0: a single point). */
static Line eval_line_raw(Ref *R, Scratch *S, const GNode *n, const int64_t *idx, int dim, int64_t len) {
  int64_t cs[COIL_MAX_DIMS];
  contiguous_strides(n->ndim, n->shape, cs);
  switch (n->op) {
  case OP_INPUT: {
    /* by the caller's strides: the input may be a view of its storage */
    const int64_t *is = R->g->inputs[n->input].stride;
    int64_t off = 0;
    for (int d = 0; d < n->ndim; d++) off += idx[d] * is[d];
    RV *out = scratch(S, len);
    int64_t step = dim < 0 ? 0 : is[dim];
    const void *base = R->inputs[n->input];
    switch (n->dtype) { /* the dtype switch outside the element loop */
    case DT_F32: for (int64_t t = 0; t < len; t++) out[t].f = ((const float *)base)[off + t * step]; break;
    case DT_BOOL: for (int64_t t = 0; t < len; t++) out[t].i = ((const uint8_t *)base)[off + t * step] != 0; break;
    default: for (int64_t t = 0; t < len; t++) out[t] = read_elem(n->dtype, base, off + t * step);
    }
    return (Line){out, dim < 0 ? 0 : 1};
  }
  case OP_CONST: {
    RV *out = scratch(S, 1);
    if (isf(n->dtype)) out->f = round_to(R, n->dtype, n->fval);
    else out->i = n->ival;
    return (Line){out, 0};
  }
  case OP_IOTA: { /* ival + step * index along n->dim */
    bool along = dim == n->dim;
    RV *out = scratch(S, along ? len : 1);
    for (int64_t t = 0; t < (along ? len : 1); t++) out[t].i = (int64_t)((uint64_t)n->ival + (uint64_t)n->step * (uint64_t)(idx[n->dim] + t));
    return (Line){out, along ? 1 : 0};
  }
  default: break;
  }
  if (R->red[n->id]) {
    int64_t off = 0;
    for (int d = 0; d < n->ndim; d++) off += idx[d] * cs[d];
    if (dim < 0) return (Line){R->red[n->id] + off, 0};
    if (cs[dim] == 1) return (Line){R->red[n->id] + off, 1};
    RV *out = scratch(S, len);
    for (int64_t t = 0; t < len; t++) out[t] = R->red[n->id][off + t * cs[dim]];
    return (Line){out, 1};
  }
  int64_t sub[COIL_MAX_DIMS];
  switch (op_info[n->op].kind) {
  case OK_CAST: {
    Line a = eval_line(R, S, n->in[0], idx, dim, len);
    int64_t m = a.stride ? len : 1;
    RV *out = scratch(S, m);
    for (int64_t t = 0; t < m; t++) out[t] = cast_elem(R, n->in[0]->dtype, n->dtype, a.p[t]);
    return (Line){out, a.stride};
  }
  case OK_UNARY: case OK_BINARY: case OK_COMPARE: case OK_WHERE: {
    Line in[3];
    DType t[3];
    bool any = false;
    for (int i = 0; i < n->nin; i++) {
      const GNode *x = n->in[i];
      int off = n->ndim - x->ndim;
      int xd = -1;
      for (int d = 0; d < x->ndim; d++) {
        bool bcast = x->shape[d] == 1 && n->shape[d + off] != 1;
        sub[d] = bcast ? 0 : idx[d + off];
        if (d + off == dim && !bcast) xd = d;
      }
      in[i] = eval_line(R, S, x, sub, xd, len);
      t[i] = x->dtype;
      any |= in[i].stride != 0;
    }
    int64_t m = any ? len : 1;
    RV *out = scratch(S, m);
    RV v[3];
    for (int64_t k = 0; k < m; k++) {
      for (int i = 0; i < n->nin; i++) v[i] = in[i].p[k * in[i].stride];
      out[k] = apply(R, n, v, t);
    }
    return (Line){out, any ? 1 : 0};
  }
  case OK_VIEW: {
    const GNode *x = n->in[0];
    if (n->op == OP_PERMUTE) {
      for (int d = 0; d < n->ndim; d++) sub[n->perm[d]] = idx[d];
      return eval_line(R, S, x, sub, dim < 0 ? -1 : n->perm[dim], len);
    }
    if (n->op == OP_EXPAND) {
      int off = n->ndim - x->ndim, xd = -1;
      for (int d = 0; d < x->ndim; d++) {
        sub[d] = x->shape[d] == 1 ? 0 : idx[d + off];
        if (d + off == dim && x->shape[d] != 1) xd = d;
      }
      return eval_line(R, S, x, sub, xd, len);
    }
    if (n->op == OP_SLICE) {
      for (int d = 0; d < n->ndim; d++) sub[d] = n->start[d] + n->sstep[d] * idx[d];
      if (dim < 0 || n->sstep[dim] == 1) return eval_line(R, S, x, sub, dim, len);
      /* A line with a step other than 1 (a strided or reversed slice):
       * point by point, as a reshape's line that crosses dims. */
      RV *out = scratch(S, len);
      int64_t at = sub[dim];
      for (int64_t t = 0; t < len; t++) {
        sub[dim] = at + n->sstep[dim] * t;
        size_t mark = S->used;
        out[t] = eval_line(R, S, x, sub, -1, 1).p[0];
        S->used = mark;
        S->gen++; /* the memo's lines lived in the scratch just released */
      }
      return (Line){out, 1};
    }
    if (n->op == OP_PAD) {
      /* x's line where it is inside x, the fill elsewhere */
      RV fill;
      if (isf(n->dtype)) fill.f = round_to(R, n->dtype, n->fval);
      else fill.i = n->ival;
      int64_t t0 = 0, t1 = dim < 0 ? 1 : len;
      for (int d = 0; d < n->ndim; d++) {
        sub[d] = idx[d] + n->start[d];
        if (d == dim) {
          if (-sub[d] > t0) t0 = -sub[d];
          if (x->shape[d] - sub[d] < t1) t1 = x->shape[d] - sub[d];
        } else if (sub[d] < 0 || sub[d] >= x->shape[d]) {
          t1 = t0;
        }
      }
      if (t0 >= t1) {
        RV *out = scratch(S, 1);
        *out = fill;
        return (Line){out, 0};
      }
      if (t0 == 0 && t1 == (dim < 0 ? 1 : len)) return eval_line(R, S, x, sub, dim, len);
      if (dim >= 0) sub[dim] += t0;
      Line in = eval_line(R, S, x, sub, dim, t1 - t0);
      RV *out = scratch(S, len);
      for (int64_t t = 0; t < len; t++) out[t] = t >= t0 && t < t1 ? in.p[(t - t0) * in.stride] : fill;
      return (Line){out, 1};
    }
    /* Reshape: through the flat offset. */
    int64_t xcs[COIL_MAX_DIMS], flat = 0;
    contiguous_strides(x->ndim, x->shape, xcs);
    for (int d = 0; d < n->ndim; d++) flat += idx[d] * cs[d];
    for (int d = 0; d < x->ndim; d++) sub[d] = flat / xcs[d] % x->shape[d];
    if (dim < 0) return eval_line(R, S, x, sub, -1, 1);
    for (int d = 0; d < x->ndim; d++)
      if (xcs[d] == cs[dim] && sub[d] + len <= x->shape[d]) return eval_line(R, S, x, sub, d, len);
    /* The line crosses input dims: take it point by point. */
    RV *out = scratch(S, len);
    for (int64_t t = 0; t < len; t++) {
      int64_t f = flat + t * cs[dim];
      for (int d = 0; d < x->ndim; d++) sub[d] = f / xcs[d] % x->shape[d];
      size_t mark = S->used;
      out[t] = eval_line(R, S, x, sub, -1, 1).p[0];
      S->used = mark;
      S->gen++; /* the memo's lines lived in the scratch just released */
    }
    return (Line){out, 1};
  }
  case OK_GATHER: {
    /* point by point: the index's value, then the input there */
    const GNode *x = n->in[0];
    Line ix = eval_line(R, S, n->in[1], idx, dim, len);
    int64_t m = dim < 0 ? 1 : len, size = x->shape[n->dim];
    RV *out = scratch(S, m);
    int64_t q[COIL_MAX_DIMS];
    memcpy(q, idx, sizeof(int64_t) * (size_t)n->ndim);
    for (int64_t t = 0; t < m; t++) {
      int64_t i = ix.p[t * ix.stride].i;
      if (n->wraps && i < 0) i += size;
      if (i < 0 || i >= size) {
        __atomic_store_n(&R->bad, n->id + 1, __ATOMIC_RELAXED);
        out[t] = (RV){.i = 0};
        continue;
      }
      for (int d = 0; d < x->ndim; d++) sub[d] = d == n->dim ? i : n->perm[d] < 0 ? 0 : q[n->perm[d]] + (dim == n->perm[d] ? t : 0);
      size_t mark = S->used;
      out[t] = eval_line(R, S, x, sub, -1, 1).p[0];
      S->used = mark;
      S->gen++; /* the memo's lines lived in the scratch just released */
    }
    return (Line){out, dim < 0 ? 0 : 1};
  }
  default: coil_unreachable("reduction without its results");
  }
}

static Line eval_line(Ref *R, Scratch *S, const GNode *n, const int64_t *idx, int dim, int64_t len) {
  if (dim < 0) len = 1;
  Memo *m = &S->memo[n->id];
  if (m->gen == S->gen && m->dim == dim && m->len == len &&
      !memcmp(m->idx, idx, sizeof(int64_t) * (size_t)n->ndim))
    return m->line;
  Line l = eval_line_raw(R, S, n, idx, dim, len);
  m->gen = S->gen;
  m->dim = dim;
  m->len = len;
  memcpy(m->idx, idx, sizeof(int64_t) * (size_t)n->ndim);
  m->line = l;
  return l;
}

static void acc_combine(Op op, bool fl, RV *acc, RV v) {
  if (fl) {
    switch (op) {
    case OP_SUM: acc->f += v.f; break;
    case OP_PROD: acc->f *= v.f; break;
    case OP_AMAX: acc->f = fmaxnan(acc->f, v.f); break;
    default: acc->f = fminnan(acc->f, v.f); break;
    }
  } else {
    switch (op) {
    case OP_SUM: acc->i = (int64_t)((uint64_t)acc->i + (uint64_t)v.i); break;
    case OP_PROD: acc->i = (int64_t)((uint64_t)acc->i * (uint64_t)v.i); break;
    case OP_AMAX: acc->i = v.i > acc->i ? v.i : acc->i; break;
    default: acc->i = v.i < acc->i ? v.i : acc->i; break;
    }
  }
}

/* acc[t * astep] = combine(acc[t * astep], v[t]) for a line; the loops are
 * chosen outside the element loop so the reference streams at memory speed
 * (the large-tensor test sums 2.2e9 elements twice). */
static void accumulate_line(RefCasts casts, Op op, DType acc_t, DType in_t, RV *acc, int64_t astep, Line v, int64_t len) {
  bool fl = isf(acc_t), fin = isf(in_t);
  const RV *p = v.p;
  int64_t vs = v.stride;
#define ACC_LOOP(GET, COMBINE)                                                                     \
  for (int64_t t = 0; t < len; t++) {                                                              \
    RV *a = &acc[t * astep];                                                                       \
    GET;                                                                                           \
    COMBINE;                                                                                       \
  }
  if (fl) {
    if (fin && op == OP_SUM) { ACC_LOOP(double x = p[t * vs].f, a->f += x) }
    else if (!fin && op == OP_SUM) { ACC_LOOP(double x = (double)p[t * vs].i, a->f += x) }
    else ACC_LOOP(RV x; x.f = fin ? p[t * vs].f : (double)p[t * vs].i, acc_combine(op, true, a, x))
  } else {
    if (!fin && op == OP_SUM) { ACC_LOOP(uint64_t x = (uint64_t)p[t * vs].i, a->i = (int64_t)((uint64_t)a->i + x)) }
    else if (!fin && op == OP_AMAX) { ACC_LOOP(int64_t x = p[t * vs].i, a->i = x > a->i ? x : a->i) }
    else if (!fin && op == OP_AMIN) { ACC_LOOP(int64_t x = p[t * vs].i, a->i = x < a->i ? x : a->i) }
    else ACC_LOOP(RV x; x.i = fin ? f2i(casts, acc_t, p[t * vs].f) : p[t * vs].i, acc_combine(op, false, a, x))
  }
#undef ACC_LOOP
}

static RV identity(Op op, DType t) {
  RV r;
  bool fl = isf(t);
  int64_t imax = t == DT_I32 ? INT32_MAX : t == DT_BOOL ? 1 : INT64_MAX;
  int64_t imin = t == DT_I32 ? INT32_MIN : t == DT_BOOL ? 0 : INT64_MIN;
  switch (op) {
  case OP_SUM: if (fl) r.f = 0; else r.i = 0; break;
  case OP_PROD: if (fl) r.f = 1; else r.i = 1; break;
  case OP_AMAX: if (fl) r.f = -INFINITY; else r.i = imin; break;
  default: if (fl) r.f = INFINITY; else r.i = imax; break;
  }
  return r;
}

static Scratch scratch_new(const Graph *g) {
  Scratch S = {.cap = (size_t)(g->nnodes + 4) * LINE_MAX_LEN * 2, .gen = 1};
  S.buf = malloc(sizeof(RV) * S.cap);
  S.memo = calloc((size_t)g->nnodes, sizeof(Memo));
  if (!S.buf || !S.memo) coil_unreachable("out of memory");
  return S;
}

/* Scatter mode, for reductions with few outputs (the seed: 128): walk the
 * input in lines along its last dim, which streams through memory, and
 * accumulate into per-thread copies of the outputs, combined in thread
 * order at the end. */
static void reduce_scatter(Ref *R, const GNode *n, RV *out, int64_t numel) {
  const GNode *x = n->in[0];
  int nd = x->ndim;
  int64_t ocs[COIL_MAX_DIMS] = {0}; /* per input dim: stride in the output, 0 if reduced */
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; d--)
    if (!(n->rmask >> d & 1)) {
      ocs[d] = s;
      s *= x->shape[d];
    }
  int64_t len = nd ? x->shape[nd - 1] : 1;
  int64_t lines = len ? shape_numel(nd, x->shape) / len : 0;
  bool fl = isf(n->dtype);
  DType xt = x->dtype;
  int nth = omp_get_max_threads();
  RV *priv = malloc(sizeof(RV) * (size_t)numel * (size_t)nth);
  if (!priv) coil_unreachable("out of memory");
  for (int64_t i = 0; i < numel * nth; i++) priv[i] = identity(n->op, n->dtype);
  #pragma omp parallel num_threads(nth)
  {
    Scratch S = scratch_new(R->g);
    RV *acc = priv + (size_t)omp_get_thread_num() * (size_t)numel;
    #pragma omp for schedule(static)
    for (int64_t l = 0; l < lines; l++) {
      int64_t idx[COIL_MAX_DIMS] = {0}, q = l, base = 0;
      for (int d = nd - 2; d >= 0; d--) {
        idx[d] = q % x->shape[d];
        q /= x->shape[d];
        base += idx[d] * ocs[d];
      }
      for (int64_t c = 0; c < len; c += LINE_MAX_LEN) {
        int64_t m = len - c < LINE_MAX_LEN ? len - c : LINE_MAX_LEN;
        if (nd) idx[nd - 1] = c;
        S.used = 0;
        S.gen++;
        Line v = eval_line(R, &S, x, idx, nd - 1, m);
        int64_t step = nd ? ocs[nd - 1] : 0;
        accumulate_line(R->casts, n->op, n->dtype, xt, &acc[base + c * step], step, v, m);
      }
    }
    free(S.buf);
    free(S.memo);
  }
  for (int64_t o = 0; o < numel; o++) {
    RV a = identity(n->op, n->dtype);
    for (int t = 0; t < nth; t++) acc_combine(n->op, fl, &a, priv[(size_t)t * (size_t)numel + (size_t)o]);
    if (fl) a.f = round_to(R, n->dtype, a.f);
    else a.i = wrap_int(n->dtype, a.i);
    out[o] = a;
  }
  free(priv);
}

static void compute_reduce(Ref *R, const GNode *n) {
  const GNode *x = n->in[0];
  int64_t numel = shape_numel(n->ndim, n->shape);
  RV *out = malloc(sizeof(RV) * (size_t)(numel ? numel : 1));
  if (!out) coil_unreachable("out of memory");
  if (numel * omp_get_max_threads() <= (1 << 16) && x->ndim) {
    reduce_scatter(R, n, out, numel);
    R->red[n->id] = out;
    return;
  }
  /* The line runs along the longest reduced dim. */
  int ld = -1;
  int rd[COIL_MAX_DIMS], nrd = 0, kd[COIL_MAX_DIMS], nkd = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (n->rmask >> d & 1) {
      rd[nrd++] = d;
      if (ld < 0 || x->shape[d] > x->shape[ld]) ld = d;
    } else {
      kd[nkd++] = d;
    }
  }
  int64_t lines = 1;
  for (int i = 0; i < nrd; i++)
    if (rd[i] != ld) lines *= x->shape[rd[i]];
  int64_t llen = ld >= 0 ? x->shape[ld] : 1;
  bool fl = isf(n->dtype);
  DType xt = x->dtype;
  #pragma omp parallel
  {
    Scratch S = scratch_new(R->g);
    #pragma omp for schedule(dynamic, 1)
    for (int64_t o = 0; o < numel; o++) {
      int64_t idx[COIL_MAX_DIMS] = {0};
      int64_t q = o;
      for (int i = nkd - 1; i >= 0; i--) {
        idx[kd[i]] = q % x->shape[kd[i]];
        q /= x->shape[kd[i]];
      }
      RV acc = identity(n->op, n->dtype);
      for (int64_t l = 0; l < lines; l++) {
        int64_t q2 = l;
        for (int i = nrd - 1; i >= 0; i--) {
          if (rd[i] == ld) continue;
          idx[rd[i]] = q2 % x->shape[rd[i]];
          q2 /= x->shape[rd[i]];
        }
        for (int64_t c = 0; c < llen; c += LINE_MAX_LEN) {
          int64_t len = llen - c < LINE_MAX_LEN ? llen - c : LINE_MAX_LEN;
          if (ld >= 0) idx[ld] = c;
          S.used = 0;
          S.gen++;
          Line v = eval_line(R, &S, x, idx, ld, len);
          accumulate_line(R->casts, n->op, n->dtype, xt, &acc, 0, v, len);
        }
      }
      if (fl) acc.f = round_to(R, n->dtype, acc.f);
      else acc.i = wrap_int(n->dtype, acc.i);
      out[o] = acc;
    }
    free(S.buf);
    free(S.memo);
  }
  R->red[n->id] = out;
}

/* An arg-reduction, as PyTorch's CPU kernel scans it: the reduced dims in
 * row-major order, one element after another; an element replaces the
 * best so far when it is larger (smaller) or a NaN, and nothing replaces
 * a NaN.  So ties and NaNs keep the first index, by a rule of its own
 * rather than the compiled kernels' combine (ops.h). */
static void compute_argreduce(Ref *R, const GNode *n) {
  const GNode *x = n->in[0];
  int64_t numel = shape_numel(n->ndim, n->shape);
  RV *out = malloc(sizeof(RV) * (size_t)(numel ? numel : 1));
  if (!out) coil_unreachable("out of memory");
  int rd[COIL_MAX_DIMS], nrd = 0, kd[COIL_MAX_DIMS], nkd = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (n->rmask >> d & 1) rd[nrd++] = d;
    else kd[nkd++] = d;
  }
  int ld = nrd ? rd[nrd - 1] : -1; /* lines along the innermost reduced dim */
  int64_t llen = ld >= 0 ? x->shape[ld] : 1, lines = 1;
  for (int i = 0; i + 1 < nrd; i++) lines *= x->shape[rd[i]];
  bool fl = isf(x->dtype), is_max = n->op == OP_ARGMAX;
  #pragma omp parallel
  {
    Scratch S = scratch_new(R->g);
    #pragma omp for schedule(dynamic, 16)
    for (int64_t o = 0; o < numel; o++) {
      int64_t idx[COIL_MAX_DIMS] = {0}, q = o;
      for (int i = nkd - 1; i >= 0; i--) {
        idx[kd[i]] = q % x->shape[kd[i]];
        q /= x->shape[kd[i]];
      }
      RV best = {0};
      int64_t at = -1, pos = 0;
      for (int64_t l = 0; l < lines; l++) {
        int64_t q2 = l;
        for (int i = nrd - 2; i >= 0; i--) {
          idx[rd[i]] = q2 % x->shape[rd[i]];
          q2 /= x->shape[rd[i]];
        }
        for (int64_t c = 0; c < llen; c += LINE_MAX_LEN) {
          int64_t len = llen - c < LINE_MAX_LEN ? llen - c : LINE_MAX_LEN;
          if (ld >= 0) idx[ld] = c;
          S.used = 0;
          S.gen++;
          Line v = eval_line(R, &S, x, idx, ld, len);
          for (int64_t t = 0; t < len; t++, pos++) {
            RV e = v.p[t * v.stride];
            bool take;
            if (at < 0) take = true;
            else if (fl) take = best.f == best.f && (e.f != e.f || (is_max ? e.f > best.f : e.f < best.f));
            else take = is_max ? e.i > best.i : e.i < best.i;
            if (take) best = e, at = pos;
          }
        }
      }
      if (n->argval) out[o] = best;
      else out[o].i = at;
    }
    free(S.buf);
    free(S.memo);
  }
  R->red[n->id] = out;
}

/* Kept nodes.  A reduction evaluates its whole input cone down to the
 * inputs and earlier reductions; in a function that stacks reductions
 * through pointwise layers (layer norms), each evaluates every earlier
 * layer again, and the reference took 37 s for 16 layers of 2M elements.
 * So a pointwise node that KEEP_READERS or more reductions would evaluate
 * is computed once, whole, into R->red (eval_line reads it as it reads a
 * reduction's results), the latest such node first, so that it cuts its
 * cone off from the reductions after it.  Each node's values are the same
 * either way.  Kept nodes stay until the end, within KEEP_BYTES. */
enum { KEEP_READERS = 3 };
#define KEEP_BYTES ((int64_t)256 << 20)

/* Count, in readers[], each node reduction r would evaluate. */
static void count_readers(const GNode *n, const bool *kept, int *seen, int stamp, int *readers) {
  if (seen[n->id] == stamp) return;
  seen[n->id] = stamp;
  readers[n->id]++;
  if (kept[n->id] || op_info[n->op].kind == OK_REDUCE) return;
  for (int i = 0; i < n->nin; i++) count_readers(n->in[i], kept, seen, stamp, readers);
}

static void keep_nodes(const Graph *g, const bool *need, bool *kept) {
  int nn = g->nnodes, stamp = 0;
  int *readers = calloc((size_t)nn, sizeof(int)), *seen = calloc((size_t)nn, sizeof(int));
  if (!readers || !seen) coil_unreachable("out of memory");
  int64_t bytes = 0;
  bool recount = true;
  for (int i = nn - 1; i >= 0; i--) {
    if (recount) {
      memset(readers, 0, sizeof(int) * (size_t)nn);
      for (int r = 0; r < nn; r++) {
        const GNode *red = g->nodes[r];
        if (need[r] && op_info[red->op].kind == OK_REDUCE) count_readers(red->in[0], kept, seen, ++stamp, readers);
      }
      recount = false;
    }
    const GNode *n = g->nodes[i];
    int64_t b = shape_numel(n->ndim, n->shape) * (int64_t)sizeof(RV);
    if (!need[i] || !op_is_pointwise(n->op) || readers[i] < KEEP_READERS || bytes + b > KEEP_BYTES) continue;
    kept[i] = true;
    bytes += b;
    recount = true;
  }
  free(readers);
  free(seen);
}

/* n's values, whole, in parallel over lines along its last dim. */
static RV *eval_whole(Ref *R, const GNode *n) {
  int64_t numel = shape_numel(n->ndim, n->shape);
  int64_t len = n->ndim ? n->shape[n->ndim - 1] : 1;
  int64_t lines = len ? numel / len : 0;
  RV *out = malloc(sizeof(RV) * (size_t)(numel ? numel : 1));
  if (!out) coil_unreachable("out of memory");
  #pragma omp parallel
  {
    Scratch S = scratch_new(R->g);
    #pragma omp for schedule(static)
    for (int64_t l = 0; l < lines; l++) {
      int64_t idx[COIL_MAX_DIMS] = {0}, q = l;
      for (int d = n->ndim - 2; d >= 0; d--) {
        idx[d] = q % n->shape[d];
        q /= n->shape[d];
      }
      for (int64_t c = 0; c < len; c += LINE_MAX_LEN) {
        int64_t m = len - c < LINE_MAX_LEN ? len - c : LINE_MAX_LEN;
        if (n->ndim) idx[n->ndim - 1] = c;
        S.used = 0;
        S.gen++;
        Line v = eval_line(R, &S, n, idx, n->ndim - 1, m);
        for (int64_t t = 0; t < m; t++) out[l * len + c + t] = v.p[t * v.stride];
      }
    }
    free(S.buf);
    free(S.memo);
  }
  return out;
}

/* A sum at indices (OP_SCATTER_ADD): its base, then each value added at
 * the point its index names, in row-major order, each sum rounded to the
 * dtype (through the compute dtype, f32 for bf16 and f16): PyTorch's CPU
 * loops.  Serial: two values may name one point. */
static RV *compute_scatter(Ref *R, const GNode *n) {
  RV *out = eval_whole(R, n->in[0]), *ix = eval_whole(R, n->in[1]), *v = eval_whole(R, n->in[2]);
  const GNode *vn = n->in[2];
  int64_t cs[COIL_MAX_DIMS], q[COIL_MAX_DIMS] = {0}, m = shape_numel(vn->ndim, vn->shape), size = n->shape[n->dim];
  contiguous_strides(n->ndim, n->shape, cs);
  for (int64_t t = 0; t < m; t++) {
    int64_t i = ix[t].i;
    if (n->wraps && i < 0) i += size;
    if (i >= 0 && i < size) {
      int64_t off = 0;
      for (int d = 0; d < n->ndim; d++) off += (d == n->dim ? i : q[d]) * cs[d];
      if (isf(n->dtype)) out[off].f = round_to(R, n->dtype, round_to(R, n->cdtype, out[off].f + v[t].f));
      else out[off].i = wrap_int(n->dtype, (int64_t)((uint64_t)out[off].i + (uint64_t)v[t].i));
    } else {
      R->bad = n->id + 1;
    }
    for (int d = vn->ndim - 1; d >= 0 && ++q[d] == vn->shape[d]; d--) q[d] = 0;
  }
  free(ix);
  free(v);
  return out;
}

/* Which nodes the outputs need. */
static void mark_needed(const GNode *n, bool *need) {
  if (need[n->id]) return;
  need[n->id] = true;
  for (int i = 0; i < n->nin; i++) mark_needed(n->in[i], need);
}

CoilErr *ref_run(const Graph *g, void *const *inputs, bool f64, RefCasts casts, RV **outs) {
  Ref R = {.g = g, .inputs = inputs, .f64 = f64, .casts = casts};
  R.red = calloc((size_t)g->nnodes, sizeof(RV *));
  bool *need = calloc((size_t)g->nnodes, 1);
  for (int k = 0; k < g->noutputs; k++) mark_needed(g->outputs[k], need);
  bool *kept = calloc((size_t)g->nnodes + 1, 1);
  if (!kept) coil_unreachable("out of memory");
  keep_nodes(g, need, kept);
  /* In graph order, a kept node's inputs (kept nodes and reductions among
   * them) come before it. */
  for (int i = 0; i < g->nnodes; i++) {
    if (need[i] && op_is_argred(g->nodes[i]->op)) compute_argreduce(&R, g->nodes[i]);
    else if (need[i] && op_info[g->nodes[i]->op].kind == OK_REDUCE) compute_reduce(&R, g->nodes[i]);
    else if (need[i] && g->nodes[i]->op == OP_SCATTER_ADD) R.red[i] = compute_scatter(&R, g->nodes[i]);
    else if (kept[i]) R.red[i] = eval_whole(&R, g->nodes[i]);
  }
  free(kept);
  for (int k = 0; k < g->noutputs; k++) outs[k] = eval_whole(&R, g->outputs[k]);
  for (int i = 0; i < g->nnodes; i++) free(R.red[i]);
  free(R.red);
  free(need);
  if (R.bad) {
    for (int k = 0; k < g->noutputs; k++) free(outs[k]), outs[k] = NULL;
    return ref_index_error(g, R.bad - 1);
  }
  return NULL;
}

const char *ref_index_message(Arena *a, const Graph *g, int node) {
  const GNode *n = g->nodes[node];
  int64_t size = n->in[0]->shape[n->dim];
  return arena_printf(a, "index out of range: an index is outside [%s%lld, %lld) for dimension %d of size %lld", n->wraps ? "-" : "",
                      (long long)(n->wraps ? size : 0), (long long)size, n->dim, (long long)size);
}

CoilErr *ref_index_error(const Graph *g, int node) {
  Arena a = {0};
  CoilErr *e = coil_err_at(g->nodes[node]->loc, "%s", ref_index_message(&a, g, node));
  arena_free(&a);
  if (e) e->index = true;
  return e;
}
