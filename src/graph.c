/* Graph builder: evaluates the selected function's body abstractly.
 *
 * Python values (ints, floats, tuples, dtypes, x.shape) are computed here;
 * tensor values become graph nodes.  Every tensor op applies PyTorch's
 * semantics: broadcasting, result_type promotion (dim tensors > 0-d tensors
 * > Python scalars, by category bool < int < float), int / int giving the
 * default float, int sums giving int64, and bf16/f16 ops computing in f32
 * and rounding their result.
 *
 * Requires: a Module whose selected Func body is parsed.
 * Guarantees: a graph in topological order that graph_verify() accepts;
 * every user mistake is a CoilErr at the offending source position. */
#include <math.h>
#include <stdarg.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "coil.h"

const OpInfo op_info[OP_COUNT] = {
#define OP(name, kind, arity, c, tr) {#name, kind, arity, c, tr},
    COIL_OPS(OP)
#undef OP
};

/* Beyond this, a function is not a fused kernel; and lowering's value
 * numbering would grow quadratically. */
#define GRAPH_MAX_NODES 10000

/* V_UNDEF: a module constant whose statement is outside the subset or
 * failed; using it is that error (message in name, position in at). */
typedef enum VKind { V_TENSOR, V_INT, V_FLOAT, V_BOOL, V_DTYPE, V_TUPLE, V_NONE, V_MODULE, V_FN, V_STR, V_UNDEF } VKind;

typedef struct Val Val;
struct Val {
  VKind kind;
  GNode *t;      /* V_TENSOR */
  int64_t i;     /* V_INT, V_BOOL */
  double f;      /* V_FLOAT */
  DType dt;      /* V_DTYPE */
  Val **items;   /* V_TUPLE */
  int n;
  bool list;     /* V_TUPLE written as a list */
  const char *const *fields; /* V_TUPLE: a named tuple's field names (torch.return_types), or NULL */
  const char *name; /* V_FN: function or method name; V_MODULE: its dotted name; V_STR: the text */
  const char *ns;   /* V_FN: the module it belongs to ("torch", "math", "builtins"...) */
  Val *self;        /* V_FN: bound tensor for methods, NULL for module functions */
  Func *func;       /* V_FN: a def of this file (a helper, inlined when called) */
  const char *overload; /* V_FN of torch.ops.aten or torch.ops.prims: the overload, NULL for the op's packet */
  int storage;      /* V_TENSOR: 0 shares memory with every view of its node's base; clone() gives a new number */
  SrcLoc at;        /* V_UNDEF */
};

typedef struct Binding {
  const char *name;
  Val *val;
} Binding;

/* A call of a function of the file: its bindings are env[base..nenv).
 * The module's constants are env[0..nglobals), bound before any call. */
typedef struct Frame {
  Func *f;  /* NULL: the module's top level */
  int base;
  Val *ret;
  const Stmt *ret_stmt;
} Frame;

typedef struct Builder {
  Arena *a;
  const Module *m; /* its imports name modules */
  Graph *g;
  Binding *env;
  int nenv, capenv;
  int nglobals;
  Frame *frame;
  int depth;       /* calls of the file's functions in progress */
  int nstorage;
  CoilErr *err;
  SrcLoc err_loc;
} Builder;

int64_t shape_numel(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

void shape_str(StrBuf *sb, int ndim, const int64_t *shape) {
  sb_putc(sb, '[');
  for (int i = 0; i < ndim; i++) sb_printf(sb, "%s%lld", i ? "," : "", (long long)shape[i]);
  sb_putc(sb, ']');
}

static char *shape_fmt(Arena *a, int ndim, const int64_t *shape) {
  StrBuf sb = {0};
  shape_str(&sb, ndim, shape);
  char *s = arena_strdup(a, sb.data);
  sb_free(&sb);
  return s;
}

/* ------------------------------------------------------------ values */

static Val *mkval(Builder *B, VKind k) {
  Val *v = ARENA_NEW(B->a, Val);
  v->kind = k;
  return v;
}
static Val *mkint(Builder *B, int64_t i) { Val *v = mkval(B, V_INT); v->i = i; return v; }
static Val *mkbool(Builder *B, bool b) { Val *v = mkval(B, V_BOOL); v->i = b; return v; }
/* A tensor value; NULL when t is (an error already reported by the
 * builder that returned it): a Val with no tensor must never escape, as
 * torch.where's broadcast error once did (a crash in the next op). */
static Val *mktensor(Builder *B, GNode *t) {
  if (!t) return NULL;
  Val *v = mkval(B, V_TENSOR);
  v->t = t;
  return v;
}

static const char *kind_name(const Val *v) {
  static const char *names[] = {"a tensor", "an int", "a float", "a bool", "a dtype", "a tuple",
                                "None", "a module", "a function", "a string", "undefined"};
  if (v->kind == V_TUPLE && v->list) return "a list";
  return names[v->kind];
}

static void *fail(Builder *B, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *fail(Builder *B, SrcLoc loc, const char *fmt, ...) {
  if (B->err) return NULL;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  B->err = coil_err_at(loc, "%s", buf);
  B->err_loc = loc;
  return NULL;
}

/* ------------------------------------------------------------ nodes */

static GNode *new_node(Builder *B, Op op, DType dt, int ndim, const int64_t *shape, SrcLoc loc) {
  Graph *g = B->g;
  if (g->nnodes == g->cap) {
    g->cap = g->cap ? g->cap * 2 : 64;
    GNode **nn = ARENA_ARRAY(B->a, GNode *, g->cap);
    if (g->nnodes) memcpy(nn, g->nodes, sizeof(GNode *) * (size_t)g->nnodes);
    g->nodes = nn;
  }
  GNode *n = ARENA_NEW(B->a, GNode);
  n->id = g->nnodes;
  n->op = op;
  n->dtype = n->cdtype = dt;
  n->ndim = ndim;
  if (ndim) memcpy(n->shape, shape, sizeof(int64_t) * (size_t)ndim);
  n->loc = loc;
  g->nodes[g->nnodes++] = n;
  return n;
}

/* bf16 and f16 compute in f32, as PyTorch's CPU kernels do (opmath). */
static DType opmath(DType t) { return t == DT_BF16 || t == DT_F16 ? DT_F32 : t; }

static GNode *mkconst(Builder *B, DType dt, double f, int64_t i, SrcLoc loc) {
  GNode *n = new_node(B, OP_CONST, dt, 0, NULL, loc);
  if (dtype_is_float(dt)) n->fval = f;
  else n->ival = dt == DT_BOOL ? i != 0 : i;
  return n;
}

static GNode *cast(Builder *B, GNode *x, DType dt, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  if (x->dtype == dt) return x;
  GNode *n = new_node(B, OP_CAST, dt, x->ndim, x->shape, loc);
  n->cdtype = dt;
  n->in[0] = x;
  n->nin = 1;
  return n;
}

static bool broadcast(Builder *B, int na, const int64_t *a, int nb, const int64_t *b, int *nout,
                      int64_t *out, SrcLoc loc) {
  int n = na > nb ? na : nb;
  int64_t res[COIL_MAX_DIMS]; /* out may alias a or b */
  for (int i = 0; i < n; i++) {
    int64_t da = i < n - na ? 1 : a[i - (n - na)];
    int64_t db = i < n - nb ? 1 : b[i - (n - nb)];
    if (da != db && da != 1 && db != 1) {
      fail(B, loc, "shapes %s and %s cannot broadcast: dimension %d is %lld and %lld",
           shape_fmt(B->a, na, a), shape_fmt(B->a, nb, b), i, (long long)da, (long long)db);
      return false;
    }
    res[i] = da == 1 ? db : da;
  }
  memcpy(out, res, sizeof(int64_t) * (size_t)n);
  *nout = n;
  return true;
}

/* ------------------------------------------------------ type promotion */

typedef struct Promo {
  DType dim, zero, wrapped;
  bool has_dim, has_zero, has_wrapped;
} Promo;

static DType scalar_dtype(const Val *v) {
  return v->kind == V_FLOAT ? DT_F32 : v->kind == V_BOOL ? DT_BOOL : DT_I64;
}

static void promo_add(Promo *p, const Val *v) {
  DType t;
  bool *has;
  DType *slot;
  if (v->kind == V_TENSOR) {
    t = v->t->dtype;
    has = v->t->ndim ? &p->has_dim : &p->has_zero;
    slot = v->t->ndim ? &p->dim : &p->zero;
  } else {
    t = scalar_dtype(v);
    has = &p->has_wrapped;
    slot = &p->wrapped;
  }
  *slot = *has ? dtype_promote(*slot, t) : t;
  *has = true;
}

static int category(DType t) { return t == DT_BOOL ? 0 : dtype_is_float(t) ? 2 : 1; }

/* PyTorch's combine_categories: a lower-priority group only matters when
 * it is of a higher category. */
static void combine(bool *has_hi, DType *hi, bool has_lo, DType lo) {
  if (!has_lo) return;
  if (!*has_hi) { *has_hi = true; *hi = lo; return; }
  if (category(lo) > category(*hi)) *hi = dtype_promote(*hi, lo);
}

static DType promo_result(Promo p) {
  bool has = p.has_zero;
  DType t = p.zero;
  combine(&has, &t, p.has_wrapped, p.wrapped);
  bool has2 = p.has_dim;
  DType t2 = p.dim;
  combine(&has2, &t2, has, t);
  return t2;
}

static DType result_type(Val **vs, int n) {
  Promo p = {0};
  for (int i = 0; i < n; i++) promo_add(&p, vs[i]);
  return promo_result(p);
}

/* Does x, truncated, fit integer dtype t (i32 or i64)?  False for NaN. */
static bool float_fits_int(DType t, double x) {
  return t == DT_I32 ? x >= -2147483648.0 && x <= 2147483647.0 : x >= -9223372036854775808.0 && x < 9223372036854775808.0;
}

/* A tensor operand of an op that computes in `cd`: scalars become
 * constants of the compute dtype (PyTorch keeps a scalar operand in opmath
 * precision rather than rounding it to bf16). */
static GNode *operand(Builder *B, Val *v, DType cd, SrcLoc loc) {
  if (v->kind == V_TENSOR) return v->t;
  if (v->kind == V_INT || v->kind == V_BOOL) return mkconst(B, cd, (double)v->i, v->i, loc);
  if (v->kind == V_FLOAT) {
    if (!dtype_is_float(cd)) {
      if (cd != DT_BOOL && !float_fits_int(cd, v->f)) return fail(B, loc, "value %g cannot be converted to type %s without overflow", v->f, dtype_torch_name(cd));
      return mkconst(B, cd, v->f, cd == DT_BOOL ? v->f != 0 : (int64_t)v->f, loc);
    }
    return mkconst(B, cd, v->f, 0, loc);
  }
  return fail(B, loc, "expected a tensor or a number, got %s", kind_name(v));
}

/* A tensor or a number as a tensor of dtype cd. */
static GNode *as_dtype(Builder *B, Val *v, DType cd, SrcLoc loc) {
  return v->kind == V_TENSOR ? cast(B, v->t, cd, loc) : operand(B, v, cd, loc);
}

static bool is_num(const Val *v) { return v->kind == V_TENSOR || v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL; }

/* Elementwise op over broadcast operands; dt is the result dtype, cd the
 * compute dtype. */
static GNode *pointwise(Builder *B, Op op, Val **args, int n, DType dt, DType cd, SrcLoc loc) {
  /* Composite ops pass on the NULL of a step that failed (its error is
   * already reported), so each step need not check the last. */
  for (int i = 0; i < n; i++)
    if (!args[i] || (args[i]->kind == V_TENSOR && !args[i]->t)) return NULL;
  int ndim = 0;
  int64_t shape[COIL_MAX_DIMS] = {0};
  for (int i = 0; i < n; i++) {
    if (!is_num(args[i])) return fail(B, loc, "%s expects tensors or numbers, got %s", op_info[op].name, kind_name(args[i]));
    if (args[i]->kind == V_TENSOR && !broadcast(B, ndim, shape, args[i]->t->ndim, args[i]->t->shape, &ndim, shape, loc))
      return NULL;
  }
  GNode *in[3];
  for (int i = 0; i < n; i++) {
    /* where's condition keeps its bool dtype */
    DType want = op == OP_WHERE && i == 0 ? DT_BOOL : cd;
    if (!(in[i] = operand(B, args[i], want, loc))) return NULL;
  }
  GNode *x = new_node(B, op, dt, ndim, shape, loc);
  x->cdtype = cd;
  for (int i = 0; i < n; i++) x->in[i] = in[i];
  x->nin = n;
  return x;
}

static GNode *float_unary(Builder *B, Op op, GNode *x, SrcLoc loc);

static GNode *arith(Builder *B, Op op, Val *a, Val *b, SrcLoc loc) {
  Val *vs[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (!vs[i] || (vs[i]->kind == V_TENSOR && !vs[i]->t)) return NULL; /* reported already */
  for (int i = 0; i < 2; i++)
    if (!is_num(vs[i])) return fail(B, loc, "unsupported operand: %s", kind_name(vs[i]));
  /* PyTorch computes `number / tensor` as tensor.reciprocal() * number
   * (Tensor.__rtruediv__), rounding the reciprocal to the tensor's dtype. */
  if (op == OP_DIV && a->kind != V_TENSOR && b->kind == V_TENSOR) {
    GNode *r = float_unary(B, OP_RECIP, b->t, loc);
    if (!r) return NULL;
    Val vr = {.kind = V_TENSOR, .t = r};
    return arith(B, OP_MUL, &vr, a, loc);
  }
  DType dt = result_type(vs, 2);
  /* add, sub, pow and comparisons round a Python scalar to a bf16/f16
   * tensor's dtype first (a bf16 x < 0.8 is x < 0.80078125); mul and div
   * keep it in f32 (measured against PyTorch 2.x). */
  Val rounded[2];
  bool rounds = op == OP_ADD || op == OP_SUB || op == OP_POW || op_info[op].kind == OK_COMPARE;
  if (rounds && (dt == DT_BF16 || dt == DT_F16))
    for (int i = 0; i < 2; i++)
      if (vs[i]->kind == V_FLOAT || vs[i]->kind == V_INT) {
        rounded[i] = (Val){.kind = V_FLOAT, .f = dtype_round(dt, vs[i]->kind == V_FLOAT ? vs[i]->f : (double)vs[i]->i)};
        vs[i] = &rounded[i];
      }
  if (op == OP_DIV && !dtype_is_float(dt)) dt = DT_F32; /* true division */
  if ((op == OP_AND || op == OP_OR || op == OP_XOR) && dt != DT_BOOL && !dtype_is_int(dt))
    return fail(B, loc, "'%s' (bitwise_%s) needs bool or integer tensors, got %s (as in PyTorch)", op == OP_AND ? "&" : op == OP_OR ? "|" : "^",
                op == OP_AND ? "and" : op == OP_OR ? "or" : "xor", dtype_name(dt));
  if ((op == OP_SUB || op == OP_NEG) && dt == DT_BOOL)
    return fail(B, loc, "subtracting bool tensors is not supported (as in PyTorch); use ~ or logical ops");
  if (op == OP_POW && dt == DT_BOOL) dt = DT_I64;
  if (op_info[op].kind == OK_COMPARE) return pointwise(B, op, vs, 2, DT_BOOL, opmath(dt), loc);
  return pointwise(B, op, vs, 2, dt, opmath(dt), loc);
}

/* Unary math that PyTorch computes in floating point (exp of an int tensor
 * gives the default float dtype). */
static GNode *float_unary(Builder *B, Op op, GNode *x, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  DType dt = dtype_is_float(x->dtype) ? x->dtype : DT_F32;
  Val v = {.kind = V_TENSOR, .t = x};
  Val *vs[1] = {&v};
  return pointwise(B, op, vs, 1, dt, opmath(dt), loc);
}

/* ------------------------------------------------------------ views */

static int norm_dim(Builder *B, int64_t d, int ndim, SrcLoc loc) {
  int n = ndim ? ndim : 1;
  if (d < -n || d >= n) {
    fail(B, loc, "dim %lld is out of range for a tensor of %d dimension%s (expected in [%d, %d])", (long long)d,
         ndim, ndim == 1 ? "" : "s", -n, n - 1);
    return -1;
  }
  return (int)(d < 0 ? d + n : d);
}

static GNode *reshape(Builder *B, GNode *x, int ndim, const int64_t *shape, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  if (ndim == x->ndim && !memcmp(shape, x->shape, sizeof(int64_t) * (size_t)ndim)) return x;
  /* A reshape of a reshape reads the same flat order: fold them. */
  if (x->op == OP_RESHAPE) x = x->in[0];
  if (ndim == x->ndim && !memcmp(shape, x->shape, sizeof(int64_t) * (size_t)ndim)) return x;
  GNode *n = new_node(B, OP_RESHAPE, x->dtype, ndim, shape, loc);
  n->in[0] = x;
  n->nin = 1;
  return n;
}

static GNode *permute(Builder *B, GNode *x, const int *perm, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  bool identity = true;
  for (int i = 0; i < x->ndim; i++) identity &= perm[i] == i;
  if (identity) return x;
  int64_t shape[COIL_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) shape[i] = x->shape[perm[i]];
  GNode *n = new_node(B, OP_PERMUTE, x->dtype, x->ndim, shape, loc);
  memcpy(n->perm, perm, sizeof(int) * (size_t)x->ndim);
  n->in[0] = x;
  n->nin = 1;
  return n;
}

static GNode *expand(Builder *B, GNode *x, int ndim, const int64_t *shape, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  if (ndim < x->ndim)
    return fail(B, loc, "expand: the number of sizes (%d) must be at least the tensor's dimensions (%d)", ndim, x->ndim);
  int64_t out[COIL_MAX_DIMS];
  for (int i = 0; i < ndim; i++) {
    int j = i - (ndim - x->ndim);
    int64_t want = shape[i];
    if (j < 0) {
      if (want < 0) return fail(B, loc, "expand: -1 is not allowed for a new leading dimension");
      out[i] = want;
      continue;
    }
    if (want == -1) want = x->shape[j];
    if (want != x->shape[j] && x->shape[j] != 1)
      return fail(B, loc, "expand: size %lld of dimension %d cannot expand to %lld (only size-1 dimensions expand)",
                  (long long)x->shape[j], j, (long long)want);
    if (want < 0) return fail(B, loc, "expand: negative size %lld", (long long)want);
    out[i] = want;
  }
  if (ndim == x->ndim && !memcmp(out, x->shape, sizeof(int64_t) * (size_t)ndim)) return x;
  GNode *n = new_node(B, OP_EXPAND, x->dtype, ndim, out, loc);
  n->in[0] = x;
  n->nin = 1;
  return n;
}

/* A strided box of x: output index i of dim d reads x at start[d] +
 * step[d] * i (step NULL: 1 in every dim; a step may be negative).  The
 * caller checks that every point read is inside x.  A slice of a slice is
 * one slice (the steps multiply), so x[::2][::-1] is one index map. */
static GNode *slice_step(Builder *B, GNode *x, const int64_t *start, const int64_t *step, const int64_t *shape, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  int64_t st[COIL_MAX_DIMS], sp[COIL_MAX_DIMS];
  bool whole = true;
  for (int d = 0; d < x->ndim; d++) {
    st[d] = start[d];
    sp[d] = step ? step[d] : 1;
    if (shape[d] <= 1) sp[d] = 1; /* one point (or none) reads no step */
    whole &= st[d] == 0 && sp[d] == 1 && shape[d] == x->shape[d];
  }
  if (whole) return x;
  if (x->op == OP_SLICE) {
    for (int d = 0; d < x->ndim; d++) {
      st[d] = x->start[d] + x->sstep[d] * st[d];
      sp[d] = shape[d] <= 1 ? 1 : x->sstep[d] * sp[d];
    }
    x = x->in[0];
    bool same = true;
    for (int d = 0; d < x->ndim; d++) same &= st[d] == 0 && sp[d] == 1 && shape[d] == x->shape[d];
    if (same) return x; /* x.flip(0).flip(0) */
  }
  GNode *n = new_node(B, OP_SLICE, x->dtype, x->ndim, shape, loc);
  memcpy(n->start, st, sizeof(int64_t) * (size_t)x->ndim);
  memcpy(n->sstep, sp, sizeof(int64_t) * (size_t)x->ndim);
  n->in[0] = x;
  n->nin = 1;
  return n;
}

/* A box of x: output index i of dim d reads x at start[d] + i.  The caller
 * checks that the box is inside x. */
static GNode *slice(Builder *B, GNode *x, const int64_t *start, const int64_t *shape, SrcLoc loc) {
  return slice_step(B, x, start, NULL, shape, loc);
}

/* ------------------------------------------------------------ reductions */

static GNode *reduce(Builder *B, Op op, GNode *x, uint32_t mask, bool keepdim, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  DType acc;
  if (op == OP_SUM || op == OP_PROD) acc = dtype_is_float(x->dtype) ? opmath(x->dtype) : DT_I64;
  else acc = x->dtype;
  int ndim = 0;
  int64_t shape[COIL_MAX_DIMS], kshape[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    kshape[d] = mask >> d & 1 ? 1 : x->shape[d];
    if (!(mask >> d & 1)) shape[ndim++] = x->shape[d];
  }
  if ((op == OP_AMAX || op == OP_AMIN) && shape_numel(x->ndim, x->shape) == 0)
    return fail(B, loc, "%s of an empty tensor has no identity (PyTorch raises here too)", op == OP_AMAX ? "amax" : "amin");
  GNode *r;
  if (mask == 0 && x->ndim > 0) {
    r = cast(B, x, acc, loc); /* reducing no dim: the op is the identity map */
  } else {
    r = new_node(B, op, acc, ndim, shape, loc);
    r->cdtype = acc;
    r->in[0] = x;
    r->nin = 1;
    r->rmask = mask;
  }
  if (keepdim) r = reshape(B, r, x->ndim, kshape, loc);
  return r;
}

/* x - m where m is amax(x) over some dims, kept as size-1 dims and
 * broadcast back: each element is x minus the largest of its own slice, so
 * it is <= 0 (rounding is monotone and x - x is +0), or NaN where the slice
 * has a NaN or x and its max are the same infinity.  Integers wrap, so only
 * a float difference counts; casts of the operands are monotone too. */
bool graph_nonpositive(const GNode *n) {
  if (n->op != OP_SUB || !dtype_is_float(n->cdtype) || !dtype_is_float(n->dtype)) return false;
  const GNode *x = n->in[0], *m = n->in[1], *max = m->op == OP_RESHAPE ? m->in[0] : m;
  if (max->op != OP_AMAX || max->in[0] != x || x->ndim != n->ndim || m->ndim != x->ndim) return false;
  for (int d = 0; d < x->ndim; d++)
    if (x->shape[d] != n->shape[d] || m->shape[d] != (max->rmask >> d & 1 ? 1 : x->shape[d])) return false;
  return true;
}

/* ------------------------------------------------------------ arguments */

/* A call's arguments, each with its position in the source. */
typedef struct Args {
  SrcLoc at; /* the call */
  Val **pos; /* positional values, after self */
  SrcLoc *locs;
  int npos;
  const char **kwn;
  Val **kwv;
  SrcLoc *kwlocs;
  int nkw;
  bool *kwused;
} Args;

static Val *eval(Builder *B, Node *n);

/* The i-th positional argument or the keyword `name`; NULL if absent. */
static Val *arg(Args *A, int i, const char *name) {
  if (i >= 0 && i < A->npos) return A->pos[i];
  for (int k = 0; k < A->nkw; k++)
    if (name && !strcmp(A->kwn[k], name)) {
      A->kwused[k] = true;
      return A->kwv[k];
    }
  return NULL;
}

static SrcLoc arg_loc(Args *A, int i, const char *name) {
  if (i >= 0 && i < A->npos) return A->locs[i];
  for (int k = 0; k < A->nkw; k++)
    if (name && !strcmp(A->kwn[k], name)) return A->kwlocs[k];
  return A->at;
}

/* The arguments after the first (a torch.NAME(x, ...) call's x). */
static Args after_first(const Args *A) {
  Args rest = *A;
  if (A->npos > 0) {
    rest.pos = A->pos + 1;
    rest.locs = A->locs + 1;
    rest.npos = A->npos - 1;
  }
  return rest;
}

static bool get_int(Builder *B, Val *v, SrcLoc loc, const char *what, int64_t *out) {
  if (v && (v->kind == V_INT || v->kind == V_BOOL)) { *out = v->i; return true; }
  fail(B, loc, "%s must be an int, got %s", what, v ? kind_name(v) : "nothing");
  return false;
}

/* An int list given either as one tuple/list or as the remaining positional
 * arguments (x.permute(0, 2, 1) and x.permute((0, 2, 1)) both work). */
static int get_int_list(Builder *B, Args *A, int first, const char *kw, int64_t *out, SrcLoc *loc) {
  Val *v = arg(A, first, kw);
  *loc = arg_loc(A, first, kw);
  if (!v) { fail(B, A->at, "missing argument '%s'", kw); return -1; }
  Val **items = &v;
  int n = 1;
  if (v->kind == V_TUPLE) {
    items = v->items;
    n = v->n;
  } else if (first < A->npos) {
    items = A->pos + first;
    n = A->npos - first;
  }
  if (n > COIL_MAX_DIMS) { fail(B, *loc, "at most %d dimensions are supported", COIL_MAX_DIMS); return -1; }
  for (int i = 0; i < n; i++)
    if (!get_int(B, items[i], *loc, kw, &out[i])) return -1;
  return n;
}

static bool check_args(Builder *B, Args *A, const char *fname, int maxpos) {
  if (A->npos > maxpos)
    return fail(B, arg_loc(A, maxpos, NULL), "%s takes at most %d positional argument%s", fname, maxpos,
                maxpos == 1 ? "" : "s"), false;
  for (int k = 0; k < A->nkw; k++)
    if (!A->kwused[k])
      return fail(B, A->kwlocs[k], "%s got an unexpected keyword argument '%s'", fname, A->kwn[k]), false;
  return true;
}

/* Reduction dims: None (all), an int, or a tuple of ints. */
static bool get_dims(Builder *B, Val *v, SrcLoc loc, GNode *x, bool none_is_all, uint32_t *mask) {
  *mask = 0;
  if (!v || v->kind == V_NONE) {
    *mask = x->ndim ? (uint32_t)((1u << x->ndim) - 1) : 0;
    return true;
  }
  Val **items = &v;
  int n = 1;
  if (v->kind == V_TUPLE) { items = v->items; n = v->n; }
  if (n == 0 && none_is_all) { *mask = x->ndim ? (uint32_t)((1u << x->ndim) - 1) : 0; return true; }
  for (int i = 0; i < n; i++) {
    int64_t d;
    if (!get_int(B, items[i], loc, "dim", &d)) return false;
    int nd = norm_dim(B, d, x->ndim, loc);
    if (nd < 0) return false;
    if (x->ndim == 0) continue;
    if (*mask >> nd & 1) return fail(B, loc, "dim %d appears more than once in the reduction dims", nd), false;
    *mask |= 1u << nd;
  }
  return true;
}

static bool get_bool(Builder *B, Val *v, SrcLoc loc, const char *what, bool dflt) {
  if (!v) return dflt;
  if (v->kind == V_BOOL || v->kind == V_INT) return v->i != 0;
  fail(B, loc, "%s must be True or False, got %s", what, kind_name(v));
  return dflt;
}

static bool get_dtype(Builder *B, Val *v, SrcLoc loc, DType *out) {
  if (v && v->kind == V_DTYPE) { *out = v->dt; return true; }
  if (v && v->kind == V_TENSOR) { *out = v->t->dtype; return true; }
  fail(B, loc, "expected a torch dtype such as torch.float32, got %s", v ? kind_name(v) : "nothing");
  return false;
}

/* var and std in one pass over x, with shifted sums: with K the first
 * element of each reduced slice, d = x - K,
 *     var = (sum d^2 - (sum d)^2 / n) / (n - correction).
 * Both sums reduce the same input over the same dims, so they share one
 * kernel and x is read once (a two-pass variance needs the mean before its
 * second pass, so it reads x twice and costs a buffer between kernels).
 * The shift keeps the cancellation small: it only grows with how far the
 * mean lies from K in units of the spread, which a sample of the data keeps
 * small; and values all equal to K give d = 0 exactly, so var = 0 exactly
 * (the mean of equal f32 values summed in f32 is not that value).  f32
 * accumulates in f64, as PyTorch's CPU Welford does, so the difference of
 * the two sums keeps f32's precision even when the mean is 1e4 spreads from
 * K; bf16 and f16 accumulate in f32, far beyond their own precision.  The
 * result is cast to x's dtype once at the end, as PyTorch does. */
static GNode *variance(Builder *B, GNode *x, uint32_t mask, double correction, bool keepdim, bool stddev, SrcLoc loc) {
  if (!dtype_is_float(x->dtype))
    return fail(B, loc, "%s needs a floating-point tensor, got %s", stddev ? "std" : "var", dtype_name(x->dtype));
  DType acc = x->dtype == DT_F32 ? DT_F64 : opmath(x->dtype);
  int64_t count = 1, start[COIL_MAX_DIMS] = {0}, first[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    first[d] = x->shape[d];
    if (mask >> d & 1) {
      count *= x->shape[d];
      first[d] = 1;
    }
  }
  GNode *xf = cast(B, x, acc, loc);
  GNode *dev = xf;
  /* An empty slice has no first element; its sums are the identity. */
  if (count > 0) {
    Val vx = {.kind = V_TENSOR, .t = xf}, vk = {.kind = V_TENSOR, .t = cast(B, slice(B, x, start, first, loc), acc, loc)};
    dev = arith(B, OP_SUB, &vx, &vk, loc);
  }
  Val vd = {.kind = V_TENSOR, .t = dev};
  GNode *sq = arith(B, OP_MUL, &vd, &vd, loc);
  GNode *s1 = reduce(B, OP_SUM, dev, mask, keepdim, loc);
  GNode *s2 = reduce(B, OP_SUM, sq, mask, keepdim, loc);
  Val v1 = {.kind = V_TENSOR, .t = s1}, vc = {.kind = V_FLOAT, .f = (double)count};
  Val v11 = {.kind = V_TENSOR, .t = arith(B, OP_MUL, &v1, &v1, loc)};
  if (count > 0) v11.t = arith(B, OP_DIV, &v11, &vc, loc);
  Val v2 = {.kind = V_TENSOR, .t = s2};
  /* Clamp before dividing: rounding can leave the difference a hair below
   * 0, and with n - correction = 0 that would be -inf, not PyTorch's +inf or
   * NaN.  maximum keeps a NaN. */
  Val vm = {.kind = V_TENSOR, .t = arith(B, OP_SUB, &v2, &v11, loc)}, zero = {.kind = V_INT, .i = 0};
  Val vss = {.kind = V_TENSOR, .t = arith(B, OP_MAXIMUM, &vm, &zero, loc)};
  Val vn = {.kind = V_FLOAT, .f = fmax((double)count - correction, 0.0)};
  GNode *var = arith(B, OP_DIV, &vss, &vn, loc);
  if (stddev) var = float_unary(B, OP_SQRT, var, loc);
  return cast(B, var, x->dtype, loc);
}

/* softmax and log_softmax over the dims in mask, as PyTorch's CPU kernels:
 * bf16/f16 compute in f32 and round once at the end; the max is subtracted
 * first so exp cannot overflow. */
static GNode *softmax(Builder *B, GNode *x, uint32_t mask, Val *dtv, SrcLoc dtloc, bool log_form, SrcLoc loc) {
  const char *name = log_form ? "log_softmax" : "softmax";
  DType out = x->dtype;
  if (dtv && dtv->kind != V_NONE && !get_dtype(B, dtv, dtloc, &out)) return NULL;
  if (!dtype_is_float(out))
    return fail(B, loc, "%s of a %s tensor is not supported (as in PyTorch); give dtype=torch.float32", name, dtype_name(out));
  GNode *xf = cast(B, cast(B, x, out, loc), opmath(out), loc);
  Val vx = {.kind = V_TENSOR, .t = xf}, vm = {.kind = V_TENSOR, .t = reduce(B, OP_AMAX, xf, mask, true, loc)};
  if (!vm.t) return NULL;
  Val vd = {.kind = V_TENSOR, .t = arith(B, OP_SUB, &vx, &vm, loc)};
  GNode *e = float_unary(B, OP_EXP, vd.t, loc);
  Val ve = {.kind = V_TENSOR, .t = e}, vs = {.kind = V_TENSOR, .t = reduce(B, OP_SUM, e, mask, true, loc)};
  GNode *r;
  if (log_form) {
    Val vl = {.kind = V_TENSOR, .t = float_unary(B, OP_LOG, vs.t, loc)};
    r = arith(B, OP_SUB, &vd, &vl, loc);
  } else {
    r = arith(B, OP_DIV, &ve, &vs, loc);
  }
  return cast(B, r, out, loc);
}

/* logsumexp as PyTorch writes it: op by op in the input's dtype (ints in
 * the default float), the max subtracted first, and a max of +-inf replaced
 * by 0 so that a slice of all -inf gives -inf, not NaN. */
static GNode *logsumexp(Builder *B, GNode *x, uint32_t mask, bool keepdim, SrcLoc loc) {
  if (!dtype_is_float(x->dtype)) x = cast(B, x, DT_F32, loc);
  GNode *m = reduce(B, OP_AMAX, x, mask, true, loc);
  if (!m) return NULL;
  Val vm = {.kind = V_TENSOR, .t = m}, inf = {.kind = V_FLOAT, .f = INFINITY}, zero = {.kind = V_INT, .i = 0};
  Val vabs = {.kind = V_TENSOR, .t = float_unary(B, OP_ABS, m, loc)};
  Val vinf = {.kind = V_TENSOR, .t = arith(B, OP_EQ, &vabs, &inf, loc)};
  Val *wargs[3] = {&vinf, &zero, &vm};
  Val vm0 = {.kind = V_TENSOR, .t = pointwise(B, OP_WHERE, wargs, 3, x->dtype, x->dtype, loc)};
  Val vx = {.kind = V_TENSOR, .t = x};
  GNode *e = float_unary(B, OP_EXP, arith(B, OP_SUB, &vx, &vm0, loc), loc);
  GNode *s = reduce(B, OP_SUM, e, mask, keepdim, loc);
  s = cast(B, s, x->dtype, loc);
  Val vl = {.kind = V_TENSOR, .t = float_unary(B, OP_LOG, s, loc)};
  if (!keepdim) {
    int64_t shape[COIL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < x->ndim; d++)
      if (!(mask >> d & 1)) shape[n++] = x->shape[d];
    vm0.t = reshape(B, vm0.t, n, shape, loc);
  }
  return arith(B, OP_ADD, &vl, &vm0, loc);
}

/* ------------------------------------------------------------ calls */

/* ------------------------------------------------------------ the spellings */

static bool name_in(const char *name, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(name, *list)) return true;
  return false;
}

static const struct { const char *name; DType dt; } torch_dtypes[] = {
    {"float32", DT_F32}, {"float", DT_F32}, {"float16", DT_F16}, {"half", DT_F16},
    {"bfloat16", DT_BF16}, {"float64", DT_F64}, {"double", DT_F64}, {"int32", DT_I32},
    {"int", DT_I32}, {"int64", DT_I64}, {"long", DT_I64}, {"bool", DT_BOOL},
};

/* Every PyTorch spelling coil accepts is a row of `spellings` below: its
 * name, the forms it is written in (x.NAME(...), torch.NAME(x, ...)), the
 * builder that gives it PyTorch's semantics, and what it takes.  A builder
 * serves a family (every float unary, every binary op...); the row's op and
 * dtype tell it which member.  `coil ops` prints the table (docs/ops.md).
 *
 * A builder gets the call's first tensor as x (self for a method, the first
 * argument for torch.NAME) and the arguments after it.  A call whose first
 * argument is not a tensor (torch.full's size) gives it x = NULL and all
 * its arguments.
 *
 * An ATen overload's row is named by its schema, as PyTorch declares it:
 * "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)".  The call is
 * bound to the schema first (call_aten), and the builder, which sees the
 * row's name as "add", gets the arguments in the order the schema gives
 * them, as it gets torch.add's. */
typedef struct Spelling Spelling;
typedef Val *BuildFn(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc);
struct Spelling {
  const char *name;
  unsigned forms; /* SpellingForm bits */
  BuildFn *build;
  Op op;
  DType dt;
  const char *dtypes; /* the input dtypes it takes, for `coil ops` */
};

static Val *b_cast_method(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  return mktensor(B, cast(B, x, s->dt, loc));
}

/* x.to(dtype), x.type(dtype), x.type_as(other), and aten._to_copy(x,
 * dtype=None) and prims.convert_element_type(x, dtype). */
static Val *b_to(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *d = arg(A, 0, !strcmp(s->name, "type_as") ? "other" : "dtype");
  DType dt = x->dtype;
  /* _to_copy without a dtype is a copy to another device (the backend's
   * printer drops device=): the same values. */
  bool same = !strcmp(s->name, "_to_copy") && (!d || d->kind == V_NONE);
  if (!same && !get_dtype(B, d, arg_loc(A, 0, "dtype"), &dt)) return NULL;
  if (!check_args(B, A, s->name, 1)) return NULL;
  return mktensor(B, cast(B, x, dt, loc));
}

static Val *b_float_unary(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  return mktensor(B, float_unary(B, s->op, x, loc));
}

/* -x and abs(x) (the method, torch's, ATen's and Python's builtin abs). */
static Val *neg_abs(Builder *B, Op op, GNode *x, SrcLoc loc) {
  if (x->dtype == DT_BOOL && op == OP_NEG) return fail(B, loc, "negation of a bool tensor is not supported (as in PyTorch); use ~");
  if (x->dtype == DT_BOOL && op == OP_ABS) return fail(B, loc, "abs of a bool tensor is not supported (as in PyTorch)");
  Val vx = {.kind = V_TENSOR, .t = x};
  Val *vs[1] = {&vx};
  return mktensor(B, pointwise(B, op, vs, 1, x->dtype, opmath(x->dtype), loc));
}

static Val *b_neg_abs(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  return neg_abs(B, s->op, x, loc);
}

static Val *b_square(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  GNode *base = x->dtype == DT_BOOL ? cast(B, x, DT_I64, loc) : x;
  Val vb = {.kind = V_TENSOR, .t = base};
  return mktensor(B, arith(B, OP_MUL, &vb, &vb, loc));
}

static Val *b_relu(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  if (x->dtype == DT_BOOL) return fail(B, loc, "relu of a bool tensor is not supported");
  Val vx = {.kind = V_TENSOR, .t = x}, zero = {.kind = V_INT, .i = 0};
  return mktensor(B, arith(B, OP_MAXIMUM, &vx, &zero, loc));
}

/* logical_not (x == 0 of any dtype) and bitwise_not (~x: of an integer,
 * x ^ -1, every bit flipped). */
static Val *b_not(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  Val vx = {.kind = V_TENSOR, .t = x};
  if (x->dtype != DT_BOOL) {
    bool logical = !strcmp(s->name, "logical_not");
    if (!logical && !dtype_is_int(x->dtype)) return fail(B, loc, "%s needs a bool or integer tensor, got %s", s->name, dtype_name(x->dtype));
    Val c = {.kind = V_INT, .i = logical ? 0 : -1};
    return mktensor(B, arith(B, logical ? OP_EQ : OP_XOR, &vx, &c, loc));
  }
  Val *vs[1] = {&vx};
  return mktensor(B, pointwise(B, OP_NOT, vs, 1, DT_BOOL, DT_BOOL, loc));
}

static Val *clamp_fn(Builder *B, GNode *x, Val *lo, Val *hi, SrcLoc loc) {
  Val vx = {.kind = V_TENSOR, .t = x};
  Val *cur = &vx;
  GNode *r = x;
  if (lo && lo->kind != V_NONE) {
    if (!(r = arith(B, OP_MAXIMUM, cur, lo, loc))) return NULL;
    cur = mktensor(B, r);
  }
  if (hi && hi->kind != V_NONE) {
    if (!(r = arith(B, OP_MINIMUM, cur, hi, loc))) return NULL;
  }
  if (r == x) return fail(B, loc, "clamp needs at least one of min and max");
  return mktensor(B, r);
}

static Val *b_clamp(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *lo = arg(A, 0, "min"), *hi = arg(A, 1, "max");
  if (!check_args(B, A, s->name, 2)) return NULL;
  return clamp_fn(B, x, lo, hi, loc);
}

/* clamp_min (op MAXIMUM) and clamp_max (op MINIMUM). */
static Val *b_clamp_one(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool lower = s->op == OP_MAXIMUM;
  Val *b = arg(A, 0, lower ? "min" : "max");
  if (!b) return fail(B, loc, "%s needs a bound", s->name);
  if (!check_args(B, A, s->name, 1)) return NULL;
  return lower ? clamp_fn(B, x, b, NULL, loc) : clamp_fn(B, x, NULL, b, loc);
}

static GNode *trunc_node(Builder *B, GNode *x, SrcLoc loc);

/* x + alpha * other (sub: x - alpha * other) in the compute dtype, rounded
 * once, as PyTorch's add kernel computes it (of floats, a fused
 * multiply-add). */
static GNode *add_scaled(Builder *B, Op op, Val *vx, Val *other, Val *alpha, SrcLoc loc, SrcLoc aloc) {
  if (alpha->kind == V_TENSOR || !is_num(alpha)) return fail(B, aloc, "alpha must be a number, got %s", kind_name(alpha));
  Val *vs[2] = {vx, other};
  DType dt = result_type(vs, 2), cd = opmath(dt);
  if (dt == DT_BOOL) return fail(B, aloc, "alpha with bool tensors is not supported");
  if (!dtype_is_float(dt) && alpha->kind == V_FLOAT)
    return fail(B, aloc, "For integral input tensors, argument alpha must not be a floating point number (as in PyTorch)");
  Val vo = {.kind = V_TENSOR, .t = as_dtype(B, other, cd, loc)};
  Val va = {.kind = V_TENSOR, .t = as_dtype(B, vx, cd, loc)};
  if (cd == DT_F32) {
    /* PyTorch's kernel is one fused multiply-add in f32, alpha in the
     * tensors' dtype (sub: of -alpha): the f32 product is exact in f64 and
     * the sum is rounded once more, to f32, so 3e38 - 2 * 3e38 is -3e38
     * and not -inf, and 20,000 random sums of f32 and of bf16 agree bit for
     * bit (f64's fma has no such emulation). */
    Val a32 = {.kind = V_FLOAT, .f = dtype_round(dt, alpha->kind == V_FLOAT ? alpha->f : (double)alpha->i)};
    vo.t = cast(B, vo.t, DT_F64, loc);
    va.t = cast(B, va.t, DT_F64, loc);
    Val vp = {.kind = V_TENSOR, .t = arith(B, OP_MUL, &vo, &a32, loc)};
    return cast(B, cast(B, arith(B, op, &va, &vp, loc), DT_F32, loc), dt, loc);
  }
  Val vp = {.kind = V_TENSOR, .t = arith(B, OP_MUL, &vo, alpha, loc)};
  return cast(B, arith(B, op, &va, &vp, loc), dt, loc);
}

/* x / other with rounding_mode 'trunc': the quotient truncated in the
 * compute dtype before it is rounded to the result's, as PyTorch's kernel.
 * 'floor' is PyTorch's fmod-based floor division, and integer division is
 * not among coil's ops: both are refused. */
enum { MOD_FMOD, MOD_REMAINDER, MOD_FLOOR };
static GNode *mod_op(Builder *B, int kind, Val *a, Val *b, SrcLoc loc, const char *name);
static GNode *div_rounded(Builder *B, Val *vx, Val *other, Val *mode, SrcLoc loc, SrcLoc mloc) {
  if (mode->kind != V_STR || (strcmp(mode->name, "trunc") && strcmp(mode->name, "floor")))
    return fail(B, mloc, "div's rounding_mode must be None, 'trunc' or 'floor'");
  if (!strcmp(mode->name, "floor")) return mod_op(B, MOD_FLOOR, vx, other, loc, "div");
  Val *vs[2] = {vx, other};
  DType dt = result_type(vs, 2), cd = opmath(dt);
  if (dt == DT_BOOL) return fail(B, mloc, "div with rounding_mode='trunc' of bool tensors is not supported (as in PyTorch)");
  /* integer division toward zero; x / 0 is 0 and MIN / -1 wraps (ops.h) */
  if (!dtype_is_float(dt)) return pointwise(B, OP_IDIV, vs, 2, dt, dt, loc);
  Val va = {.kind = V_TENSOR, .t = as_dtype(B, vx, cd, loc)}, vo = {.kind = V_TENSOR, .t = as_dtype(B, other, cd, loc)};
  return cast(B, trunc_node(B, arith(B, OP_DIV, &va, &vo, loc), loc), dt, loc);
}

/* Binary ops written as functions: add, maximum, lt, logical_and...; add
 * and sub take alpha, div a rounding_mode.  x NULL: the first operand is
 * a number, the first argument (aten.sub.Tensor(1, x)). */
static Val *b_binary(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Op op = s->op;
  Val vx = {.kind = V_TENSOR, .t = x}, *a = &vx;
  Args rest;
  if (!x) {
    a = arg(A, 0, "self");
    rest = after_first(A);
    A = &rest;
  }
  Val *b = arg(A, 0, "other");
  if (!b && op == OP_POW) b = arg(A, 0, "exponent");
  if (!b) return fail(B, loc, "%s needs a second operand", s->name);
  Val *alpha = op == OP_ADD || op == OP_SUB ? arg(A, 1, "alpha") : NULL;
  Val *mode = op == OP_DIV ? arg(A, -1, "rounding_mode") : NULL;
  if (!check_args(B, A, s->name, alpha ? 2 : 1)) return NULL;
  if ((op == OP_MAXIMUM || op == OP_MINIMUM) && b->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, "other"), "torch.%s expects a tensor as its second argument; use clamp for a number", s->name);
  if (alpha && !((alpha->kind == V_INT || alpha->kind == V_BOOL) && alpha->i == 1))
    return mktensor(B, add_scaled(B, op, a, b, alpha, loc, arg_loc(A, 1, "alpha")));
  if (mode && mode->kind != V_NONE) return mktensor(B, div_rounded(B, a, b, mode, loc, arg_loc(A, -1, "rounding_mode")));
  if ((op == OP_AND || op == OP_OR || op == OP_XOR) && s->name[0] == 'l') {
    /* logical_*: operands are truth values */
    Val va = {.kind = V_TENSOR, .t = cast(B, x, DT_BOOL, loc)};
    Val vb = *b;
    if (b->kind == V_TENSOR) vb.t = cast(B, b->t, DT_BOOL, loc);
    return mktensor(B, arith(B, op, &va, &vb, loc));
  }
  return mktensor(B, arith(B, op, a, b, loc));
}

static Val *where_fn(Builder *B, GNode *cond, Val *a, Val *b, SrcLoc la, SrcLoc lb, SrcLoc loc) {
  if (cond->dtype != DT_BOOL) return fail(B, loc, "where's condition must be a bool tensor, got %s", dtype_name(cond->dtype));
  Val *ab[2] = {a, b};
  SrcLoc l[2] = {la, lb};
  for (int i = 0; i < 2; i++)
    if (!is_num(ab[i])) return fail(B, l[i], "where expects tensors or numbers, got %s", kind_name(ab[i]));
  DType dt = result_type(ab, 2);
  Val vc = {.kind = V_TENSOR, .t = cond};
  Val *vs[3] = {&vc, a, b};
  return mktensor(B, pointwise(B, OP_WHERE, vs, 3, dt, dt, loc));
}

/* torch.where(condition, input, other) and aten.where.self: x is the
 * condition. */
static Val *b_where(Builder *B, const Spelling *s, GNode *cond, Args *A, SrcLoc loc) {
  Val *a = arg(A, 0, "input"), *b = arg(A, 1, "other");
  if (!a || !b) return fail(B, loc, "where needs a condition and two values");
  if (!check_args(B, A, "where", 2)) return NULL;
  return where_fn(B, cond, a, b, arg_loc(A, 0, "input"), arg_loc(A, 1, "other"), loc);
}

/* x.where(condition, other): x where condition holds, else other. */
static Val *b_where_method(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *c = arg(A, 0, "condition"), *b = arg(A, 1, "other");
  if (!c || !b) return fail(B, loc, "where needs a condition and another value");
  if (!check_args(B, A, s->name, 2)) return NULL;
  if (c->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "condition"), "where's condition must be a bool tensor, got %s", kind_name(c));
  Val vx = {.kind = V_TENSOR, .t = x};
  return where_fn(B, c->t, &vx, b, loc, arg_loc(A, 1, "other"), loc);
}

static Val *b_permute(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t dims[COIL_MAX_DIMS];
  SrcLoc dl;
  int n = get_int_list(B, A, 0, "dims", dims, &dl);
  if (n < 0 || !check_args(B, A, s->name, n == 1 && A->npos == 1 ? 1 : A->npos)) return NULL;
  if (n != x->ndim) return fail(B, dl, "permute: %d dims given for a tensor of %d dimensions", n, x->ndim);
  int perm[COIL_MAX_DIMS];
  uint32_t seen = 0;
  for (int i = 0; i < n; i++) {
    int d = norm_dim(B, dims[i], x->ndim, dl);
    if (d < 0) return NULL;
    if (seen >> d & 1) return fail(B, dl, "permute: dim %d repeats", d);
    seen |= 1u << d;
    perm[i] = d;
  }
  return mktensor(B, permute(B, x, perm, loc));
}

/* transpose, swapaxes and t (two dims, or the only two). */
static Val *b_transpose(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t d0 = 0, d1 = 1;
  if (!strcmp(s->name, "t")) {
    if (!check_args(B, A, s->name, 0)) return NULL;
    if (x->ndim > 2) return fail(B, loc, "t() expects a tensor with <= 2 dimensions, got %d", x->ndim);
    if (x->ndim < 2) return mktensor(B, x);
  } else {
    if (!get_int(B, arg(A, 0, "dim0"), arg_loc(A, 0, "dim0"), "dim0", &d0) ||
        !get_int(B, arg(A, 1, "dim1"), arg_loc(A, 1, "dim1"), "dim1", &d1) || !check_args(B, A, s->name, 2))
      return NULL;
  }
  int a = norm_dim(B, d0, x->ndim, arg_loc(A, 0, "dim0")), b = norm_dim(B, d1, x->ndim, arg_loc(A, 1, "dim1"));
  if (a < 0 || b < 0) return NULL;
  if (x->ndim == 0) return mktensor(B, x);
  int perm[COIL_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  return mktensor(B, permute(B, x, perm, loc));
}

static Val *b_unsqueeze(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t d;
  if (!get_int(B, arg(A, 0, "dim"), arg_loc(A, 0, "dim"), "dim", &d) || !check_args(B, A, s->name, 1)) return NULL;
  if (x->ndim + 1 > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
  if (d < -(x->ndim + 1) || d > x->ndim)
    return fail(B, arg_loc(A, 0, "dim"), "dim %lld is out of range for unsqueeze on %d dimensions (expected in [%d, %d])",
                (long long)d, x->ndim, -(x->ndim + 1), x->ndim);
  int nd = (int)(d < 0 ? d + x->ndim + 1 : d);
  int64_t shape[COIL_MAX_DIMS];
  for (int i = 0, j = 0; i <= x->ndim; i++) shape[i] = i == nd ? 1 : x->shape[j++];
  return mktensor(B, reshape(B, x, x->ndim + 1, shape, loc));
}

static Val *b_squeeze(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *dv = arg(A, 0, "dim");
  if (!check_args(B, A, s->name, 1)) return NULL;
  uint32_t mask = 0;
  if (!dv) {
    for (int d = 0; d < x->ndim; d++)
      if (x->shape[d] == 1) mask |= 1u << d;
  } else if (!get_dims(B, dv, arg_loc(A, 0, "dim"), x, false, &mask)) {
    return NULL;
  }
  int64_t shape[COIL_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < x->ndim; d++)
    if (!(mask >> d & 1) || x->shape[d] != 1) shape[n++] = x->shape[d];
  return mktensor(B, reshape(B, x, n, shape, loc));
}

static Val *b_view(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  int64_t dims[COIL_MAX_DIMS];
  SrcLoc dl;
  Val *first = arg(A, 0, "shape");
  if (first && first->kind == V_DTYPE) return fail(B, dl = arg_loc(A, 0, "shape"), "view(dtype) reinterprets bits and is not supported");
  int n = get_int_list(B, A, 0, "shape", dims, &dl);
  if (n < 0 || !check_args(B, A, name, A->npos)) return NULL;
  int infer = -1;
  int64_t known = 1, total = shape_numel(x->ndim, x->shape);
  for (int i = 0; i < n; i++) {
    if (dims[i] == -1) {
      if (infer >= 0) return fail(B, dl, "%s: only one dimension can be -1", name);
      infer = i;
    } else if (dims[i] < 0) {
      return fail(B, dl, "%s: invalid size %lld", name, (long long)dims[i]);
    } else if (!mul_ok(known, dims[i], &known)) {
      return fail(B, dl, "%s: the sizes' product overflows 64 bits", name);
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known) return fail(B, dl, "%s: shape %s is invalid for input of size %lld", name, shape_fmt(B->a, n, dims), (long long)total);
    dims[infer] = total / known;
    known = total;
  }
  if (known != total) return fail(B, dl, "%s: shape %s is invalid for input of size %lld", name, shape_fmt(B->a, n, dims), (long long)total);
  return mktensor(B, reshape(B, x, n, dims, loc));
}

static Val *b_narrow(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t d, start, length;
  if (!get_int(B, arg(A, 0, "dim"), arg_loc(A, 0, "dim"), "dim", &d) ||
      !get_int(B, arg(A, 1, "start"), arg_loc(A, 1, "start"), "start", &start) ||
      !get_int(B, arg(A, 2, "length"), arg_loc(A, 2, "length"), "length", &length) || !check_args(B, A, s->name, 3))
    return NULL;
  if (x->ndim == 0) return fail(B, loc, "narrow() cannot be applied to a 0-dim tensor");
  int dim = norm_dim(B, d, x->ndim, arg_loc(A, 0, "dim"));
  if (dim < 0) return NULL;
  int64_t size = x->shape[dim];
  if (start < -size || start > size)
    return fail(B, arg_loc(A, 1, "start"), "narrow: start %lld is out of range (expected in [%lld, %lld])",
                (long long)start, (long long)-size, (long long)size);
  if (start < 0) start += size;
  if (length < 0 || length > size - start)
    return fail(B, arg_loc(A, 2, "length"), "narrow: start (%lld) + length (%lld) exceeds dimension size (%lld)",
                (long long)start, (long long)length, (long long)size);
  int64_t st[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  st[dim] = start;
  shape[dim] = length;
  return mktensor(B, slice(B, x, st, shape, loc));
}

static Val *b_flatten(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t st = 0, e = -1;
  Val *sv = arg(A, 0, "start_dim"), *ev = arg(A, 1, "end_dim");
  if ((sv && !get_int(B, sv, arg_loc(A, 0, "start_dim"), "start_dim", &st)) ||
      (ev && !get_int(B, ev, arg_loc(A, 1, "end_dim"), "end_dim", &e)) || !check_args(B, A, s->name, 2))
    return NULL;
  if (x->ndim == 0) { int64_t one = 1; return mktensor(B, reshape(B, x, 1, &one, loc)); }
  int a = norm_dim(B, st, x->ndim, arg_loc(A, 0, "start_dim")), b = norm_dim(B, e, x->ndim, arg_loc(A, 1, "end_dim"));
  if (a < 0 || b < 0) return NULL;
  if (a > b) return fail(B, loc, "flatten: start_dim %d comes after end_dim %d", a, b);
  int64_t shape[COIL_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (d > a && d <= b) shape[n - 1] *= x->shape[d];
    else shape[n++] = x->shape[d];
  }
  return mktensor(B, reshape(B, x, n, shape, loc));
}

static Val *b_expand(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t dims[COIL_MAX_DIMS];
  SrcLoc dl;
  int n = get_int_list(B, A, 0, "size", dims, &dl);
  (void)arg(A, -1, "implicit"); /* aten.expand's: whether the expand came from broadcasting; the same values */
  if (n < 0 || !check_args(B, A, s->name, A->npos)) return NULL;
  GNode *r = expand(B, x, n, dims, dl);
  return r ? mktensor(B, r) : NULL;
}

/* expand_as(other) and broadcast_to(size). */
static Val *b_expand_to(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *o = arg(A, 0, s->name[0] == 'e' ? "other" : "size");
  if (!check_args(B, A, s->name, 1)) return NULL;
  int64_t dims[COIL_MAX_DIMS];
  int n;
  if (o && o->kind == V_TENSOR) {
    n = o->t->ndim;
    memcpy(dims, o->t->shape, sizeof(int64_t) * (size_t)n);
  } else if (o && o->kind == V_TUPLE) {
    n = o->n;
    for (int i = 0; i < n; i++)
      if (!get_int(B, o->items[i], loc, "size", &dims[i])) return NULL;
  } else {
    return fail(B, loc, "%s expects a tensor", s->name);
  }
  GNode *r = expand(B, x, n, dims, loc);
  return r ? mktensor(B, r) : NULL;
}

/* aten.copy(x, src): src's values broadcast to x's shape, in x's dtype
 * (x.copy_(src) out of place). */
static Val *b_copy(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *src = arg(A, 0, "src");
  (void)arg(A, 1, "non_blocking");
  if (!src) return fail(B, loc, "copy needs src");
  if (!check_args(B, A, s->name, 2)) return NULL;
  GNode *v = operand(B, src, x->dtype, arg_loc(A, 0, "src"));
  GNode *r = v ? expand(B, v, x->ndim, x->shape, arg_loc(A, 0, "src")) : NULL;
  return r ? mktensor(B, cast(B, r, x->dtype, loc)) : NULL;
}

/* contiguous, clone, detach: the same values (a view is never copied). */
static Val *b_identity(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  return mktensor(B, x);
}

/* sum, prod, amax, amin (op), and mean (op SUM, then a division). */
static Val *b_reduce(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  bool is_mean = !strcmp(name, "mean");
  Op op = s->op;
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  bool keep = get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  Val *dtv = op == OP_AMAX || op == OP_AMIN ? NULL : arg(A, -1, "dtype"); /* amax/amin take no dtype */
  if (!check_args(B, A, name, 2) || B->err) return NULL;
  if (op == OP_PROD && dv && dv->kind != V_INT && dv->kind != V_NONE)
    return fail(B, dl, "prod reduces one dim, as in PyTorch: dim must be an int");
  GNode *src = x;
  if (dtv) {
    DType dt;
    if (!get_dtype(B, dtv, arg_loc(A, -1, "dtype"), &dt)) return NULL;
    src = cast(B, x, dt, loc);
  }
  uint32_t mask;
  if (!get_dims(B, dv, dl, src, true, &mask)) return NULL;
  if (is_mean) {
    if (!dtype_is_float(src->dtype))
      return fail(B, loc, "mean(): could not infer output dtype. Input dtype must be either a floating point "
                          "or complex dtype. Got: %s", dtype_name(src->dtype));
    int64_t count = 1;
    for (int d = 0; d < src->ndim; d++)
      if (mask >> d & 1) count *= src->shape[d];
    GNode *sum = reduce(B, OP_SUM, src, mask, keep, loc);
    Val vs = {.kind = V_TENSOR, .t = sum}, vc = {.kind = V_FLOAT, .f = (double)count};
    if (!sum) return NULL;
    return mktensor(B, cast(B, arith(B, OP_DIV, &vs, &vc, loc), src->dtype, loc));
  }
  GNode *r = reduce(B, op, src, mask, keep, loc);
  if (!r) return NULL;
  /* PyTorch's result dtype: ints and bool sum to int64; floats keep theirs. */
  DType out = op == OP_SUM || op == OP_PROD ? (dtype_is_float(src->dtype) ? src->dtype : DT_I64) : src->dtype;
  return mktensor(B, cast(B, r, out, loc));
}

static Val *b_var_std(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  Val *ub = arg(A, -1, "unbiased"), *cv = arg(A, -1, "correction");
  if (dv && (dv->kind == V_BOOL)) { ub = dv; dv = NULL; } /* x.var(False) */
  bool keep = get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  if (!check_args(B, A, name, 2) || B->err) return NULL;
  double correction = 1;
  if (ub && cv) return fail(B, loc, "%s: give either unbiased or correction, not both", name);
  if (ub) correction = get_bool(B, ub, arg_loc(A, -1, "unbiased"), "unbiased", true) ? 1 : 0;
  if (cv && cv->kind != V_NONE) {
    if (cv->kind == V_INT) correction = (double)cv->i;
    else if (cv->kind == V_FLOAT) correction = cv->f;
    else return fail(B, arg_loc(A, -1, "correction"), "correction must be a number");
  }
  uint32_t mask;
  if (!get_dims(B, dv, dl, x, true, &mask)) return NULL;
  GNode *r = variance(B, x, mask, correction, keep, name[0] == 's', loc);
  return r ? mktensor(B, r) : NULL;
}

static Val *b_softmax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  bool lse = !strcmp(name, "logsumexp");
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  bool keep = lse && get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  Val *dtv = lse ? NULL : arg(A, 1, "dtype");
  if (!check_args(B, A, name, 2) || B->err) return NULL;
  if (!dv || dv->kind == V_NONE) return fail(B, loc, "%s needs dim (PyTorch's implicit dim is deprecated)", name);
  if (!lse && dv->kind != V_INT) return fail(B, dl, "%s: dim must be an int", name);
  uint32_t mask;
  if (!get_dims(B, dv, dl, x, false, &mask)) return NULL;
  GNode *r = lse ? logsumexp(B, x, mask, keep, loc) : softmax(B, x, mask, dtv, arg_loc(A, 1, "dtype"), name[0] == 'l', loc);
  return r ? mktensor(B, r) : NULL;
}

/* aten._softmax(x, dim, half_to_float) and _log_softmax: half_to_float
 * asks for an f32 result of an f16 or bf16 x (a CUDA kernel's option). */
static Val *b_aten_softmax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *dv = arg(A, 0, "dim"), f32 = {.kind = V_DTYPE, .dt = DT_F32};
  bool half_to_float = get_bool(B, arg(A, 1, "half_to_float"), arg_loc(A, 1, "half_to_float"), "half_to_float", false);
  uint32_t mask;
  if (!check_args(B, A, s->name, 2) || B->err || !get_dims(B, dv, arg_loc(A, 0, "dim"), x, false, &mask)) return NULL;
  if (half_to_float && x->dtype != DT_F16 && x->dtype != DT_BF16)
    return fail(B, arg_loc(A, 1, "half_to_float"), "%s: half_to_float needs an f16 or bf16 tensor, got %s", s->name, dtype_name(x->dtype));
  GNode *r = softmax(B, x, mask, half_to_float ? &f32 : NULL, loc, !strcmp(s->name, "_log_softmax"), loc);
  return r ? mktensor(B, r) : NULL;
}

/* size(dim=None), dim(), numel(): Python ints known when compiling. */
static Val *b_size(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  if (!strcmp(name, "numel")) { if (!check_args(B, A, name, 0)) return NULL; return mkint(B, shape_numel(x->ndim, x->shape)); }
  if (!strcmp(name, "dim")) { if (!check_args(B, A, name, 0)) return NULL; return mkint(B, x->ndim); }
  Val *dv = arg(A, 0, "dim");
  if (!check_args(B, A, name, 1)) return NULL;
  if (!dv) {
    Val *t = mkval(B, V_TUPLE);
    t->n = x->ndim;
    t->items = ARENA_ARRAY(B->a, Val *, x->ndim + 1);
    for (int i = 0; i < x->ndim; i++) t->items[i] = mkint(B, x->shape[i]);
    return t;
  }
  int64_t d;
  if (!get_int(B, dv, arg_loc(A, 0, "dim"), "dim", &d)) return NULL;
  int nd = norm_dim(B, d, x->ndim, arg_loc(A, 0, "dim"));
  return nd < 0 ? NULL : mkint(B, x->ndim ? x->shape[nd] : 1);
}

/* ------------------------------------------------------------ activations */

static bool num_value(Builder *B, Val *v, SrcLoc loc, const char *fname, double *out);

/* Composite ops (activations, norms) are written with these, on tensors
 * already in their compute dtype. */
static GNode *tt(Builder *B, Op op, GNode *a, GNode *b, SrcLoc loc) {
  Val va = {.kind = V_TENSOR, .t = a}, vb = {.kind = V_TENSOR, .t = b};
  return arith(B, op, &va, &vb, loc);
}
static GNode *tc(Builder *B, Op op, GNode *a, double c, SrcLoc loc) {
  Val va = {.kind = V_TENSOR, .t = a}, vc = {.kind = V_FLOAT, .f = c};
  return arith(B, op, &va, &vc, loc);
}
static GNode *ct(Builder *B, Op op, double c, GNode *a, SrcLoc loc) {
  Val va = {.kind = V_TENSOR, .t = a}, vc = {.kind = V_FLOAT, .f = c};
  return arith(B, op, &vc, &va, loc);
}
static GNode *tneg(Builder *B, GNode *a, SrcLoc loc) {
  if (!a) return NULL;
  Val va = {.kind = V_TENSOR, .t = a};
  Val *vs[1] = {&va};
  return pointwise(B, OP_NEG, vs, 1, a->dtype, a->dtype, loc);
}
static GNode *tabs(Builder *B, GNode *a, SrcLoc loc) {
  if (!a) return NULL;
  Val va = {.kind = V_TENSOR, .t = a};
  Val *vs[1] = {&va};
  return pointwise(B, OP_ABS, vs, 1, a->dtype, a->dtype, loc);
}
static GNode *twhere(Builder *B, GNode *c, GNode *a, GNode *b, SrcLoc loc) {
  if (!c || !a || !b) return NULL;
  Val vc = {.kind = V_TENSOR, .t = c}, va = {.kind = V_TENSOR, .t = a}, vb = {.kind = V_TENSOR, .t = b};
  Val *vs[3] = {&vc, &va, &vb};
  return pointwise(B, OP_WHERE, vs, 3, a->dtype, a->dtype, loc);
}

/* An activation's input in its compute dtype (bf16 and f16 in f32), as
 * PyTorch's CPU kernels compute one; its result is rounded once, at the
 * end (act_done). */
static GNode *act_in(Builder *B, const Spelling *s, GNode *x, SrcLoc loc) {
  if (!dtype_is_float(x->dtype))
    return fail(B, loc, "%s of a %s tensor is not supported (as in PyTorch): it needs a floating-point tensor", s->name,
                dtype_name(x->dtype));
  return cast(B, x, opmath(x->dtype), loc);
}
static Val *act_done(Builder *B, GNode *r, GNode *x, SrcLoc loc) { return r ? mktensor(B, cast(B, r, x->dtype, loc)) : NULL; }

static bool num_arg(Builder *B, Args *A, int i, const char *name, double dflt, double *out) {
  Val *v = arg(A, i, name);
  if (!v) { *out = dflt; return true; }
  return num_value(B, v, arg_loc(A, i, name), name, out);
}

/* log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|)). */
static GNode *softplus1(Builder *B, GNode *x, SrcLoc loc) {
  GNode *m = tc(B, OP_MAXIMUM, x, 0, loc);
  GNode *e = float_unary(B, OP_EXP, tneg(B, tabs(B, x, loc), loc), loc);
  return tt(B, OP_ADD, m, float_unary(B, OP_LOG, ct(B, OP_ADD, 1, e, loc), loc), loc);
}

static GNode *elu1(Builder *B, GNode *x, double alpha, double in_scale, SrcLoc loc) {
  GNode *em1 = tc(B, OP_SUB, float_unary(B, OP_EXP, tc(B, OP_MUL, x, in_scale, loc), loc), 1, loc);
  return twhere(B, tc(B, OP_GT, x, 0, loc), x, tc(B, OP_MUL, em1, alpha, loc), loc);
}

/* The activations of torch.nn.functional (and their torch.X and x.X
 * spellings where PyTorch has them); the row's name picks the formula. */
static Val *b_activation(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  const char *n = s->name;
  double p1 = 0, p2 = 0;
  GNode *r = NULL;
  if (!strcmp(n, "leaky_relu")) {
    if (!num_arg(B, A, 0, "negative_slope", 0.01, &p1) || !check_args(B, A, n, 1)) return NULL;
  } else if (!strcmp(n, "elu") || !strcmp(n, "celu")) {
    if (!num_arg(B, A, 0, "alpha", 1.0, &p1) || !check_args(B, A, n, 1)) return NULL;
  } else if (!strcmp(n, "softplus")) {
    if (!num_arg(B, A, 0, "beta", 1.0, &p1) || !num_arg(B, A, 1, "threshold", 20.0, &p2) || !check_args(B, A, n, 2)) return NULL;
  } else if (!strcmp(n, "hardtanh")) {
    if (!num_arg(B, A, 0, "min_val", -1.0, &p1) || !num_arg(B, A, 1, "max_val", 1.0, &p2) || !check_args(B, A, n, 2)) return NULL;
  } else if (!strcmp(n, "threshold")) {
    Val *tv = arg(A, 0, "threshold"), *vv = arg(A, 1, "value");
    if (!tv || !vv) return fail(B, loc, "threshold needs threshold and value");
    if (!num_value(B, tv, arg_loc(A, 0, "threshold"), "threshold", &p1) || !num_value(B, vv, arg_loc(A, 1, "value"), "value", &p2) ||
        !check_args(B, A, n, 2))
      return NULL;
  } else if (!strcmp(n, "gelu")) {
    Val *ap = arg(A, 0, "approximate");
    if (!check_args(B, A, n, 1)) return NULL;
    if (ap && (ap->kind != V_STR || (strcmp(ap->name, "none") && strcmp(ap->name, "tanh"))))
      return fail(B, arg_loc(A, 0, "approximate"), "gelu's approximate must be 'none' or 'tanh'");
    p1 = ap && !strcmp(ap->name, "tanh");
  } else if (!check_args(B, A, n, 0)) {
    return NULL;
  }
  bool int_ok = !strcmp(n, "relu6") || !strcmp(n, "hardtanh") || !strcmp(n, "threshold");
  if (int_ok && !dtype_is_float(x0->dtype)) {
    if (x0->dtype == DT_BOOL) return fail(B, loc, "%s of a bool tensor is not supported", n);
    if (!strcmp(n, "threshold")) {
      Val vx = {.kind = V_TENSOR, .t = x0}, vt = {.kind = V_FLOAT, .f = p1}, vv = {.kind = V_FLOAT, .f = p2};
      GNode *c = arith(B, OP_GT, &vx, &vt, loc);
      Val vc = {.kind = V_TENSOR, .t = c};
      Val *vs[3] = {&vc, &vx, &vv};
      return mktensor(B, cast(B, pointwise(B, OP_WHERE, vs, 3, DT_F32, DT_F32, loc), x0->dtype, loc));
    }
    Val lo = {.kind = V_FLOAT, .f = !strcmp(n, "relu6") ? 0 : p1}, hi = {.kind = V_FLOAT, .f = !strcmp(n, "relu6") ? 6 : p2};
    Val *c = clamp_fn(B, x0, &lo, &hi, loc);
    return c ? mktensor(B, cast(B, c->t, x0->dtype, loc)) : NULL;
  }
  GNode *x = act_in(B, s, x0, loc);
  if (!x) return NULL;
  if (!strcmp(n, "silu")) r = tt(B, OP_MUL, x, float_unary(B, OP_SIGMOID, x, loc), loc);
  else if (!strcmp(n, "relu6")) r = tc(B, OP_MINIMUM, tc(B, OP_MAXIMUM, x, 0, loc), 6, loc);
  else if (!strcmp(n, "hardtanh")) r = tc(B, OP_MINIMUM, tc(B, OP_MAXIMUM, x, p1, loc), p2, loc);
  else if (!strcmp(n, "leaky_relu")) r = twhere(B, tc(B, OP_GT, x, 0, loc), x, tc(B, OP_MUL, x, p1, loc), loc);
  else if (!strcmp(n, "elu")) r = elu1(B, x, p1, 1, loc);
  else if (!strcmp(n, "celu")) r = elu1(B, x, p1, 1 / p1, loc);
  else if (!strcmp(n, "selu"))
    r = tc(B, OP_MUL, elu1(B, x, 1.6732632423543772848170429916717, 1, loc), 1.0507009873554804934193349852946, loc);
  else if (!strcmp(n, "softplus")) {
    /* PyTorch: x where beta x > threshold, else log1p(exp(beta x)) / beta. */
    GNode *bx = tc(B, OP_MUL, x, p1, loc);
    r = twhere(B, tc(B, OP_GT, bx, p2, loc), x, tc(B, OP_DIV, softplus1(B, bx, loc), p1, loc), loc);
  } else if (!strcmp(n, "mish")) r = tt(B, OP_MUL, x, float_unary(B, OP_TANH, softplus1(B, x, loc), loc), loc);
  else if (!strcmp(n, "softsign")) r = tt(B, OP_DIV, x, ct(B, OP_ADD, 1, tabs(B, x, loc), loc), loc);
  else if (!strcmp(n, "hardsigmoid")) r = tc(B, OP_DIV, tc(B, OP_MINIMUM, tc(B, OP_MAXIMUM, tc(B, OP_ADD, x, 3, loc), 0, loc), 6, loc), 6, loc);
  else if (!strcmp(n, "hardswish"))
    r = tc(B, OP_DIV, tt(B, OP_MUL, x, tc(B, OP_MINIMUM, tc(B, OP_MAXIMUM, tc(B, OP_ADD, x, 3, loc), 0, loc), 6, loc), loc), 6, loc);
  else if (!strcmp(n, "logsigmoid")) r = tneg(B, softplus1(B, tneg(B, x, loc), loc), loc);
  else if (!strcmp(n, "threshold")) r = twhere(B, tc(B, OP_LE, x, p1, loc), mkconst(B, x->dtype, p2, 0, loc), x, loc); /* NaN stays */
  else if (!strcmp(n, "gelu")) {
    if (p1) { /* 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
      GNode *x3 = tt(B, OP_MUL, tt(B, OP_MUL, x, x, loc), x, loc);
      GNode *in = tc(B, OP_MUL, tt(B, OP_ADD, x, tc(B, OP_MUL, x3, 0.044715, loc), loc), 0.79788456080286535588, loc);
      r = tt(B, OP_MUL, tc(B, OP_MUL, x, 0.5, loc), ct(B, OP_ADD, 1, float_unary(B, OP_TANH, in, loc), loc), loc);
    } else { /* 0.5 x (1 + erf(x / sqrt 2)) */
      GNode *e = float_unary(B, OP_ERF, tc(B, OP_MUL, x, 0.70710678118654752440, loc), loc);
      r = tt(B, OP_MUL, tc(B, OP_MUL, x, 0.5, loc), ct(B, OP_ADD, 1, e, loc), loc);
    }
  } else coil_unreachable("b_activation: a row without a formula");
  return act_done(B, r, x0, loc);
}

/* F.softmax(input, dim, _stacklevel, dtype), F.log_softmax, F.softmin:
 * the functional signature puts dtype fourth. */
static Val *b_f_softmax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  (void)arg(A, 1, "_stacklevel");
  Val *dtv = arg(A, 2, "dtype");
  if (!check_args(B, A, s->name, 3) || B->err) return NULL;
  if (!dv || dv->kind == V_NONE) return fail(B, loc, "%s needs dim (PyTorch's implicit dim is deprecated)", s->name);
  if (dv->kind != V_INT) return fail(B, dl, "%s: dim must be an int", s->name);
  uint32_t mask;
  if (!get_dims(B, dv, dl, x, false, &mask)) return NULL;
  GNode *in = x;
  if (!strcmp(s->name, "softmin")) {
    if (!dtype_is_float(x->dtype) && !(dtv && dtv->kind != V_NONE)) return fail(B, loc, "softmin of a %s tensor is not supported", dtype_name(x->dtype));
    in = tneg(B, x, loc);
  }
  GNode *r = softmax(B, in, mask, dtv, arg_loc(A, 2, "dtype"), !strcmp(s->name, "log_softmax"), loc);
  return r ? mktensor(B, r) : NULL;
}

/* F.glu(input, dim=-1): a * sigmoid(b), a and b the halves along dim. */
static Val *b_glu(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  int64_t d = -1;
  Val *dv = arg(A, 0, "dim");
  if ((dv && !get_int(B, dv, arg_loc(A, 0, "dim"), "dim", &d)) || !check_args(B, A, s->name, 1)) return NULL;
  if (x0->ndim == 0) return fail(B, loc, "glu does not support 0-dimensional tensors");
  int dim = norm_dim(B, d, x0->ndim, arg_loc(A, 0, "dim"));
  if (dim < 0) return NULL;
  if (x0->shape[dim] % 2) return fail(B, loc, "glu: halving dimension must be even, but dimension %d is size %lld", dim, (long long)x0->shape[dim]);
  GNode *x = act_in(B, s, x0, loc);
  if (!x) return NULL;
  int64_t st[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  shape[dim] /= 2;
  GNode *a = slice(B, x, st, shape, loc);
  st[dim] = shape[dim];
  GNode *b = slice(B, x, st, shape, loc);
  return act_done(B, tt(B, OP_MUL, a, float_unary(B, OP_SIGMOID, b, loc), loc), x0, loc);
}

/* ------------------------------------------------------------ norms, losses */

/* The dims a normalized_shape covers: the last len(shape) dims of x,
 * whose sizes it must give. */
static bool norm_dims(Builder *B, Val *ns, SrcLoc loc, GNode *x, uint32_t *mask) {
  int64_t shape[COIL_MAX_DIMS];
  int n = 0;
  if (ns && ns->kind == V_TUPLE) {
    if (ns->n > COIL_MAX_DIMS) return fail(B, loc, "normalized_shape has too many dims"), false;
    for (int i = 0; i < ns->n; i++)
      if (!get_int(B, ns->items[i], loc, "normalized_shape", &shape[n++])) return false;
  } else if (ns && (ns->kind == V_INT)) {
    shape[n++] = ns->i;
  } else {
    return fail(B, loc, "normalized_shape must be an int or a tuple of ints, got %s", ns ? kind_name(ns) : "nothing"), false;
  }
  if (n > x->ndim) return fail(B, loc, "normalized_shape has %d dims, the input %d", n, x->ndim), false;
  *mask = 0;
  for (int i = 0; i < n; i++) {
    int d = x->ndim - n + i;
    if (x->shape[d] != shape[i])
      return fail(B, loc, "normalized_shape %s does not match the input's last dims %s", shape_fmt(B->a, n, shape),
                  shape_fmt(B->a, n, x->shape + x->ndim - n)), false;
    *mask |= 1u << d;
  }
  return true;
}

/* An optional affine parameter (weight, bias), broadcast over x and in
 * x's compute dtype. */
static bool affine_arg(Builder *B, Val *v, SrcLoc loc, const char *what, GNode *xf, GNode **out) {
  *out = NULL;
  if (!v || v->kind == V_NONE) return true;
  if (v->kind != V_TENSOR) return fail(B, loc, "%s must be a tensor or None, got %s", what, kind_name(v)), false;
  if (!dtype_is_float(v->t->dtype)) return fail(B, loc, "%s must be a floating-point tensor", what), false;
  GNode *e = expand(B, v->t, xf->ndim, xf->shape, loc);
  if (!e) return false;
  *out = cast(B, e, xf->dtype, loc);
  return true;
}

static int64_t mask_count(const GNode *x, uint32_t mask) {
  int64_t n = 1;
  for (int d = 0; d < x->ndim; d++)
    if (mask >> d & 1) n *= x->shape[d];
  return n;
}

/* F.layer_norm(input, normalized_shape, weight, bias, eps=1e-5) and
 * F.rms_norm(input, normalized_shape, weight, eps=None), as PyTorch's CPU
 * kernels compute them: bf16 and f16 in f32 (weight and bias too), the
 * result rounded once; rms_norm's default eps is float32's epsilon. */
static Val *b_norm_layer(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  bool rms = !strcmp(s->name, "rms_norm");
  Val *ns = arg(A, 0, "normalized_shape"), *wv = arg(A, 1, "weight"), *bv = rms ? NULL : arg(A, 2, "bias");
  Val *ev = arg(A, rms ? 2 : 3, "eps");
  if (!check_args(B, A, s->name, rms ? 3 : 4)) return NULL;
  GNode *x = act_in(B, s, x0, loc);
  if (!x) return NULL;
  uint32_t mask;
  if (!norm_dims(B, ns, arg_loc(A, 0, "normalized_shape"), x, &mask)) return NULL;
  double eps = rms ? (x->dtype == DT_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07) : 1e-5;
  if (ev && ev->kind != V_NONE && !num_value(B, ev, arg_loc(A, rms ? 2 : 3, "eps"), "eps", &eps)) return NULL;
  GNode *w, *b;
  if (!affine_arg(B, wv, arg_loc(A, 1, "weight"), "weight", x, &w) || !affine_arg(B, bv, arg_loc(A, 2, "bias"), "bias", x, &b))
    return NULL;
  double n = (double)mask_count(x, mask);
  GNode *r;
  if (rms) {
    GNode *ms = tc(B, OP_DIV, reduce(B, OP_SUM, tt(B, OP_MUL, x, x, loc), mask, true, loc), n, loc);
    r = tt(B, OP_MUL, x, float_unary(B, OP_RSQRT, tc(B, OP_ADD, ms, eps, loc), loc), loc);
  } else {
    GNode *mean = tc(B, OP_DIV, reduce(B, OP_SUM, x, mask, true, loc), n, loc);
    GNode *var = variance(B, x, mask, 0, true, false, loc);
    if (!var) return NULL;
    r = tt(B, OP_MUL, tt(B, OP_SUB, x, mean, loc), float_unary(B, OP_RSQRT, tc(B, OP_ADD, var, eps, loc), loc), loc);
  }
  if (w) r = tt(B, OP_MUL, r, w, loc);
  if (b) r = tt(B, OP_ADD, r, b, loc);
  return act_done(B, r, x0, loc);
}

/* ||x||_p over dims, accumulated in the compute dtype (f32 for bf16 and
 * f16) and rounded once, as PyTorch's norm kernels do.  p: 2, 1, inf,
 * -inf, 0 (the count of nonzeros) or any other number. */
static GNode *vector_norm(Builder *B, GNode *x0, double p, uint32_t mask, bool keep, SrcLoc loc) {
  if (!dtype_is_float(x0->dtype)) return fail(B, loc, "norm needs a floating-point tensor, got %s", dtype_name(x0->dtype));
  GNode *x = cast(B, x0, opmath(x0->dtype), loc), *a = tabs(B, x, loc), *r;
  if (isinf(p)) r = reduce(B, p > 0 ? OP_AMAX : OP_AMIN, a, mask, keep, loc);
  else if (p == 0) r = reduce(B, OP_SUM, cast(B, tc(B, OP_NE, x, 0, loc), x->dtype, loc), mask, keep, loc);
  else if (p == 1) r = reduce(B, OP_SUM, a, mask, keep, loc);
  else if (p == 2) r = float_unary(B, OP_SQRT, reduce(B, OP_SUM, tt(B, OP_MUL, x, x, loc), mask, keep, loc), loc);
  else r = tc(B, OP_POW, reduce(B, OP_SUM, tc(B, OP_POW, a, p, loc), mask, keep, loc), 1 / p, loc);
  return r ? cast(B, r, x0->dtype, loc) : NULL;
}

static bool ord_value(Builder *B, Val *v, SrcLoc loc, double dflt, double *p) {
  if (!v || v->kind == V_NONE) { *p = dflt; return true; }
  if (v->kind == V_STR) {
    if (!strcmp(v->name, "fro")) { *p = 2; return true; }
    return fail(B, loc, "norm: p='%s' is not supported (a vector norm takes a number or 'fro')", v->name), false;
  }
  return num_value(B, v, loc, "ord", p);
}

/* torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None)
 * and x.norm(p='fro', dim=None, keepdim=False, dtype=None). */
static Val *b_vector_norm(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool linalg = !strcmp(s->name, "vector_norm");
  Val *pv = arg(A, 0, linalg ? "ord" : "p"), *dv = arg(A, 1, "dim"), *kv = arg(A, 2, "keepdim"), *tv = arg(A, -1, "dtype");
  if (!check_args(B, A, s->name, 3)) return NULL;
  double p;
  if (!ord_value(B, pv, arg_loc(A, 0, linalg ? "ord" : "p"), 2, &p)) return NULL;
  bool keep = get_bool(B, kv, arg_loc(A, 2, "keepdim"), "keepdim", false);
  if (tv && tv->kind != V_NONE) {
    DType dt;
    if (!get_dtype(B, tv, arg_loc(A, -1, "dtype"), &dt)) return NULL;
    x = cast(B, x, dt, loc);
  }
  uint32_t mask;
  if (B->err || !get_dims(B, dv, arg_loc(A, 1, "dim"), x, true, &mask)) return NULL;
  GNode *r = vector_norm(B, x, p, mask, keep, loc);
  return r ? mktensor(B, r) : NULL;
}

/* F.normalize(input, p=2.0, dim=1, eps=1e-12): input / max(||input||_p, eps). */
static Val *b_normalize(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  double p = 2, eps = 1e-12;
  int64_t d = 1;
  Val *dv = arg(A, 1, "dim");
  if (!num_arg(B, A, 0, "p", 2, &p) || (dv && !get_int(B, dv, arg_loc(A, 1, "dim"), "dim", &d)) || !num_arg(B, A, 2, "eps", 1e-12, &eps) ||
      !check_args(B, A, s->name, 3))
    return NULL;
  int dim = norm_dim(B, d, x->ndim, arg_loc(A, 1, "dim"));
  if (dim < 0) return NULL;
  GNode *nrm = vector_norm(B, x, p, x->ndim ? 1u << dim : 0, true, loc);
  if (!nrm) return NULL;
  return mktensor(B, tt(B, OP_DIV, x, tc(B, OP_MAXIMUM, nrm, eps, loc), loc));
}

/* The losses' reduction: 'mean' (the default), 'sum' or 'none'. */
static Val *loss_reduce(Builder *B, Val *rv, SrcLoc rloc, GNode *l, SrcLoc loc) {
  const char *r = rv && rv->kind != V_NONE ? (rv->kind == V_STR ? rv->name : "") : "mean";
  uint32_t all = l->ndim ? (uint32_t)((1u << l->ndim) - 1) : 0;
  if (!strcmp(r, "none")) return mktensor(B, l);
  if (!strcmp(r, "sum")) return mktensor(B, cast(B, reduce(B, OP_SUM, l, all, false, loc), l->dtype, loc));
  if (!strcmp(r, "mean")) {
    GNode *sum = reduce(B, OP_SUM, l, all, false, loc);
    return mktensor(B, cast(B, tc(B, OP_DIV, sum, (double)shape_numel(l->ndim, l->shape), loc), l->dtype, loc));
  }
  return fail(B, rloc, "reduction must be 'mean', 'sum' or 'none'");
}

/* mse_loss, l1_loss, smooth_l1_loss(beta), huber_loss(delta), op by op in
 * the inputs' promoted dtype, as PyTorch's kernels. */
static Val *b_loss(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *n = s->name;
  Val *tv = arg(A, 0, "target");
  if (!tv || tv->kind != V_TENSOR) return fail(B, loc, "%s needs a target tensor", n);
  bool smooth = !strcmp(n, "smooth_l1_loss"), huber = !strcmp(n, "huber_loss");
  /* (input, target, size_average, reduce, reduction[, beta]); huber_loss:
   * (input, target, reduction, delta).  size_average and reduce are
   * deprecated: reduction is what they became. */
  int rpos = huber ? 1 : 3;
  if (!huber)
    for (int i = 1; i <= 2; i++) {
      Val *old = arg(A, i, i == 1 ? "size_average" : "reduce");
      if (old && old->kind != V_NONE) return fail(B, arg_loc(A, i, i == 1 ? "size_average" : "reduce"), "%s: size_average and reduce are deprecated; give reduction='mean', 'sum' or 'none'", n);
    }
  Val *rv = arg(A, rpos, "reduction");
  double k = 1;
  if ((smooth || huber) && !num_arg(B, A, rpos + 1, smooth ? "beta" : "delta", 1.0, &k)) return NULL;
  if (!check_args(B, A, n, rpos + 1 + (smooth || huber))) return NULL;
  if (!dtype_is_float(x->dtype)) return fail(B, loc, "%s needs floating-point tensors, got %s", n, dtype_name(x->dtype));
  Val vx = {.kind = V_TENSOR, .t = x};
  GNode *d = arith(B, OP_SUB, &vx, tv, loc);
  if (!d) return NULL;
  GNode *l;
  if (!strcmp(n, "mse_loss")) l = tt(B, OP_MUL, d, d, loc);
  else {
    GNode *z = tabs(B, d, loc);
    if (!strcmp(n, "l1_loss") || (smooth && k == 0)) l = z;
    else if (smooth)
      l = twhere(B, tc(B, OP_LT, z, k, loc), tc(B, OP_DIV, tc(B, OP_MUL, tt(B, OP_MUL, z, z, loc), 0.5, loc), k, loc),
                 tc(B, OP_SUB, z, 0.5 * k, loc), loc);
    else
      l = twhere(B, tc(B, OP_LT, z, k, loc), tc(B, OP_MUL, tt(B, OP_MUL, z, z, loc), 0.5, loc),
                 tc(B, OP_MUL, tc(B, OP_SUB, z, 0.5 * k, loc), k, loc), loc);
  }
  return loss_reduce(B, rv, arg_loc(A, rpos, "reduction"), l, loc);
}

/* ------------------------------------------------------------ channel norms, more losses */

/* Optional arguments by name, after x: v[i] is positional i or the keyword
 * names[i] (NULL when absent or None); refuses any other argument. */
static bool take_args(Builder *B, Args *A, const char *fname, const char *const *names, Val **v, SrcLoc *locs) {
  int n = 0;
  for (; names[n]; n++) {
    v[n] = arg(A, n, names[n]);
    locs[n] = arg_loc(A, n, names[n]);
    if (v[n] && v[n]->kind == V_NONE) v[n] = NULL;
  }
  return check_args(B, A, fname, n);
}

/* The deprecated size_average and reduce of the losses: reduction is what
 * they became. */
static bool no_legacy(Builder *B, const char *fname, Val *size_average, Val *reduce_, SrcLoc at) {
  if (size_average || reduce_)
    return fail(B, at, "%s: size_average and reduce are deprecated; give reduction='mean', 'sum' or 'none'", fname), false;
  return true;
}

/* A per-channel statistic or parameter s of shape [C] (or [N, C] for
 * per-sample ones), as a tensor broadcasting against x of shape
 * [N, C, *]: [C, 1, ...] ([N, C, 1, ...]). */
static GNode *per_channel(Builder *B, GNode *s, int ndim, SrcLoc loc) {
  int64_t shape[COIL_MAX_DIMS];
  int k = s->ndim, out = ndim - 1 + (k == 2);
  for (int d = 0; d < out; d++) shape[d] = d < k ? s->shape[d] : 1;
  return reshape(B, s, out, shape, loc);
}

/* A [C] parameter of a channel norm (weight, bias, running stats) of an
 * input of dtype xdt: C elements, in the compute dtype. */
static bool channel_arg(Builder *B, Val *v, SrcLoc loc, const char *fname, const char *what, int64_t c, DType xdt, GNode **out) {
  *out = NULL;
  if (!v) return true;
  if (v->kind != V_TENSOR) return fail(B, loc, "%s: %s must be a tensor or None, got %s", fname, what, kind_name(v)), false;
  DType pd = v->t->dtype;
  /* PyTorch's CPU kernels take parameters of the input's dtype, or f32
   * ones for a bf16 or f16 input (mixed dtype) */
  if (pd != xdt && !(pd == DT_F32 && (xdt == DT_BF16 || xdt == DT_F16)))
    return fail(B, loc, "%s: %s is %s for a %s input; a parameter has the input's dtype, or float32 for a bfloat16 or float16 input "
                "(as PyTorch's CPU kernels)", fname, what, dtype_name(pd), dtype_name(xdt)), false;
  if (v->t->ndim != 1 || v->t->shape[0] != c)
    return fail(B, loc, "%s: %s should contain %lld elements not %lld", fname, what, (long long)c,
                (long long)shape_numel(v->t->ndim, v->t->shape)), false;
  *out = cast(B, v->t, opmath(xdt), loc);
  return true;
}

/* x * alpha + beta with alpha = rstd * w and beta = b - mean * alpha
 * (rstd, mean: per channel or per sample and channel; w, b: [C] or NULL),
 * as PyTorch's CPU batch, group and instance norm kernels compute their
 * output, in the compute dtype, rounded once to x0's dtype. */
static Val *channel_affine(Builder *B, GNode *x0, GNode *x, GNode *mean, GNode *rstd, GNode *w, GNode *b, SrcLoc loc) {
  int nd = x->ndim;
  GNode *alpha = rstd, *beta; /* [C] or [N, C]: a [C] weight broadcasts over either */
  if (w) alpha = tt(B, OP_MUL, alpha, w, loc);
  beta = tneg(B, tt(B, OP_MUL, mean, alpha, loc), loc);
  if (b) beta = tt(B, OP_ADD, beta, b, loc);
  GNode *r = tt(B, OP_ADD, tt(B, OP_MUL, x, per_channel(B, alpha, nd, loc), loc), per_channel(B, beta, nd, loc), loc);
  return act_done(B, r, x0, loc);
}

/* The mean and 1 / sqrt(var + eps) of x over the dims in mask (biased
 * var), with the reduced dims dropped. */
static bool batch_stats(Builder *B, GNode *x, uint32_t mask, double eps, GNode **mean, GNode **rstd, SrcLoc loc) {
  *mean = tc(B, OP_DIV, reduce(B, OP_SUM, x, mask, false, loc), (double)mask_count(x, mask), loc);
  GNode *var = variance(B, x, mask, 0, false, false, loc);
  *rstd = float_unary(B, OP_RSQRT, tc(B, OP_ADD, var, eps, loc), loc);
  return *mean && *rstd;
}

/* Normalisation's input: a float tensor of at least 2 dims (N, C, *). */
static GNode *norm_input(Builder *B, const Spelling *s, GNode *x0, SrcLoc loc) {
  if (x0->ndim < 2) return fail(B, loc, "%s expects an input of at least 2 dimensions (N, C, *), got %d", s->name, x0->ndim);
  return act_in(B, s, x0, loc);
}

/* F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
 * training=False, momentum=0.1, eps=1e-5) and F.instance_norm(input,
 * running_mean=None, running_var=None, weight=None, bias=None,
 * use_input_stats=True, momentum=0.1, eps=1e-5).  With batch statistics
 * (training, use_input_stats) the mean and biased variance are over every
 * dim but C (instance_norm: but N and C); otherwise the running stats are
 * used.  PyTorch updates running stats in place when it computes batch
 * statistics; coil's functions are pure and return what they compute, so
 * running stats given together with batch statistics are an error rather
 * than an update silently skipped (pass None for both, or compute the
 * update, (1 - momentum) * running + momentum * batch stat, and return
 * it). */
static Val *b_batch_norm(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  bool inst = !strcmp(s->name, "instance_norm");
  static const char *const names[] = {"running_mean", "running_var", "weight", "bias", "training", "momentum", "eps", NULL};
  static const char *const inames[] = {"running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps", NULL};
  Val *v[8];
  SrcLoc l[8];
  if (!take_args(B, A, s->name, inst ? inames : names, v, l)) return NULL;
  bool batch = get_bool(B, v[4], l[4], inst ? "use_input_stats" : "training", inst);
  double eps = 1e-5, momentum;
  if ((v[6] && !num_value(B, v[6], l[6], "eps", &eps)) || (v[5] && !num_value(B, v[5], l[5], "momentum", &momentum))) return NULL;
  GNode *x = norm_input(B, s, x0, loc);
  if (!x || B->err) return NULL;
  int64_t c = x->shape[1];
  DType xd = x0->dtype;
  GNode *rm, *rv, *w, *b;
  if (!channel_arg(B, v[0], l[0], s->name, "running_mean", c, xd, &rm) || !channel_arg(B, v[1], l[1], s->name, "running_var", c, xd, &rv) ||
      !channel_arg(B, v[2], l[2], s->name, "weight", c, xd, &w) || !channel_arg(B, v[3], l[3], s->name, "bias", c, xd, &b))
    return NULL;
  if (batch && (rm || rv))
    return fail(B, l[rm ? 0 : 1], "%s: running stats are updated in place when %s, which coil's pure functions do not do; pass "
                "running_mean=None and running_var=None (batch statistics only), or compute the update and return it",
                s->name, inst ? "use_input_stats=True" : "training=True");
  if (!batch && (!rm || !rv))
    return fail(B, loc, "%s: running_mean and running_var must be given when %s", s->name, inst ? "use_input_stats=False" : "training=False");
  GNode *mean, *rstd;
  if (batch) {
    uint32_t mask = 0;
    for (int d = inst ? 2 : 0; d < x->ndim; d++)
      if (d != 1) mask |= 1u << d;
    int64_t count = mask_count(x, mask);
    if (count <= 1)
      return fail(B, loc, "Expected more than 1 %s when training, got input size %s", inst ? "spatial element" : "value per channel",
                  shape_fmt(B->a, x->ndim, x->shape));
    if (!batch_stats(B, x, mask, eps, &mean, &rstd, loc)) return NULL;
  } else {
    mean = rm;
    rstd = float_unary(B, OP_RSQRT, tc(B, OP_ADD, rv, eps, loc), loc);
  }
  return channel_affine(B, x0, x, mean, rstd, w, b, loc);
}

/* F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5): the
 * mean and biased variance of each (sample, group of C / G channels),
 * then x * alpha + beta per (sample, channel), as PyTorch's CPU kernel. */
static Val *b_group_norm(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  static const char *const names[] = {"num_groups", "weight", "bias", "eps", NULL};
  Val *v[4];
  SrcLoc l[4];
  if (!take_args(B, A, s->name, names, v, l)) return NULL;
  int64_t g;
  double eps = 1e-5;
  if (!get_int(B, v[0], v[0] ? l[0] : loc, "num_groups", &g) || (v[3] && !num_value(B, v[3], l[3], "eps", &eps))) return NULL;
  GNode *x = norm_input(B, s, x0, loc);
  if (!x) return NULL;
  int64_t n = x->shape[0], c = x->shape[1];
  if (g <= 0 || c % g)
    return fail(B, l[0], "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%lld",
                shape_fmt(B->a, x->ndim, x->shape), (long long)g);
  GNode *w, *b;
  if (!channel_arg(B, v[1], l[1], s->name, "weight", c, x0->dtype, &w) || !channel_arg(B, v[2], l[2], s->name, "bias", c, x0->dtype, &b)) return NULL;
  int64_t shape[3] = {n, g, shape_numel(x->ndim, x->shape) / (n ? n : 1) / g};
  GNode *xg = reshape(B, x, 3, shape, loc), *mean, *rstd;
  if (shape[2] == 0) return act_done(B, x, x0, loc);
  if (!batch_stats(B, xg, 4, eps, &mean, &rstd, loc)) return NULL;
  /* [N, G] -> [N, G, C / G] -> [N, C] */
  int64_t one[3] = {n, g, 1}, wide[3] = {n, g, c / g}, nc[2] = {n, c};
  mean = reshape(B, expand(B, reshape(B, mean, 3, one, loc), 3, wide, loc), 2, nc, loc);
  rstd = reshape(B, expand(B, reshape(B, rstd, 3, one, loc), 3, wide, loc), 2, nc, loc);
  return channel_affine(B, x0, x, mean, rstd, w, b, loc);
}

/* The float operands of a loss: x and the target (and a third), promoted
 * as result_type, in the compute dtype (bf16 and f16 in f32, as PyTorch's
 * decompositions compute them); *dt the promoted dtype.  same: the target
 * must have x's shape (binary_cross_entropy*). */
static bool loss_operands(Builder *B, const char *fname, GNode *x, Val *tv, SrcLoc tl, bool same, GNode **xf, GNode **tf, DType *dt) {
  if (!tv || tv->kind != V_TENSOR) return fail(B, tl, "%s needs a target tensor, got %s", fname, tv ? kind_name(tv) : "nothing"), false;
  GNode *t = tv->t;
  if (same && (t->ndim != x->ndim || memcmp(t->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim)))
    return fail(B, tl, "%s: target size %s must be the same as input size %s", fname, shape_fmt(B->a, t->ndim, t->shape),
                shape_fmt(B->a, x->ndim, x->shape)), false;
  Val vx = {.kind = V_TENSOR, .t = x};
  Val *vs[2] = {&vx, tv};
  *dt = result_type(vs, 2);
  if (!dtype_is_float(*dt)) return fail(B, tl, "%s needs floating-point tensors, got %s", fname, dtype_name(*dt)), false;
  *xf = cast(B, x, opmath(*dt), tl);
  *tf = cast(B, t, opmath(*dt), tl);
  return true;
}

/* An optional weight tensor of a loss, in the compute dtype cd. */
static bool loss_weight(Builder *B, Val *v, SrcLoc loc, const char *fname, const char *what, DType cd, GNode **out) {
  *out = NULL;
  if (!v) return true;
  if (v->kind != V_TENSOR) return fail(B, loc, "%s: %s must be a tensor or None, got %s", fname, what, kind_name(v)), false;
  *out = cast(B, v->t, cd, loc);
  return true;
}

/* log(sigmoid(x)) as PyTorch's decomposition: min(x, 0) - log1p(exp(-|x|)). */
static GNode *log_sigmoid(Builder *B, GNode *x, SrcLoc loc) {
  GNode *e = float_unary(B, OP_EXP, tneg(B, tabs(B, x, loc), loc), loc);
  return tt(B, OP_SUB, tc(B, OP_MINIMUM, x, 0, loc), float_unary(B, OP_LOG1P, e, loc), loc);
}

/* The losses of torch.nn.functional beyond the regression ones, each as
 * PyTorch's decomposition (torch._decomp) writes it, in the compute dtype,
 * the loss rounded to the promoted dtype before it is reduced:
 *   binary_cross_entropy(input, target, weight, ..., reduction):
 *     (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100), times weight;
 *   binary_cross_entropy_with_logits(input, target, weight, ..., reduction, pos_weight):
 *     (1 - t) * x - lw * logsigmoid(x), lw = (pos_weight - 1) * t + 1;
 *   kl_div(input, target, ..., reduction, log_target): t * log(t) - t * x
 *     (0 where t is 0: xlogy), or exp(t) * (t - x); 'batchmean' divides
 *     the sum by the batch size;
 *   poisson_nll_loss(input, target, log_input, full, ..., eps, ..., reduction):
 *     exp(x) - t * x, or x - t * log(x + eps); full adds Stirling's
 *     t log t - t + log(2 pi t) / 2 where t > 1;
 *   soft_margin_loss(input, target, ..., reduction): log1p(exp(-x * t));
 *   hinge_embedding_loss(input, target, margin, ..., reduction):
 *     where(t != 1, max(margin - x, 0), 0) + where(t != -1, x, 0);
 *   margin_ranking_loss(input1, input2, target, margin, ..., reduction):
 *     max(-t * (x1 - x2) + margin, 0). */
static Val *b_loss2(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *n = s->name;
  Val *v[8] = {0};
  SrcLoc l[8];
  GNode *xf, *tf, *lo = NULL;
  DType dt;
  int red; /* the index of reduction in v */
  if (!strcmp(n, "binary_cross_entropy") || !strcmp(n, "binary_cross_entropy_with_logits")) {
    bool logits = n[20] == '_';
    static const char *const names[] = {"target", "weight", "size_average", "reduce", "reduction", "pos_weight", NULL};
    static const char *const bnames[] = {"target", "weight", "size_average", "reduce", "reduction", NULL};
    if (!take_args(B, A, n, logits ? names : bnames, v, l) || !no_legacy(B, n, v[2], v[3], l[2])) return NULL;
    red = 4;
    if (!loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, true, &xf, &tf, &dt)) return NULL;
    GNode *w, *pw;
    if (!loss_weight(B, v[1], l[1], n, "weight", xf->dtype, &w) || !loss_weight(B, v[5], l[5], n, "pos_weight", xf->dtype, &pw)) return NULL;
    if (logits) {
      GNode *ls = log_sigmoid(B, xf, loc);
      if (pw) ls = tt(B, OP_MUL, tc(B, OP_ADD, tt(B, OP_MUL, tc(B, OP_SUB, pw, 1, loc), tf, loc), 1, loc), ls, loc);
      lo = tt(B, OP_SUB, tt(B, OP_MUL, ct(B, OP_SUB, 1, tf, loc), xf, loc), ls, loc);
    } else {
      GNode *l1 = tc(B, OP_MAXIMUM, float_unary(B, OP_LOG1P, tneg(B, xf, loc), loc), -100, loc);
      GNode *l0 = tc(B, OP_MAXIMUM, float_unary(B, OP_LOG, xf, loc), -100, loc);
      lo = tt(B, OP_SUB, tt(B, OP_MUL, tc(B, OP_SUB, tf, 1, loc), l1, loc), tt(B, OP_MUL, tf, l0, loc), loc);
    }
    if (w) lo = tt(B, OP_MUL, lo, w, loc);
  } else if (!strcmp(n, "kl_div")) {
    static const char *const names[] = {"target", "size_average", "reduce", "reduction", "log_target", NULL};
    if (!take_args(B, A, n, names, v, l) || !no_legacy(B, n, v[1], v[2], l[1])) return NULL;
    red = 3;
    bool log_target = get_bool(B, v[4], l[4], "log_target", false);
    if (B->err || !loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, false, &xf, &tf, &dt)) return NULL;
    if (log_target) {
      lo = tt(B, OP_MUL, float_unary(B, OP_EXP, tf, loc), tt(B, OP_SUB, tf, xf, loc), loc);
    } else { /* xlogy(t, t): NaN where t is, 0 where t is 0 */
      GNode *xlogy = twhere(B, tc(B, OP_EQ, tf, 0, loc), mkconst(B, tf->dtype, 0, 0, loc), tt(B, OP_MUL, tf, float_unary(B, OP_LOG, tf, loc), loc), loc);
      lo = tt(B, OP_SUB, xlogy, tt(B, OP_MUL, tf, xf, loc), loc);
    }
  } else if (!strcmp(n, "poisson_nll_loss")) {
    static const char *const names[] = {"target", "log_input", "full", "size_average", "eps", "reduce", "reduction", NULL};
    if (!take_args(B, A, n, names, v, l) || !no_legacy(B, n, v[3], v[5], l[3])) return NULL;
    red = 6;
    bool log_input = get_bool(B, v[1], l[1], "log_input", true), full = get_bool(B, v[2], l[2], "full", false);
    double eps = 1e-8;
    if (B->err || (v[4] && !num_value(B, v[4], l[4], "eps", &eps))) return NULL;
    if (!loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, false, &xf, &tf, &dt)) return NULL;
    if (log_input) lo = tt(B, OP_SUB, float_unary(B, OP_EXP, xf, loc), tt(B, OP_MUL, tf, xf, loc), loc);
    else lo = tt(B, OP_SUB, xf, tt(B, OP_MUL, tf, float_unary(B, OP_LOG, tc(B, OP_ADD, xf, eps, loc), loc), loc), loc);
    if (full) {
      GNode *st = tt(B, OP_SUB, tt(B, OP_MUL, tf, float_unary(B, OP_LOG, tf, loc), loc), tf, loc);
      st = tt(B, OP_ADD, st, tc(B, OP_MUL, float_unary(B, OP_LOG, ct(B, OP_MUL, 6.283185307179586, tf, loc), loc), 0.5, loc), loc);
      lo = tt(B, OP_ADD, lo, twhere(B, tc(B, OP_LE, tf, 1, loc), mkconst(B, tf->dtype, 0, 0, loc), st, loc), loc);
    }
  } else if (!strcmp(n, "soft_margin_loss")) {
    static const char *const names[] = {"target", "size_average", "reduce", "reduction", NULL};
    if (!take_args(B, A, n, names, v, l) || !no_legacy(B, n, v[1], v[2], l[1])) return NULL;
    red = 3;
    if (!loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, false, &xf, &tf, &dt)) return NULL;
    lo = float_unary(B, OP_LOG1P, float_unary(B, OP_EXP, tt(B, OP_MUL, tneg(B, xf, loc), tf, loc), loc), loc);
  } else if (!strcmp(n, "hinge_embedding_loss")) {
    static const char *const names[] = {"target", "margin", "size_average", "reduce", "reduction", NULL};
    if (!take_args(B, A, n, names, v, l) || !no_legacy(B, n, v[2], v[3], l[2])) return NULL;
    red = 4;
    double margin = 1.0;
    if ((v[1] && !num_value(B, v[1], l[1], "margin", &margin)) || !loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, false, &xf, &tf, &dt)) return NULL;
    GNode *zero = mkconst(B, xf->dtype, 0, 0, loc);
    GNode *mc = tc(B, OP_MAXIMUM, ct(B, OP_SUB, margin, xf, loc), 0, loc);
    lo = tt(B, OP_ADD, twhere(B, tc(B, OP_NE, tf, 1, loc), mc, zero, loc), twhere(B, tc(B, OP_NE, tf, -1, loc), xf, zero, loc), loc);
  } else if (!strcmp(n, "margin_ranking_loss")) {
    static const char *const names[] = {"input2", "target", "margin", "size_average", "reduce", "reduction", NULL};
    if (!take_args(B, A, n, names, v, l) || !no_legacy(B, n, v[3], v[4], l[3])) return NULL;
    red = 5;
    double margin = 0;
    if (v[2] && !num_value(B, v[2], l[2], "margin", &margin)) return NULL;
    GNode *x2f;
    if (!loss_operands(B, n, x, v[0], v[0] ? l[0] : loc, false, &xf, &x2f, &dt)) return NULL;
    if (!v[1] || v[1]->kind != V_TENSOR) return fail(B, v[1] ? l[1] : loc, "%s needs a target tensor", n);
    Val vx = {.kind = V_TENSOR, .t = x}, vx2 = {.kind = V_TENSOR, .t = v[0]->t};
    Val *vs[3] = {&vx, &vx2, v[1]};
    dt = result_type(vs, 3);
    if (!dtype_is_float(dt)) return fail(B, l[1], "%s needs floating-point tensors, got %s", n, dtype_name(dt));
    xf = cast(B, x, opmath(dt), loc), x2f = cast(B, v[0]->t, opmath(dt), loc), tf = cast(B, v[1]->t, opmath(dt), loc);
    lo = tc(B, OP_MAXIMUM, tc(B, OP_ADD, tt(B, OP_MUL, tneg(B, tf, loc), tt(B, OP_SUB, xf, x2f, loc), loc), margin, loc), 0, loc);
  } else {
    coil_unreachable("b_loss2: a row without a formula");
  }
  if (!lo) return NULL;
  lo = cast(B, lo, dt, loc);
  const char *r = v[red] ? (v[red]->kind == V_STR ? v[red]->name : "") : "mean";
  if (!strcmp(n, "kl_div") && !strcmp(r, "batchmean")) {
    Val sum = {.kind = V_STR, .name = "sum"};
    Val *sv = loss_reduce(B, &sum, l[red], lo, loc);
    if (!sv || x->ndim == 0) return sv;
    return mktensor(B, cast(B, tc(B, OP_DIV, cast(B, sv->t, opmath(dt), loc), (double)x->shape[0], loc), dt, loc));
  }
  return loss_reduce(B, v[red], l[red], lo, loc);
}

/* F.cosine_similarity(x1, x2, dim=1, eps=1e-8): sum over dim of (x1 /
 * max(||x1||, eps)) * (x2 / max(||x2||, eps)), x1 and x2 broadcast first,
 * each norm clamped on its own (PyTorch 2's formula, measured: x1 =
 * [1e-10, 0], x2 = [100, 0] give 0.01, where a clamp of the product of
 * the norms would give 1).
 * F.pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False): ||x1 - x2
 * + eps||_p over the last dim (ints as float32). */
static Val *b_similarity(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool cos = !strcmp(s->name, "cosine_similarity");
  static const char *const cnames[] = {"x2", "dim", "eps", NULL};
  static const char *const pnames[] = {"x2", "p", "eps", "keepdim", NULL};
  Val *v[4] = {0};
  SrcLoc l[4];
  if (!take_args(B, A, s->name, cos ? cnames : pnames, v, l)) return NULL;
  if (!v[0] || v[0]->kind != V_TENSOR) return fail(B, v[0] ? l[0] : loc, "%s needs a tensor x2", s->name);
  Val vx = {.kind = V_TENSOR, .t = x};
  Val *vs[2] = {&vx, v[0]};
  DType dt = result_type(vs, 2);
  if (cos && !dtype_is_float(dt))
    return fail(B, loc, "expected common dtype to be floating point, yet common dtype is %s (as in PyTorch)", dtype_name(dt));
  if (!dtype_is_float(dt)) dt = DT_F32;
  int nd;
  int64_t shape[COIL_MAX_DIMS];
  if (!broadcast(B, x->ndim, x->shape, v[0]->t->ndim, v[0]->t->shape, &nd, shape, loc)) return NULL;
  GNode *a = expand(B, cast(B, x, dt, loc), nd, shape, loc), *b = expand(B, cast(B, v[0]->t, dt, loc), nd, shape, loc);
  if (cos) {
    int64_t d = 1;
    double eps = 1e-8;
    if ((v[1] && !get_int(B, v[1], l[1], "dim", &d)) || (v[2] && !num_value(B, v[2], l[2], "eps", &eps))) return NULL;
    int dim = norm_dim(B, d, nd, v[1] ? l[1] : loc);
    if (dim < 0) return NULL;
    uint32_t mask = nd ? 1u << dim : 0;
    GNode *na = tc(B, OP_MAXIMUM, vector_norm(B, a, 2, mask, true, loc), eps, loc);
    GNode *nb = tc(B, OP_MAXIMUM, vector_norm(B, b, 2, mask, true, loc), eps, loc);
    GNode *r = reduce(B, OP_SUM, tt(B, OP_MUL, tt(B, OP_DIV, a, na, loc), tt(B, OP_DIV, b, nb, loc), loc), mask, false, loc);
    return r ? mktensor(B, cast(B, r, dt, loc)) : NULL;
  }
  double p = 2, eps = 1e-6;
  if ((v[1] && !num_value(B, v[1], l[1], "p", &p)) || (v[2] && !num_value(B, v[2], l[2], "eps", &eps))) return NULL;
  bool keep = get_bool(B, v[3], l[3], "keepdim", false);
  if (B->err) return NULL;
  GNode *diff = tc(B, OP_ADD, tt(B, OP_SUB, a, b, loc), eps, loc);
  GNode *r = vector_norm(B, diff, p, nd ? 1u << (nd - 1) : 0, keep, loc);
  return r ? mktensor(B, r) : NULL;
}

/* var_mean and std_mean: (var, mean) from one pass over x where fusion
 * lets them share it. */
static Val *b_var_mean(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Spelling vs = *s;
  vs.name = s->name[0] == 's' ? "std" : "var";
  Args A2 = *A;
  A2.kwused = ARENA_ARRAY(B->a, bool, A->nkw + 1);
  Val *v = b_var_std(B, &vs, x, A, loc);
  if (!v) return NULL;
  Val *dv = arg(&A2, 0, "dim");
  if (dv && dv->kind == V_BOOL) dv = NULL;
  bool keep = get_bool(B, arg(&A2, 1, "keepdim"), arg_loc(&A2, 1, "keepdim"), "keepdim", false);
  uint32_t mask;
  if (!get_dims(B, dv, arg_loc(&A2, 0, "dim"), x, true, &mask)) return NULL;
  GNode *sum = reduce(B, OP_SUM, cast(B, x, opmath(x->dtype), loc), mask, keep, loc);
  if (!sum) return NULL;
  GNode *mean = cast(B, tc(B, OP_DIV, sum, (double)mask_count(x, mask), loc), x->dtype, loc);
  Val *t = mkval(B, V_TUPLE);
  t->n = 2;
  t->items = ARENA_ARRAY(B->a, Val *, 2);
  t->items[0] = v;
  t->items[1] = mktensor(B, mean);
  return t;
}

/* ------------------------------------------------------------ arg-reductions */

/* An arg-reduction (OP_ARGMAX or OP_ARGMIN) of x over the dims in mask,
 * flattened in row-major order: the index of the winning element (int64),
 * or with argval its value.  PyTorch's rules (the first index on ties, a
 * NaN wins and the first NaN's index) are the op's (ops.h); an empty
 * reduction has no element to point at and is refused here. */
static GNode *argreduce(Builder *B, Op op, GNode *x, uint32_t mask, bool keepdim, bool argval, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  int ndim = 0;
  int64_t shape[COIL_MAX_DIMS], kshape[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    kshape[d] = mask >> d & 1 ? 1 : x->shape[d];
    if (!(mask >> d & 1)) shape[ndim++] = x->shape[d];
  }
  GNode *r = new_node(B, op, argval ? x->dtype : DT_I64, ndim, shape, loc);
  r->cdtype = x->dtype;
  r->in[0] = x;
  r->nin = 1;
  r->rmask = mask;
  r->argval = argval;
  if (keepdim) r = reshape(B, r, x->ndim, kshape, loc);
  return r;
}

/* The reduced dims of an arg-reduction named `name`: one dim (dv an int),
 * or every dim (dv absent or None, when all is allowed); none of them
 * empty. */
static bool argred_dims(Builder *B, const char *name, Val *dv, SrcLoc dl, GNode *x, bool all, uint32_t *mask, SrcLoc loc) {
  *mask = 0;
  if (!dv || dv->kind == V_NONE) {
    if (!all) return fail(B, loc, "%s needs dim", name), false;
    if (shape_numel(x->ndim, x->shape) == 0)
      return fail(B, loc, "%s of an empty tensor needs a dim: there is no element to point at (PyTorch raises here too)", name), false;
    *mask = x->ndim ? (uint32_t)((1u << x->ndim) - 1) : 0;
    return true;
  }
  int64_t d;
  if (dv->kind == V_TUPLE) return fail(B, dl, "%s reduces one dim, as in PyTorch: dim must be an int", name), false;
  if (!get_int(B, dv, dl, "dim", &d)) return false;
  int nd = norm_dim(B, d, x->ndim, dl);
  if (nd < 0) return false;
  if (x->ndim == 0) return true;
  if (x->shape[nd] == 0)
    return fail(B, dl, "%s over dim %d, which has size 0: there is no element to point at (PyTorch raises here too)", name, nd), false;
  *mask = 1u << nd;
  return true;
}

static Val *named_pair(Builder *B, GNode *a, GNode *b, const char *fa, const char *fb) {
  if (!a || !b) return NULL;
  Val *t = mkval(B, V_TUPLE);
  t->n = 2;
  t->items = ARENA_ARRAY(B->a, Val *, 2);
  t->items[0] = mktensor(B, a);
  t->items[1] = mktensor(B, b);
  const char **f = ARENA_ARRAY(B->a, const char *, 2);
  f[0] = fa, f[1] = fb;
  t->fields = f;
  return t;
}

/* argmax, argmin (op): torch.argmax(x, dim=None, keepdim=False); dim None
 * over the flattened tensor (keepdim: every dim kept as 1). */
static Val *b_argmax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->op == OP_ARGMAX ? "argmax" : "argmin";
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  bool keep = get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  if (!check_args(B, A, name, 2) || B->err) return NULL;
  if (x->dtype == DT_BOOL) return fail(B, loc, "%s(): does not support bool input (as in PyTorch); cast it first", name);
  uint32_t mask;
  if (!argred_dims(B, name, dv, dl, x, true, &mask, loc)) return NULL;
  return mktensor(B, argreduce(B, s->op, x, mask, keep, false, loc));
}

/* max and min (op OP_ARGMAX, OP_ARGMIN): x.max() the largest element (as
 * amax over every dim); x.max(dim, keepdim=False) the named tuple (values,
 * indices); torch.max(x, other) torch.maximum. */
static Val *b_max_min(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool is_max = s->op == OP_ARGMAX;
  const char *name = is_max ? "max" : "min";
  Val *dv = arg(A, 0, "dim");
  if (dv && dv->kind == V_TENSOR) { /* torch.max(x, other) */
    Spelling m = *s;
    m.name = is_max ? "maximum" : "minimum";
    m.op = is_max ? OP_MAXIMUM : OP_MINIMUM;
    return b_binary(B, &m, x, A, loc);
  }
  if (!dv) {
    if (!check_args(B, A, name, 0)) return NULL;
    GNode *r = reduce(B, is_max ? OP_AMAX : OP_AMIN, x, x->ndim ? (uint32_t)((1u << x->ndim) - 1) : 0, false, loc);
    return r ? mktensor(B, r) : NULL;
  }
  SrcLoc dl = arg_loc(A, 0, "dim");
  bool keep = get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  if (!check_args(B, A, name, 2) || B->err) return NULL;
  uint32_t mask;
  if (!argred_dims(B, name, dv, dl, x, false, &mask, loc)) return NULL;
  return named_pair(B, argreduce(B, s->op, x, mask, keep, true, loc), argreduce(B, s->op, x, mask, keep, false, loc), "values",
                    "indices");
}

/* torch.aminmax(x, *, dim=None, keepdim=False): the named tuple (min, max),
 * amin and amax (as Inductor's decomposition computes it). */
static Val *b_aminmax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *dv = arg(A, -1, "dim");
  SrcLoc dl = arg_loc(A, -1, "dim");
  bool keep = get_bool(B, arg(A, -1, "keepdim"), arg_loc(A, -1, "keepdim"), "keepdim", false);
  if (!check_args(B, A, "aminmax", 0) || B->err) return NULL;
  uint32_t mask;
  if (!argred_dims(B, "aminmax", dv, dl, x, true, &mask, loc)) return NULL;
  return named_pair(B, reduce(B, OP_AMIN, x, mask, keep, loc), reduce(B, OP_AMAX, x, mask, keep, loc), "min", "max");
}

/* all, any, count_nonzero, nansum, nanmean: reductions of a derived value. */
static Val *b_logical_reduce(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *n = s->name;
  bool count = !strcmp(n, "count_nonzero"), nan = !strncmp(n, "nan", 3);
  Val *dv = arg(A, 0, "dim");
  bool keep = !count && get_bool(B, arg(A, 1, "keepdim"), arg_loc(A, 1, "keepdim"), "keepdim", false);
  if (!check_args(B, A, n, count ? 1 : 2) || B->err) return NULL;
  /* all and any over dim=() reduce no dim (PyTorch's any.dims); the
   * others, as sum, reduce every dim. */
  bool logical = !strcmp(n, "all") || !strcmp(n, "any");
  uint32_t mask;
  if (!get_dims(B, dv, arg_loc(A, 0, "dim"), x, !logical, &mask)) return NULL;
  if (nan) {
    if (!dtype_is_float(x->dtype)) return fail(B, loc, "%s needs a floating-point tensor, got %s", n, dtype_name(x->dtype));
    GNode *isnan = tt(B, OP_NE, x, x, loc);
    Val zero = {.kind = V_INT, .i = 0};
    Val vi = {.kind = V_TENSOR, .t = isnan}, vx = {.kind = V_TENSOR, .t = x};
    Val *ws[3] = {&vi, &zero, &vx};
    GNode *clean = pointwise(B, OP_WHERE, ws, 3, x->dtype, x->dtype, loc);
    GNode *sum = reduce(B, OP_SUM, clean, mask, keep, loc);
    if (!sum) return NULL;
    sum = cast(B, sum, x->dtype, loc);
    if (!strcmp(n, "nansum")) return mktensor(B, sum);
    /* nanmean is nansum / (count of non-NaN), op by op as PyTorch writes it */
    GNode *cnt = reduce(B, OP_SUM, cast(B, tt(B, OP_EQ, x, x, loc), DT_I64, loc), mask, keep, loc);
    return mktensor(B, tt(B, OP_DIV, sum, cnt, loc));
  }
  GNode *nz = x->dtype == DT_BOOL ? x : tc(B, OP_NE, x, 0, loc);
  GNode *r = reduce(B, count ? OP_SUM : !strcmp(n, "all") ? OP_AMIN : OP_AMAX, cast(B, nz, count ? DT_I64 : DT_I32, loc), mask, keep, loc);
  if (!r) return NULL;
  return mktensor(B, cast(B, r, count ? DT_I64 : DT_BOOL, loc));
}

/* ------------------------------------------------------------ more pointwise */

/* floor, ceil (ops), trunc, frac, round (half to even, decimals=), sign
 * and sgn: integer inputs come back unchanged (sign: as -1, 0, 1). */
static GNode *round_even(Builder *B, GNode *x, SrcLoc loc) {
  GNode *f = float_unary(B, OP_FLOOR, x, loc);
  GNode *d = tt(B, OP_SUB, x, f, loc); /* exact: x and floor(x) share x's grid */
  GNode *up = tc(B, OP_ADD, f, 1, loc);
  GNode *half = tc(B, OP_MUL, f, 0.5, loc);
  GNode *odd = tt(B, OP_NE, float_unary(B, OP_FLOOR, half, loc), half, loc);
  GNode *tie = twhere(B, odd, up, f, loc);
  GNode *r = twhere(B, tc(B, OP_GT, d, 0.5, loc), up, twhere(B, tc(B, OP_LT, d, 0.5, loc), f, tie, loc), loc);
  /* a result of 0 keeps x's sign, as nearbyint does (round(-0.3) is -0.0) */
  return twhere(B, tc(B, OP_EQ, r, 0, loc), tc(B, OP_MUL, x, 0, loc), r, loc);
}

/* x rounded toward zero (a float x). */
static GNode *trunc_node(Builder *B, GNode *x, SrcLoc loc) {
  return twhere(B, tc(B, OP_LT, x, 0, loc), float_unary(B, OP_CEIL, x, loc), float_unary(B, OP_FLOOR, x, loc), loc);
}

static Val *b_rounding(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  const char *n = s->name;
  int64_t decimals = 0;
  Val *dv = !strcmp(n, "round") ? arg(A, -1, "decimals") : NULL;
  if ((dv && !get_int(B, dv, arg_loc(A, -1, "decimals"), "decimals", &decimals)) || !check_args(B, A, n, 0)) return NULL;
  if (!strcmp(n, "sign") || !strcmp(n, "sgn")) {
    if (x0->dtype == DT_BOOL) return mktensor(B, x0);
    GNode *pos = cast(B, tc(B, OP_GT, x0, 0, loc), x0->dtype, loc), *neg = cast(B, tc(B, OP_LT, x0, 0, loc), x0->dtype, loc);
    return mktensor(B, tt(B, OP_SUB, pos, neg, loc));
  }
  if (!dtype_is_float(x0->dtype)) {
    if (!strcmp(n, "frac")) return fail(B, loc, "frac of a %s tensor is not supported (as in PyTorch)", dtype_name(x0->dtype));
    return mktensor(B, x0);
  }
  GNode *x = cast(B, x0, opmath(x0->dtype), loc), *r;
  if (!strcmp(n, "floor")) r = float_unary(B, OP_FLOOR, x, loc);
  else if (!strcmp(n, "ceil")) r = float_unary(B, OP_CEIL, x, loc);
  else if (!strcmp(n, "trunc") || !strcmp(n, "fix") || !strcmp(n, "frac")) {
    GNode *t = trunc_node(B, x, loc);
    r = !strcmp(n, "frac") ? tt(B, OP_SUB, x, t, loc) : t;
  } else if (decimals > 0) {
    double p = pow(10, (double)decimals);
    r = tc(B, OP_DIV, round_even(B, tc(B, OP_MUL, x, p, loc), loc), p, loc);
  } else if (decimals < 0) {
    double p = pow(10, (double)-decimals);
    r = tc(B, OP_MUL, round_even(B, tc(B, OP_DIV, x, p, loc), loc), p, loc);
  } else {
    r = round_even(B, x, loc);
  }
  return act_done(B, r, x0, loc);
}

/* isnan, isinf, isfinite, isposinf, isneginf: bool tensors. */
static Val *b_isclass(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *n = s->name;
  if (!check_args(B, A, n, 0)) return NULL;
  if (!dtype_is_float(x->dtype)) /* integers are all finite, none NaN or inf */
    return mktensor(B, tt(B, !strcmp(n, "isfinite") ? OP_EQ : OP_NE, x, x, loc));
  GNode *r;
  if (!strcmp(n, "isnan")) r = tt(B, OP_NE, x, x, loc);
  else if (!strcmp(n, "isinf")) r = tc(B, OP_EQ, tabs(B, x, loc), INFINITY, loc);
  else if (!strcmp(n, "isposinf")) r = tc(B, OP_EQ, x, INFINITY, loc);
  else if (!strcmp(n, "isneginf")) r = tc(B, OP_EQ, x, -INFINITY, loc);
  else r = tc(B, OP_LT, tabs(B, x, loc), INFINITY, loc); /* false for NaN and +-inf */
  return mktensor(B, r);
}

static double dtype_max(DType t) {
  switch (t) {
  case DT_BF16: return 3.3895313892515355e38;
  case DT_F16: return 65504.0;
  case DT_F32: return 3.4028234663852886e38;
  default: return 1.7976931348623157e308;
  }
}

/* A number as a fill of dtype dt, as PyTorch's checked conversion makes
 * it for fill_, full, masked_fill, pad's value and index_fill: a float
 * into an integer truncates, and a value outside the dtype's range is an
 * error rather than a wrap (a float dtype takes inf and NaN; bool takes
 * anything, as "is it nonzero"). */
static bool fill_of(Builder *B, const Val *v, DType dt, SrcLoc loc, double *f, int64_t *i) {
  bool fl = v->kind == V_FLOAT;
  double x = fl ? v->f : (double)v->i;
  *f = 0, *i = 0;
  if (dt == DT_BOOL) return *i = fl ? x != 0 : v->i != 0, true;
  bool fits;
  if (dtype_is_float(dt)) fits = x != x || isinf(x) || fabs(x) <= dtype_max(dt);
  else if (fl) fits = float_fits_int(dt, x);
  else fits = dt == DT_I64 || (v->i >= INT32_MIN && v->i <= INT32_MAX);
  if (!fits) {
    if (fl) return fail(B, loc, "value %g cannot be converted to type %s without overflow", x, dtype_torch_name(dt)), false;
    return fail(B, loc, "value %lld cannot be converted to type %s without overflow", (long long)v->i, dtype_torch_name(dt)), false;
  }
  if (dtype_is_float(dt)) *f = dtype_round(dt, x);
  else *i = fl ? (int64_t)x : v->i;
  return true;
}

/* nan_to_num(nan=0.0, posinf=None, neginf=None): None is the dtype's
 * largest (smallest) finite value. */
static Val *b_nan_to_num(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  static const char *const names[3] = {"nan", "posinf", "neginf"};
  double v[3] = {0, dtype_max(x->dtype), -dtype_max(x->dtype)};
  for (int i = 0; i < 3; i++) {
    Val *a = arg(A, i, names[i]);
    if (a && a->kind != V_NONE && !num_value(B, a, arg_loc(A, i, names[i]), names[i], &v[i])) return NULL;
  }
  if (!check_args(B, A, s->name, 3)) return NULL;
  double nan = v[0], pinf = v[1], ninf = v[2];
  if (!dtype_is_float(x->dtype)) return mktensor(B, x);
  GNode *r = twhere(B, tt(B, OP_NE, x, x, loc), cast(B, mkconst(B, x->dtype, nan, 0, loc), x->dtype, loc), x, loc);
  r = twhere(B, tc(B, OP_EQ, x, INFINITY, loc), mkconst(B, x->dtype, pinf, 0, loc), r, loc);
  r = twhere(B, tc(B, OP_EQ, x, -INFINITY, loc), mkconst(B, x->dtype, ninf, 0, loc), r, loc);
  return mktensor(B, r);
}

/* masked_fill(mask, value): value where mask holds, in x's dtype. */
static Val *b_masked_fill(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *m = arg(A, 0, "mask"), *v = arg(A, 1, "value");
  if (!m || !v) return fail(B, loc, "masked_fill needs a mask and a value");
  if (!check_args(B, A, s->name, 2)) return NULL;
  if (m->kind != V_TENSOR || m->t->dtype != DT_BOOL) return fail(B, arg_loc(A, 0, "mask"), "masked_fill's mask must be a bool tensor");
  if (!is_num(v)) return fail(B, arg_loc(A, 1, "value"), "masked_fill's value must be a number or a 0-d tensor, got %s", kind_name(v));
  if (v->kind == V_TENSOR && v->t->ndim) return fail(B, arg_loc(A, 1, "value"), "masked_fill's value tensor must be 0-dimensional");
  Val vx = {.kind = V_TENSOR, .t = x}, vm = {.kind = V_TENSOR, .t = m->t};
  Val vv = *v;
  if (v->kind == V_TENSOR) vv.t = cast(B, v->t, x->dtype, loc);
  else {
    double f;
    int64_t iv;
    if (!fill_of(B, v, x->dtype, arg_loc(A, 1, "value"), &f, &iv)) return NULL;
    vv = (Val){.kind = V_TENSOR, .t = mkconst(B, x->dtype, f, iv, arg_loc(A, 1, "value"))};
  }
  Val *ws[3] = {&vm, &vv, &vx};
  GNode *r = pointwise(B, OP_WHERE, ws, 3, x->dtype, x->dtype, loc);
  if (r && (r->ndim != x->ndim || memcmp(r->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim)))
    return fail(B, arg_loc(A, 0, "mask"), "masked_fill's mask %s does not broadcast to the tensor's shape %s", shape_fmt(B->a, m->t->ndim, m->t->shape),
                shape_fmt(B->a, x->ndim, x->shape));
  return r ? mktensor(B, r) : NULL;
}

/* prims.fma(a, b, c): a * b + c, op by op as PyTorch's eager prim (its
 * compiled form rounds once, the reference it is checked against twice). */
static Val *b_fma(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *b = arg(A, 0, "b"), *c = arg(A, 1, "c");
  if (!b || !c) return fail(B, loc, "fma needs three operands");
  if (!check_args(B, A, s->name, 2)) return NULL;
  Val va = {.kind = V_TENSOR, .t = x};
  Val vp = {.kind = V_TENSOR, .t = arith(B, OP_MUL, &va, b, loc)};
  return vp.t ? mktensor(B, arith(B, OP_ADD, &vp, c, loc)) : NULL;
}

/* lerp(end, weight), addcmul(t1, t2, value=1), addcdiv(t1, t2, value=1):
 * in the compute dtype, rounded once, as PyTorch's CPU kernels. */
static Val *b_ternary(Builder *B, const Spelling *s, GNode *x0, Args *A, SrcLoc loc) {
  const char *n = s->name;
  bool lerp = !strcmp(n, "lerp");
  Val *a = arg(A, 0, lerp ? "end" : "tensor1"), *b = arg(A, 1, lerp ? "weight" : "tensor2");
  double value = 1;
  if (!a || !b) return fail(B, loc, "%s needs two more operands", n);
  if (!lerp && !num_arg(B, A, 2, "value", 1, &value)) return NULL;
  if (!check_args(B, A, n, lerp ? 2 : 3)) return NULL;
  Val vx = {.kind = V_TENSOR, .t = x0};
  Val *all[3] = {&vx, a, b};
  for (int i = 0; i < 3; i++)
    if (!is_num(all[i])) return fail(B, loc, "%s expects tensors or numbers, got %s", n, kind_name(all[i]));
  DType dt = result_type(all, 3);
  if (!dtype_is_float(dt) && (lerp || !strcmp(n, "addcdiv")))
    return fail(B, loc, "%s of integer tensors is not supported (as in PyTorch)", n);
  DType cd = opmath(dt);
  GNode *x = operand(B, &vx, cd, loc), *ta = operand(B, a, cd, loc), *tb = operand(B, b, cd, loc), *r;
  if (lerp) {
    GNode *d = tt(B, OP_SUB, ta, x, loc);
    r = twhere(B, tc(B, OP_LT, tabs(B, tb, loc), 0.5, loc), tt(B, OP_ADD, x, tt(B, OP_MUL, tb, d, loc), loc),
               tt(B, OP_SUB, ta, tt(B, OP_MUL, d, ct(B, OP_SUB, 1, tb, loc), loc), loc), loc);
  } else {
    GNode *p = tt(B, !strcmp(n, "addcmul") ? OP_MUL : OP_DIV, ta, tb, loc);
    r = tt(B, OP_ADD, x, value == 1 ? p : tc(B, OP_MUL, p, value, loc), loc);
  }
  return r ? mktensor(B, cast(B, r, dt, loc)) : NULL;
}

/* zeros, ones, empty (its values are zeros) and full(size, fill_value),
 * scalar_tensor(s) (a 0-d tensor of the default float dtype), and the
 * _like forms (x given): a constant broadcast to the size (no memory is
 * read); dtype= overrides the one PyTorch infers. */
static Val *b_creation(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  /* x.new_zeros(size) ...: a size of its own, x's dtype */
  bool fresh = !strncmp(name, "new_", 4);
  const char *kind = fresh ? name + 4 : name;
  bool full = !strncmp(kind, "full", 4), scalar = !strcmp(name, "scalar_tensor");
  int64_t shape[COIL_MAX_DIMS];
  int n = 0, next = 0; /* the positional argument after the size */
  DType dt = x ? x->dtype : DT_F32;
  if (x && !fresh) {
    n = x->ndim;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)n);
  } else if (full) {
    Val *sz = arg(A, 0, "size");
    if (!sz || sz->kind != V_TUPLE) return fail(B, loc, "%s needs a size tuple", name);
    if (sz->n > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
    n = sz->n;
    for (int i = 0; i < n; i++)
      if (!get_int(B, sz->items[i], arg_loc(A, 0, "size"), "size", &shape[i])) return NULL;
    next = 1;
  } else if (!scalar) {
    SrcLoc dl;
    if (A->npos == 0 && !arg(A, -1, "size")) n = 0;
    else if ((n = get_int_list(B, A, 0, "size", shape, &dl)) < 0) return NULL;
    next = A->npos;
  }
  Val *fill = NULL;
  SrcLoc fill_loc = loc;
  if (full || scalar) {
    fill_loc = arg_loc(A, next, scalar ? "s" : "fill_value");
    fill = arg(A, next++, scalar ? "s" : "fill_value");
    if (!fill || !is_num(fill) || fill->kind == V_TENSOR) return fail(B, loc, "%s needs a number %s", name, scalar ? "s" : "fill_value");
    if (full && !x) dt = fill->kind == V_FLOAT ? DT_F32 : fill->kind == V_BOOL ? DT_BOOL : DT_I64;
  }
  Val *dtv = arg(A, -1, "dtype");
  (void)arg(A, -1, "device"); /* coil's buffers live wherever its target runs */
  (void)arg(A, -1, "requires_grad");
  if (dtv && dtv->kind != V_NONE && !get_dtype(B, dtv, arg_loc(A, -1, "dtype"), &dt)) return NULL;
  if (!check_args(B, A, name, next)) return NULL;
  for (int i = 0; i < n; i++)
    if (shape[i] < 0) return fail(B, loc, "%s: negative size %lld", name, (long long)shape[i]);
  Val one = {.kind = V_INT, .i = !strncmp(kind, "ones", 4)};
  double f;
  int64_t iv;
  if (!fill_of(B, fill ? fill : &one, dt, fill_loc, &f, &iv)) return NULL;
  GNode *r = expand(B, mkconst(B, dt, f, iv, loc), n, shape, loc);
  return r ? mktensor(B, r) : NULL;
}

/* ------------------------------------------------------------ pieces, repeats */

/* A tuple of n items, to be filled. */
static Val *tuple_of(Builder *B, int n) {
  Val *t = mkval(B, V_TUPLE);
  t->n = n;
  t->items = ARENA_ARRAY(B->a, Val *, n + 1);
  return t;
}

/* x[..., start:start+len, ...] along dim, a view. */
static GNode *narrow_dim(Builder *B, GNode *x, int dim, int64_t start, int64_t len, SrcLoc loc) {
  int64_t st[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  st[dim] = start;
  shape[dim] = len;
  return slice(B, x, st, shape, loc);
}

static GNode *cat_nodes(Builder *B, GNode **xs, int n, int64_t dim_arg, const char *fname, SrcLoc dloc, SrcLoc loc);

/* x[..., start::step, ...] along dim, count points (step may be
 * negative), a view. */
static GNode *step_dim(Builder *B, GNode *x, int dim, int64_t start, int64_t step, int64_t count, SrcLoc loc) {
  int64_t st[COIL_MAX_DIMS] = {0}, sp[COIL_MAX_DIMS], shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  for (int d = 0; d < x->ndim; d++) sp[d] = 1;
  st[dim] = start;
  sp[dim] = step;
  shape[dim] = count;
  return slice_step(B, x, st, sp, shape, loc);
}

/* x with dim (of size 1) dropped. */
static GNode *drop_dim(Builder *B, GNode *x, int dim, SrcLoc loc) {
  int64_t shape[COIL_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < x->ndim; d++)
    if (d != dim) shape[n++] = x->shape[d];
  return reshape(B, x, n, shape, loc);
}

static bool dim_arg(Builder *B, Args *A, int i, GNode *x, int64_t dflt, int *out) {
  int64_t d = dflt;
  Val *v = arg(A, i, "dim");
  if (v && !get_int(B, v, arg_loc(A, i, "dim"), "dim", &d)) return false;
  if (x->ndim == 0) return fail(B, arg_loc(A, i, "dim"), "dimension specified as %lld but tensor has no dimensions", (long long)d), false;
  *out = norm_dim(B, d, x->ndim, arg_loc(A, i, "dim"));
  return *out >= 0;
}

/* select(dim, index): x[..., index, ...], the dim dropped. */
static Val *b_select(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dim;
  int64_t i;
  if (!dim_arg(B, A, 0, x, 0, &dim) || !get_int(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), "index", &i) || !check_args(B, A, s->name, 2))
    return NULL;
  int64_t n = x->shape[dim];
  if (i < -n || i >= n)
    return fail(B, arg_loc(A, 1, "index"), "select(): index %lld out of range for tensor of size %lld at dimension %d", (long long)i, (long long)n, dim);
  return mktensor(B, drop_dim(B, narrow_dim(B, x, dim, i < 0 ? i + n : i, 1, loc), dim, loc));
}

/* The bounds lo:hi:step over a sequence of len items, clamped as Python
 * clamps a slice's (has_lo, has_hi: whether they were given). */
static void clamp_slice(int64_t len, int64_t step, bool has_lo, bool has_hi, int64_t *lo, int64_t *hi) {
  if (step > 0) {
    if (!has_lo) *lo = 0;
    if (!has_hi) *hi = len;
    if (*lo < 0) *lo = *lo + len < 0 ? 0 : *lo + len;
    if (*hi < 0) *hi = *hi + len < 0 ? 0 : *hi + len;
    if (*lo > len) *lo = len;
    if (*hi > len) *hi = len;
    if (*hi < *lo) *hi = *lo;
  } else {
    if (!has_lo) *lo = len - 1;
    if (!has_hi) *hi = -1 - len;
    if (*lo < 0) *lo = *lo + len < 0 ? -1 : *lo + len;
    else if (*lo >= len) *lo = len - 1;
    if (*hi < 0) *hi = *hi + len < 0 ? -1 : *hi + len;
    else if (*hi >= len) *hi = len - 1;
  }
}

/* The as_strided view of x that coil has: size with its contiguous strides
 * (a dim of size 1 may have any), x's elements read in row-major order from
 * storage_offset on.  A size and stride list start at argument first of A;
 * sets *want to the view's element count and *off to its offset.  x is read
 * as the contiguous tensor it is in coil's graph; the torch.compile backend
 * hands coil an as_strided only of a contiguous tensor.  Any other layout
 * is refused. */
static bool strided_window(Builder *B, Args *A, int first, GNode *x, const char *what, int *n, int64_t *size, int64_t *off,
                           int64_t *want, SrcLoc loc) {
  Val *sv = arg(A, first, "size"), *tv = arg(A, first + 1, "stride"), *ov = arg(A, first + 2, "storage_offset");
  SrcLoc sl = arg_loc(A, first, "size"), tl = arg_loc(A, first + 1, "stride");
  if (!sv || sv->kind != V_TUPLE || !tv || tv->kind != V_TUPLE || sv->n != tv->n || sv->n > COIL_MAX_DIMS)
    return fail(B, loc, "%s needs size and stride, lists of as many ints", what), false;
  int64_t stride[COIL_MAX_DIMS];
  *n = sv->n;
  *off = 0;
  *want = 1;
  for (int i = 0; i < sv->n; i++)
    if (!get_int(B, sv->items[i], sl, "size", &size[i]) || !get_int(B, tv->items[i], tl, "stride", &stride[i])) return false;
  if (ov && ov->kind != V_NONE && !get_int(B, ov, arg_loc(A, first + 2, "storage_offset"), "storage_offset", off)) return false;
  bool empty = false; /* a view of no elements has any strides */
  for (int i = 0; i < sv->n; i++) empty |= size[i] == 0;
  for (int i = sv->n - 1; i >= 0; i--) {
    if (size[i] < 0) return fail(B, sl, "%s: negative size %lld", what, (long long)size[i]), false;
    if (!empty && size[i] != 1 && stride[i] != *want)
      return fail(B, tl, "%s with strides %s for size %s is not a reshape of the tensor's elements, which is all coil's subset has of it",
                  what, shape_fmt(B->a, sv->n, stride), shape_fmt(B->a, sv->n, size)), false;
    *want *= size[i];
  }
  int64_t total = shape_numel(x->ndim, x->shape);
  if (*off < 0 || *off + *want > total)
    return fail(B, loc, "%s: %lld elements from offset %lld leave the tensor's %lld", what, (long long)*want, (long long)*off,
                (long long)total), false;
  return true;
}

/* aten.as_strided(x, size, stride, storage_offset=None), where it is a
 * reshape (strided_window): Inductor's group_norm decomposition views its
 * [N, G, C/G, 1] scale as [N, C] this way. */
static Val *b_as_strided(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 3)) return NULL;
  int n;
  int64_t size[COIL_MAX_DIMS], off, want, total = shape_numel(x->ndim, x->shape);
  if (!strided_window(B, A, 0, x, "as_strided", &n, size, &off, &want, loc)) return NULL;
  GNode *flat = reshape(B, x, 1, &total, loc);
  return mktensor(B, reshape(B, narrow_dim(B, flat, 0, off, want, loc), n, size, loc));
}

/* aten.slice(x, dim=0, start=None, end=None, step=1): x[..., start:end]
 * along dim, clamped as a Python slice is (end is often INT64_MAX).  A
 * step other than 1 is a strided view, which coil's views are not. */
static Val *b_slice(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  static const char *const names[3] = {"start", "end", "step"};
  int64_t v[3] = {0, 0, 1};
  bool given[3] = {false, false, true};
  int dim;
  if (!dim_arg(B, A, 0, x, 0, &dim)) return NULL;
  for (int i = 0; i < 3; i++) {
    Val *a = arg(A, i + 1, names[i]);
    if (a && a->kind != V_NONE && !(given[i] = get_int(B, a, arg_loc(A, i + 1, names[i]), names[i], &v[i]))) return NULL;
  }
  if (!check_args(B, A, s->name, 4)) return NULL;
  if (v[2] < 1) return fail(B, arg_loc(A, 3, "step"), "slice step must be positive (as in PyTorch)");
  clamp_slice(x->shape[dim], 1, given[0], given[1], &v[0], &v[1]);
  return mktensor(B, step_dim(B, x, dim, v[0], v[2], (v[1] - v[0] + v[2] - 1) / v[2], loc));
}

/* The dims argument of flip: an int or a tuple of ints, each once, into
 * dims[0..*n). */
static bool dims_list(Builder *B, Val *v, SrcLoc loc, GNode *x, const char *fname, int *dims, int *n) {
  Val **items = &v;
  *n = 1;
  if (v->kind == V_TUPLE) items = v->items, *n = v->n;
  if (*n > COIL_MAX_DIMS) return fail(B, loc, "%s: at most %d dims", fname, COIL_MAX_DIMS), false;
  for (int i = 0; i < *n; i++) {
    int64_t d;
    if (!get_int(B, items[i], loc, "dim", &d)) return false;
    if ((dims[i] = norm_dim(B, d, x->ndim, loc)) < 0) return false;
    for (int j = 0; j < i; j++)
      if (dims[j] == dims[i]) return fail(B, loc, "dim %d appears multiple times in the list of dims", dims[i]), false;
  }
  return true;
}

/* flip(dims), fliplr (dim 1 of >= 2 dims), flipud (dim 0 of >= 1): a
 * slice with step -1 in each dim, a view (PyTorch copies). */
static Val *b_flip(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dims[COIL_MAX_DIMS], n = 1;
  if (!strcmp(s->name, "fliplr") || !strcmp(s->name, "flipud")) {
    bool lr = s->name[4] == 'l';
    if (!check_args(B, A, s->name, 0)) return NULL;
    if (x->ndim < (lr ? 2 : 1)) return fail(B, loc, "Input must be >= %d-d.", lr ? 2 : 1);
    dims[0] = lr ? 1 : 0;
  } else {
    Val *dv = arg(A, 0, "dims");
    SrcLoc dl = arg_loc(A, 0, "dims");
    if (!dv) return fail(B, loc, "flip needs dims");
    if (dv->kind != V_TUPLE && A->npos > 1) { /* x.flip(0, 1) */
      Val *t = tuple_of(B, A->npos);
      for (int i = 0; i < A->npos; i++) t->items[i] = A->pos[i];
      dv = t;
    }
    if (!check_args(B, A, s->name, A->npos > 1 ? A->npos : 1) || !dims_list(B, dv, dl, x, "flip", dims, &n)) return NULL;
    if (x->ndim == 0) return mktensor(B, x);
  }
  int64_t start[COIL_MAX_DIMS] = {0}, step[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) step[d] = 1;
  for (int i = 0; i < n; i++) {
    start[dims[i]] = x->shape[dims[i]] ? x->shape[dims[i]] - 1 : 0;
    step[dims[i]] = -1;
  }
  return mktensor(B, slice_step(B, x, start, step, x->shape, loc));
}

/* roll(shifts, dims=None): along each dim, out[i] = x[(i - shift) mod n],
 * the cat of two slices (x[n-s:], x[:n-s]): one kernel of two guarded
 * affine loads where x is in memory, where a modulo in the index would
 * make the load's index non-affine (no vector loads, no merged axes).
 * Without dims, x is flattened, rolled and reshaped back. */
static Val *b_roll(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *sv = arg(A, 0, "shifts"), *dv = arg(A, 1, "dims");
  SrcLoc sl = arg_loc(A, 0, "shifts"), dl = arg_loc(A, 1, "dims");
  if (!sv) return fail(B, loc, "roll needs shifts");
  if (!check_args(B, A, s->name, 2)) return NULL;
  int64_t shifts[COIL_MAX_DIMS];
  int ns = 1, nd = 0, dims[COIL_MAX_DIMS];
  Val **items = &sv;
  if (sv->kind == V_TUPLE) items = sv->items, ns = sv->n;
  if (ns > COIL_MAX_DIMS) return fail(B, sl, "roll: at most %d shifts", COIL_MAX_DIMS);
  for (int i = 0; i < ns; i++)
    if (!get_int(B, items[i], sl, "shifts", &shifts[i])) return NULL;
  bool flat = !dv || dv->kind == V_NONE || (dv->kind == V_TUPLE && dv->n == 0);
  if (flat) {
    if (ns != 1) return fail(B, sl, "shifts and dimensions must align. shifts: %d, dims:0", ns);
  } else {
    Val **ditems = &dv;
    nd = 1;
    if (dv->kind == V_TUPLE) ditems = dv->items, nd = dv->n;
    if (nd != ns) return fail(B, dl, "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
    for (int i = 0; i < nd; i++) {
      int64_t d;
      if (!get_int(B, ditems[i], dl, "dims", &d)) return NULL;
      if (x->ndim == 0) return fail(B, dl, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
      if ((dims[i] = norm_dim(B, d, x->ndim, dl)) < 0) return NULL;
    }
  }
  GNode *r = x;
  if (flat) {
    int64_t n = shape_numel(x->ndim, x->shape);
    r = reshape(B, x, 1, &n, loc);
    dims[0] = 0;
    nd = 1;
  }
  /* a dim named twice rolls twice, as PyTorch's roll does */
  for (int i = 0; i < nd && r; i++) {
    int d = dims[i];
    int64_t n = r->shape[d];
    if (n == 0) continue;
    int64_t k = ((shifts[i] % n) + n) % n;
    if (k == 0) continue;
    GNode *pieces[2] = {narrow_dim(B, r, d, n - k, k, loc), narrow_dim(B, r, d, 0, n - k, loc)};
    r = cat_nodes(B, pieces, 2, d, "roll", loc, loc);
  }
  if (flat) r = reshape(B, r, x->ndim, x->shape, loc);
  return r ? mktensor(B, r) : NULL;
}

/* unbind(dim=0): every index of dim, as select gives it. */
static Val *b_unbind(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dim;
  if (!dim_arg(B, A, 0, x, 0, &dim) || !check_args(B, A, s->name, 1)) return NULL;
  int64_t n = x->shape[dim];
  if (n > 256) return fail(B, loc, "unbind into %lld tensors: at most 256 outputs are supported", (long long)n);
  Val *t = tuple_of(B, (int)n);
  for (int64_t i = 0; i < n; i++)
    if (!(t->items[i] = mktensor(B, drop_dim(B, narrow_dim(B, x, dim, i, 1, loc), dim, loc)))) return NULL;
  return t;
}

/* chunk(chunks, dim=0) and split(split_size_or_sections, dim=0): views of
 * consecutive pieces, as PyTorch sizes them. */
static Val *b_pieces(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool chunk = !strcmp(s->name, "chunk");
  Val *sv = arg(A, 0, chunk ? "chunks" : "split_size_or_sections");
  if (!sv && !chunk) sv = arg(A, 0, "split_size");
  int dim;
  if (!sv) return fail(B, loc, "%s needs %s", s->name, chunk ? "chunks" : "a size or a list of sizes");
  if (!dim_arg(B, A, 1, x, 0, &dim) || !check_args(B, A, s->name, 2)) return NULL;
  int64_t len = x->shape[dim], sizes[257];
  int n = 0;
  SrcLoc sl = arg_loc(A, 0, NULL);
  if (sv->kind == V_TUPLE && !chunk) {
    int64_t total = 0;
    if (sv->n > 256) return fail(B, sl, "split into %d pieces: at most 256 are supported", sv->n);
    for (int i = 0; i < sv->n; i++) {
      if (!get_int(B, sv->items[i], sl, "a split size", &sizes[n])) return NULL;
      if (sizes[n] < 0) return fail(B, sl, "split: negative size %lld", (long long)sizes[n]);
      total += sizes[n++];
    }
    if (total != len)
      return fail(B, sl, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes=%s",
                  (long long)len, dim, shape_fmt(B->a, n, sizes));
  } else {
    int64_t k;
    if (!get_int(B, sv, sl, chunk ? "chunks" : "split_size", &k)) return NULL;
    if (k <= 0 && (chunk || len > 0)) return fail(B, sl, "%s expects a positive %s, got %lld", s->name, chunk ? "chunks" : "split_size", (long long)k);
    int64_t piece = chunk ? (len + k - 1) / k : k;
    if (chunk && piece == 0) piece = 1;
    int64_t count = piece ? (len + piece - 1) / piece : 1;
    if (count == 0) count = 1;
    if (count > 256) return fail(B, sl, "%s into %lld pieces: at most 256 are supported", s->name, (long long)count);
    for (int64_t at = 0; n < count; at += piece) sizes[n++] = at + piece <= len ? piece : len - at;
  }
  Val *t = tuple_of(B, n);
  for (int i = 0, at = 0; i < n; at += (int)sizes[i], i++)
    if (!(t->items[i] = mktensor(B, narrow_dim(B, x, dim, at, sizes[i], loc)))) return NULL;
  return t;
}

/* repeat(*sizes) and tile(dims): x[i % n] in every dim, as a view (an
 * expand between reshapes), never a copy. */
static Val *b_repeat(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t reps[COIL_MAX_DIMS];
  SrcLoc rl;
  int n = get_int_list(B, A, 0, !strcmp(s->name, "tile") ? "dims" : "repeats", reps, &rl);
  if (n < 0 || !check_args(B, A, s->name, A->npos)) return NULL;
  bool tile = !strcmp(s->name, "tile");
  if (!tile && n < x->ndim)
    return fail(B, rl, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  if (tile && n < x->ndim) { /* tile pads the repeats with leading 1s */
    memmove(reps + (x->ndim - n), reps, sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < x->ndim - n; i++) reps[i] = 1;
    n = x->ndim;
  }
  if (2 * n > COIL_MAX_DIMS) return fail(B, rl, "repeat over %d dims: at most %d are supported", n, COIL_MAX_DIMS / 2);
  int64_t in[COIL_MAX_DIMS], wide[COIL_MAX_DIMS], out[COIL_MAX_DIMS];
  int off = n - x->ndim;
  for (int d = 0; d < n; d++) {
    if (reps[d] < 0) return fail(B, rl, "%s: negative repeat %lld", s->name, (long long)reps[d]);
    int64_t size = d < off ? 1 : x->shape[d - off];
    in[2 * d] = 1, in[2 * d + 1] = size;
    wide[2 * d] = reps[d], wide[2 * d + 1] = size;
    out[d] = reps[d] * size;
  }
  GNode *r = reshape(B, expand(B, reshape(B, x, 2 * n, in, loc), 2 * n, wide, loc), n, out, loc);
  return r ? mktensor(B, r) : NULL;
}

/* movedim(source, destination) and moveaxis: a permutation. */
static Val *b_movedim(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *sv = arg(A, 0, "source"), *dv = arg(A, 1, "destination");
  if (!sv || !dv) return fail(B, loc, "%s needs source and destination", s->name);
  if (!check_args(B, A, s->name, 2)) return NULL;
  Val **ss = &sv, **ds = &dv;
  int ns = 1, nd = 1;
  if (sv->kind == V_TUPLE) ss = sv->items, ns = sv->n;
  if (dv->kind == V_TUPLE) ds = dv->items, nd = dv->n;
  if (ns != nd) return fail(B, loc, "movedim: Invalid source or destination dims: source (%d dims) should contain the same number of dims as destination (%d dims)", ns, nd);
  int perm[COIL_MAX_DIMS], src[COIL_MAX_DIMS], dst[COIL_MAX_DIMS];
  bool used_src[COIL_MAX_DIMS] = {0}, used_dst[COIL_MAX_DIMS] = {0};
  for (int i = 0; i < ns; i++) {
    int64_t a, b;
    if (!get_int(B, ss[i], arg_loc(A, 0, "source"), "source", &a) || !get_int(B, ds[i], arg_loc(A, 1, "destination"), "destination", &b)) return NULL;
    if ((src[i] = norm_dim(B, a, x->ndim, arg_loc(A, 0, "source"))) < 0 || (dst[i] = norm_dim(B, b, x->ndim, arg_loc(A, 1, "destination"))) < 0)
      return NULL;
    if (used_src[src[i]] || used_dst[dst[i]]) return fail(B, loc, "movedim: repeated dim");
    used_src[src[i]] = used_dst[dst[i]] = true;
  }
  for (int d = 0; d < x->ndim; d++) perm[d] = -1;
  for (int i = 0; i < ns; i++) perm[dst[i]] = src[i];
  for (int d = 0, next = 0; d < x->ndim; d++) {
    if (perm[d] >= 0) continue;
    while (used_src[next]) next++;
    perm[d] = next++;
  }
  return mktensor(B, permute(B, x, perm, loc));
}

/* view_as(other) and reshape_as(other). */
static Val *b_view_as(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *o = arg(A, 0, "other");
  if (!o || o->kind != V_TENSOR) return fail(B, loc, "%s needs a tensor", s->name);
  if (!check_args(B, A, s->name, 1)) return NULL;
  if (shape_numel(o->t->ndim, o->t->shape) != shape_numel(x->ndim, x->shape))
    return fail(B, loc, "%s: shape %s is invalid for input of size %lld", s->name, shape_fmt(B->a, o->t->ndim, o->t->shape),
                (long long)shape_numel(x->ndim, x->shape));
  return mktensor(B, reshape(B, x, o->t->ndim, o->t->shape, loc));
}

/* ------------------------------------------------- the rest of the math */

/* a op c for an integer constant c (an int scalar keeps an int tensor's
 * dtype, where tc's float would make it float). */
static GNode *tci(Builder *B, Op op, GNode *a, int64_t c, SrcLoc loc) {
  Val va = {.kind = V_TENSOR, .t = a}, vc = {.kind = V_INT, .i = c};
  return arith(B, op, &va, &vc, loc);
}

/* ------------------------------------------------------------ index values, padded reads */

/* An index value of shape (1 in every dim but dim): start + step * (the
 * index along dim), int64. */
static GNode *iota(Builder *B, int ndim, const int64_t *shape, int dim, int64_t start, int64_t step, SrcLoc loc) {
  int64_t sh[COIL_MAX_DIMS];
  for (int d = 0; d < ndim; d++) sh[d] = d == dim ? shape[d] : 1;
  GNode *n = new_node(B, OP_IOTA, DT_I64, ndim, sh, loc);
  n->dim = dim;
  n->ival = start;
  n->step = step;
  return n;
}

/* x read at start[d] + i in each dim d, its fill (f or i, already of x's
 * dtype) where that is outside x: a slice where it never is. */
static GNode *pad(Builder *B, GNode *x, const int64_t *start, const int64_t *shape, double f, int64_t i, SrcLoc loc) {
  if (!x) return NULL; /* an error is already reported */
  bool inside = true;
  for (int d = 0; d < x->ndim; d++) inside &= start[d] >= 0 && start[d] + shape[d] <= x->shape[d];
  if (inside) return slice(B, x, start, shape, loc);
  GNode *n = new_node(B, OP_PAD, x->dtype, x->ndim, shape, loc);
  memcpy(n->start, start, sizeof(int64_t) * (size_t)x->ndim);
  n->fval = f;
  n->ival = i;
  n->in[0] = x;
  n->nin = 1;
  return n;
}

/* a op c for an int64 a and an integer c (compared as integers). */
static GNode *ti(Builder *B, Op op, GNode *a, int64_t c, SrcLoc loc) {
  if (!a) return NULL;
  Val va = {.kind = V_TENSOR, .t = a}, vc = {.kind = V_INT, .i = c};
  return arith(B, op, &va, &vc, loc);
}

/* Two operands of a binary builder: x and `other`, or where x is NULL (a
 * number first: aten.remainder.Scalar_Tensor(2, x), torch.remainder(2, x))
 * self and other. */
static bool two_operands(Builder *B, const Spelling *s, GNode *x, Args *A, Val *vx, Val **a, Val **b, SrcLoc loc) {
  *vx = (Val){.kind = V_TENSOR, .t = x};
  *a = vx;
  int next = 0;
  if (!x) {
    *a = arg(A, 0, "self");
    next = 1;
  }
  *b = arg(A, next, "other");
  if (!*a || !*b) return fail(B, loc, "%s needs two operands", s->name), false;
  if (!check_args(B, A, s->name, next + 1)) return false;
  for (int i = 0; i < 2; i++) {
    Val *v = i ? *b : *a;
    if (!is_num(v)) return fail(B, loc, "%s expects tensors or numbers, got %s", s->name, kind_name(v)), false;
    if (v->kind == V_TENSOR && !v->t) return false; /* reported already */
  }
  return true;
}

/* fmod, remainder (Python's %: the sign of the divisor) and floor_divide
 * (Python's //), as PyTorch's CPU kernels compute them: of floats in the
 * compute dtype from C's fmod (div_floor_floating: (a - fmod(a, b)) / b,
 * one less where fmod's sign is not b's, floored, rounded up past .5, a
 * signed 0 for 0 and a / b where b is 0), rounded once; a Python number is
 * rounded to a bf16/f16 result's dtype first, but floor_divide's divisor,
 * which it keeps in f32 (as div; measured against PyTorch).  Of ints from C's % and truncating division;
 * PyTorch raises on a zero divisor, which coil cannot know when compiling:
 * x % 0, fmod(x, 0) and x // 0 are 0 (as NumPy gives), and MIN // -1 wraps
 * to MIN (as PyTorch's kernel gives). */
static GNode *mod_op(Builder *B, int kind, Val *a, Val *b, SrcLoc loc, const char *name) {
  Val *vs[2] = {a, b};
  DType dt = result_type(vs, 2);
  if (dt == DT_BOOL) return fail(B, loc, "%s of bool tensors is not supported (as in PyTorch)", name);
  DType cd = opmath(dt);
  Val rounded[2];
  if (dt == DT_BF16 || dt == DT_F16)
    for (int i = 0; i < 2; i++)
      if (vs[i]->kind != V_TENSOR && !(kind == MOD_FLOOR && i == 1)) {
        rounded[i] = (Val){.kind = V_FLOAT, .f = dtype_round(dt, vs[i]->kind == V_FLOAT ? vs[i]->f : (double)vs[i]->i)};
        vs[i] = &rounded[i];
      }
  GNode *x = as_dtype(B, vs[0], cd, loc), *y = as_dtype(B, vs[1], cd, loc);
  if (!x || !y) return NULL;
  Val vx = {.kind = V_TENSOR, .t = x}, vy = {.kind = V_TENSOR, .t = y};
  Val *xy[2] = {&vx, &vy};
  GNode *m = pointwise(B, OP_FMOD, xy, 2, cd, cd, loc), *r;
  if (kind == MOD_FMOD) return cast(B, m, dt, loc);
  /* where fmod's result is nonzero and of the other sign than b */
  GNode *fix = tt(B, OP_AND, tci(B, OP_NE, m, 0, loc), tt(B, OP_NE, tci(B, OP_LT, m, 0, loc), tci(B, OP_LT, y, 0, loc), loc), loc);
  if (kind == MOD_REMAINDER) {
    r = twhere(B, fix, tt(B, OP_ADD, m, y, loc), m, loc);
  } else if (!dtype_is_float(dt)) {
    r = tt(B, OP_SUB, pointwise(B, OP_IDIV, xy, 2, cd, cd, loc), cast(B, fix, cd, loc), loc);
  } else {
    GNode *div = tt(B, OP_DIV, tt(B, OP_SUB, x, m, loc), y, loc);
    div = twhere(B, fix, tci(B, OP_SUB, div, 1, loc), div, loc);
    GNode *fl = float_unary(B, OP_FLOOR, div, loc);
    fl = twhere(B, tc(B, OP_GT, tt(B, OP_SUB, div, fl, loc), 0.5, loc), tci(B, OP_ADD, fl, 1, loc), fl, loc);
    GNode *q = tt(B, OP_DIV, x, y, loc);
    Val zero = {.kind = V_FLOAT, .f = 0}, vq = {.kind = V_TENSOR, .t = q};
    Val *zq[2] = {&zero, &vq};
    fl = twhere(B, tci(B, OP_EQ, div, 0, loc), q ? pointwise(B, OP_COPYSIGN, zq, 2, cd, cd, loc) : NULL, fl, loc);
    r = twhere(B, tci(B, OP_EQ, y, 0, loc), q, fl, loc);
  }
  return cast(B, r, dt, loc);
}

/* fmod, remainder, floor_divide. */
static Val *b_mod(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val vx, *a, *b;
  if (!two_operands(B, s, x, A, &vx, &a, &b, loc)) return NULL;
  int kind = !strcmp(s->name, "fmod") ? MOD_FMOD : !strcmp(s->name, "remainder") ? MOD_REMAINDER : MOD_FLOOR;
  return mktensor(B, mod_op(B, kind, a, b, loc, s->name));
}

/* << and >> (bitwise_left_shift, bitwise_right_shift): ints only. */
static GNode *shift_op(Builder *B, Op op, Val *a, Val *b, SrcLoc loc, const char *name) {
  Val *vs[2] = {a, b};
  DType dt = result_type(vs, 2);
  if (!dtype_is_int(dt)) return fail(B, loc, "%s needs integer tensors, got %s (as in PyTorch)", name, dtype_name(dt));
  return pointwise(B, op, vs, 2, dt, dt, loc);
}

static Val *b_shift(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val vx, *a, *b;
  if (!two_operands(B, s, x, A, &vx, &a, &b, loc)) return NULL;
  return mktensor(B, shift_op(B, s->op, a, b, loc, s->name));
}

/* atan2, hypot, copysign: float math of two operands, ints and bool as
 * float32 (hypot: floats only), computed in the compute dtype. */
static Val *b_math2(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val vx, *a, *b;
  if (!two_operands(B, s, x, A, &vx, &a, &b, loc)) return NULL;
  if (s->op != OP_COPYSIGN && b->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, "other"), "torch.%s expects a tensor as its second argument (as in PyTorch)", s->name);
  Val *vs[2] = {a, b};
  DType dt = result_type(vs, 2);
  if (!dtype_is_float(dt)) {
    if (s->op == OP_HYPOT) return fail(B, loc, "hypot of %s tensors is not supported (as in PyTorch)", dtype_name(dt));
    dt = DT_F32;
  }
  return mktensor(B, pointwise(B, s->op, vs, 2, dt, opmath(dt), loc));
}

/* signbit: a float's sign bit (-0.0 and a NaN with it set included), as
 * copysign(1, x) < 0; an int's x < 0; a bool's False. */
static Val *b_signbit(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  if (x->dtype == DT_BOOL) return mktensor(B, tt(B, OP_NE, x, x, loc));
  if (!dtype_is_float(x->dtype)) return mktensor(B, tci(B, OP_LT, x, 0, loc));
  DType cd = opmath(x->dtype);
  Val one = {.kind = V_FLOAT, .f = 1}, v = {.kind = V_TENSOR, .t = x};
  Val *vs[2] = {&one, &v};
  return mktensor(B, tci(B, OP_LT, pointwise(B, OP_COPYSIGN, vs, 2, cd, cd, loc), 0, loc));
}

/* The tensors of a list argument. */
static int tensor_list(Builder *B, Val *v, SrcLoc loc, const char *fname, GNode ***out) {
  if (!v || v->kind != V_TUPLE) {
    fail(B, loc, "%s expects a tuple or list of tensors, got %s", fname, v ? kind_name(v) : "nothing");
    return -1;
  }
  if (v->n == 0) {
    fail(B, loc, "%s(): expected a non-empty list of Tensors", fname);
    return -1;
  }
  GNode **ts = ARENA_ARRAY(B->a, GNode *, v->n);
  for (int i = 0; i < v->n; i++) {
    if (v->items[i]->kind != V_TENSOR || !v->items[i]->t) {
      fail(B, loc, "%s expects a tuple or list of tensors, but item %d is %s", fname, i, kind_name(v->items[i]));
      return -1;
    }
    ts[i] = v->items[i]->t;
  }
  *out = ts;
  return v->n;
}

/* cat(tensors, dim): each piece where the result's index along dim is in
 * its part, a chain of where(index < end of piece k, pad(piece k), the
 * rest) that picks every value as it is (-0 and NaN too).  The dtype is
 * the pieces' result_type; 1-D empty pieces are skipped, as PyTorch's
 * legacy rule has it. */
static GNode *cat_nodes(Builder *B, GNode **xs, int n, int64_t dim_arg, const char *fname, SrcLoc dloc, SrcLoc loc) {
  Val **vs = ARENA_ARRAY(B->a, Val *, n);
  for (int i = 0; i < n; i++) {
    vs[i] = mktensor(B, xs[i]);
    if (xs[i]->ndim == 0) return fail(B, loc, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
  }
  DType dt = result_type(vs, n);
  int first = -1;
  for (int i = 0; i < n && first < 0; i++)
    if (!(xs[i]->ndim == 1 && xs[i]->shape[0] == 0)) first = i;
  if (first < 0) { /* every piece is empty */
    int64_t zero = 0;
    return expand(B, mkconst(B, dt, 0, 0, loc), 1, &zero, loc);
  }
  const GNode *x0 = xs[first];
  int dim = norm_dim(B, dim_arg, x0->ndim, dloc);
  if (dim < 0) return NULL;
  int64_t shape[COIL_MAX_DIMS];
  memcpy(shape, x0->shape, sizeof(int64_t) * (size_t)x0->ndim);
  shape[dim] = 0;
  for (int i = 0; i < n; i++) {
    const GNode *x = xs[i];
    if (x->ndim == 1 && x->shape[0] == 0) continue;
    if (x->ndim != x0->ndim) return fail(B, loc, "%s: tensors must have same number of dimensions: got %d and %d", fname, x0->ndim, x->ndim);
    for (int d = 0; d < x->ndim; d++)
      if (d != dim && x->shape[d] != x0->shape[d])
        return fail(B, loc, "%s: sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %d in the list",
                    fname, dim, (long long)x0->shape[d], (long long)x->shape[d], i);
    shape[dim] += x->shape[dim];
  }
  GNode *index = iota(B, x0->ndim, shape, dim, 0, 1, loc), *r = NULL;
  int64_t end = shape[dim];
  for (int i = n - 1; i >= 0; i--) {
    GNode *x = xs[i];
    if ((x->ndim == 1 && x->shape[0] == 0) || x->shape[dim] == 0) continue;
    int64_t start[COIL_MAX_DIMS] = {0};
    start[dim] = -(end - x->shape[dim]);
    GNode *p = pad(B, cast(B, x, dt, loc), start, shape, 0, 0, loc);
    r = r ? twhere(B, ti(B, OP_LT, index, end, loc), p, r, loc) : p;
    end -= x->shape[dim];
  }
  if (!r) r = expand(B, mkconst(B, dt, 0, 0, loc), x0->ndim, shape, loc); /* every piece empty along dim */
  return r;
}

/* torch.cat(tensors, dim=0) (concat, concatenate), torch.stack(tensors,
 * dim=0) (unsqueeze and cat), torch.hstack, torch.vstack (row_stack),
 * torch.dstack, torch.column_stack. */
static Val *b_cat(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  (void)x;
  const char *name = s->name;
  bool stack = !strcmp(name, "stack"), hstack = !strcmp(name, "hstack"), vstack = !strcmp(name, "vstack") || !strcmp(name, "row_stack");
  bool dstack = !strcmp(name, "dstack"), cstack = !strcmp(name, "column_stack");
  const char *fname = arena_printf(B->a, "%s.%s", s->forms & SP_ATEN ? "aten" : "torch", name);
  GNode **ts;
  int n = tensor_list(B, arg(A, 0, "tensors"), arg_loc(A, 0, "tensors"), fname, &ts);
  if (n < 0) return NULL;
  int64_t dim = 0;
  bool nodim = hstack || vstack || dstack || cstack;
  Val *dv = nodim ? NULL : arg(A, 1, "dim");
  if (dv && !get_int(B, dv, arg_loc(A, 1, "dim"), "dim", &dim)) return NULL;
  if (!check_args(B, A, name, nodim ? 1 : 2)) return NULL;
  if (stack) {
    for (int i = 1; i < n; i++)
      if (ts[i]->ndim != ts[0]->ndim || memcmp(ts[i]->shape, ts[0]->shape, sizeof(int64_t) * (size_t)ts[0]->ndim))
        return fail(B, loc, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                    shape_fmt(B->a, ts[0]->ndim, ts[0]->shape), shape_fmt(B->a, ts[i]->ndim, ts[i]->shape), i);
    if (ts[0]->ndim + 1 > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
    int d = norm_dim(B, dim, ts[0]->ndim + 1, arg_loc(A, 1, "dim"));
    if (d < 0) return NULL;
    for (int i = 0; i < n; i++) {
      int64_t sh[COIL_MAX_DIMS];
      for (int k = 0, j = 0; k <= ts[i]->ndim; k++) sh[k] = k == d ? 1 : ts[i]->shape[j++];
      ts[i] = reshape(B, ts[i], ts[i]->ndim + 1, sh, loc);
    }
    dim = d;
  }
  if (hstack || vstack) {
    /* atleast_1d (hstack) or atleast_2d (vstack) of each, then cat along
     * dim 0 (vstack, and hstack of 1-D tensors) or 1 */
    bool all1 = true;
    for (int i = 0; i < n; i++) {
      int want = vstack ? 2 : 1;
      if (ts[i]->ndim < want) {
        int64_t sh[2] = {1, ts[i]->ndim ? ts[i]->shape[0] : 1};
        ts[i] = reshape(B, ts[i], want, want == 2 ? sh : sh + 1, loc);
      }
      all1 &= ts[i]->ndim == 1;
    }
    dim = vstack || all1 ? 0 : 1;
  }
  if (dstack) { /* atleast_3d of each ([n] -> [1, n, 1], [a, b] -> [a, b, 1]), then cat along dim 2 */
    for (int i = 0; i < n; i++) {
      const GNode *t = ts[i];
      int64_t sh[3] = {1, 1, 1};
      if (t->ndim == 1) sh[1] = t->shape[0];
      if (t->ndim == 2) sh[0] = t->shape[0], sh[1] = t->shape[1];
      if (t->ndim < 3) ts[i] = reshape(B, ts[i], 3, sh, loc);
    }
    dim = 2;
  }
  if (cstack) { /* 0-d and 1-D tensors as columns ([n] -> [n, 1]), then cat along dim 1 */
    for (int i = 0; i < n; i++) {
      const GNode *t = ts[i];
      int64_t sh[2] = {t->ndim ? t->shape[0] : 1, 1};
      if (t->ndim < 2) ts[i] = reshape(B, ts[i], 2, sh, loc);
    }
    dim = 1;
  }
  return mktensor(B, cat_nodes(B, ts, n, dim, fname, arg_loc(A, 1, "dim"), loc));
}

/* A number argument known when compiling (an int, a float or a bool). */
static bool scalar_arg(Builder *B, Val *v, SrcLoc loc, const char *fname, const char *what) {
  if (v && (v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL)) return true;
  return fail(B, loc, "%s: %s must be a number known when compiling, got %s", fname, what, v ? kind_name(v) : "nothing"), false;
}

/* torch.arange(end), arange(start, end, step=1, dtype=None) and the ATen
 * overloads: ceil((end - start) / step) values, start + step * i computed
 * as PyTorch's CPU kernel computes an element in its accumulation type
 * (int64 for integers, double for float32 and float64, float for bfloat16
 * and float16) and rounded to the dtype.  (PyTorch's vectorized loop
 * adds k * step to a rounded base for lanes k of a vector instead, which
 * can differ from this in the last bit.)  The default dtype is int64 when
 * every bound is an integer, else float32. */
static Val *b_arange(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  (void)x;
  const char *fname = "arange";
  Val *sv = NULL, *ev = NULL, *stv = NULL;
  if (A->npos >= 2 || arg(A, -1, "end")) {
    sv = arg(A, 0, "start");
    ev = arg(A, 1, "end");
    stv = arg(A, 2, "step");
  } else {
    ev = arg(A, 0, "end");
    sv = arg(A, -1, "start");
    stv = arg(A, -1, "step");
  }
  Val zero = {.kind = V_INT, .i = 0}, one = {.kind = V_INT, .i = 1};
  if (!sv) sv = &zero;
  if (!stv) stv = &one;
  if (!scalar_arg(B, sv, arg_loc(A, 0, "start"), fname, "start") || !scalar_arg(B, ev, arg_loc(A, 1, "end"), fname, "end") ||
      !scalar_arg(B, stv, arg_loc(A, 2, "step"), fname, "step"))
    return NULL;
  bool all_int = sv->kind != V_FLOAT && ev->kind != V_FLOAT && stv->kind != V_FLOAT;
  DType dt = all_int ? DT_I64 : DT_F32;
  Val *dtv = arg(A, -1, "dtype");
  (void)arg(A, -1, "device");
  (void)arg(A, -1, "requires_grad");
  (void)arg(A, -1, "layout");
  (void)arg(A, -1, "pin_memory");
  if (dtv && dtv->kind != V_NONE && !get_dtype(B, dtv, arg_loc(A, -1, "dtype"), &dt)) return NULL;
  if (!check_args(B, A, s->name, 3)) return NULL;
  if (dt == DT_BOOL) return fail(B, loc, "\"arange_cpu\" not implemented for 'Bool' (as in PyTorch)");
  double start = sv->kind == V_FLOAT ? sv->f : (double)sv->i, end = ev->kind == V_FLOAT ? ev->f : (double)ev->i,
         step = stv->kind == V_FLOAT ? stv->f : (double)stv->i;
  bool is_int = !dtype_is_float(dt);
  /* the accumulation type's step and start: integers truncate */
  double astep = is_int ? trunc(step) : step, astart = is_int ? trunc(start) : start;
  if (astep == 0) return fail(B, loc, "arange: step must be nonzero");
  if (!isfinite(start) || !isfinite(end)) return fail(B, loc, "arange: unsupported range: %g -> %g", start, end);
  if (!((astep > 0 && end >= start) || (astep < 0 && end <= start)))
    return fail(B, loc, "arange: upper bound and larger bound inconsistent with step sign");
  double size_d;
  if (dt == DT_I64 && all_int) {
    int64_t d = ev->i - sv->i, st = stv->i;
    size_d = (double)(d / st + (d % st != 0));
  } else {
    size_d = ceil((end - start) / step);
  }
  if (!(size_d >= 0 && size_d < 4e15)) return fail(B, loc, "arange: invalid size %g", size_d);
  int64_t size = (int64_t)size_d;
  if (is_int) {
    if (fabs(astart) > 9.2e18 || fabs(astep) > 9.2e18) return fail(B, loc, "arange: start or step does not fit int64");
    GNode *r = iota(B, 1, &size, 0, sv->kind == V_FLOAT ? (int64_t)astart : sv->i, stv->kind == V_FLOAT ? (int64_t)astep : stv->i, loc);
    return mktensor(B, cast(B, r, dt, loc));
  }
  DType acc = dt == DT_F32 || dt == DT_F64 ? DT_F64 : DT_F32;
  GNode *r = cast(B, iota(B, 1, &size, 0, 0, 1, loc), acc, loc);
  if (step != 1) r = tc(B, OP_MUL, r, dtype_round(acc, step), loc);
  if (start != 0 || !(step > 0)) r = tc(B, OP_ADD, r, dtype_round(acc, start), loc);
  return mktensor(B, cast(B, r, dt, loc));
}

/* prims.iota(length, *, start, step, dtype): start + step * i, integers. */
static Val *b_iota(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  (void)x;
  int64_t len, start, step;
  if (!get_int(B, arg(A, 0, "length"), arg_loc(A, 0, "length"), "length", &len) ||
      !get_int(B, arg(A, -1, "start"), arg_loc(A, -1, "start"), "start", &start) ||
      !get_int(B, arg(A, -1, "step"), arg_loc(A, -1, "step"), "step", &step))
    return NULL;
  DType dt;
  if (!get_dtype(B, arg(A, -1, "dtype"), arg_loc(A, -1, "dtype"), &dt) || !check_args(B, A, s->name, 1)) return NULL;
  if (!dtype_is_int(dt)) return fail(B, arg_loc(A, -1, "dtype"), "prims.iota only supports integer dtypes, got %s", dtype_name(dt));
  if (len < 0) return fail(B, arg_loc(A, 0, "length"), "prims.iota: negative length %lld", (long long)len);
  return mktensor(B, cast(B, iota(B, 1, &len, 0, start, step, loc), dt, loc));
}

/* F.pad's other modes, along each padded dim (the last first) with n its
 * size and j = o - before the input index that output index o stands
 * for: reflect reads |j| folded back at both ends (-j below 0, 2(n-1) - j
 * from n), replicate reads j clamped to [0, n), circular reads j mod m of
 * the input cropped by its negative pads (PyTorch crops first), m its
 * size.  Each is a cat of at most three views of the input along the dim:
 * reflect's ends are slices with step -1, replicate's ends an element
 * expanded, circular's ends the other end's slice.  So the loads stay
 * affine in every piece (one guarded load per piece where the input is in
 * memory, all in one kernel), where the index maps as written (an
 * absolute value, a min/max clamp, a modulo) would need atoms the index
 * expressions lack (abs, min, max) or a modulo that makes every load's
 * index non-affine (no merged axes, no vector loads).  Padding k dims
 * takes an input of k + 1 or k + 2 dims, as PyTorch. */
enum { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };
static GNode *pad_mode(Builder *B, GNode *x, int mode, const int64_t *p, int k, const char *mname, SrcLoc pl, SrcLoc loc) {
  if (k < 1 || k > 3 || (x->ndim != k + 1 && x->ndim != k + 2))
    return fail(B, pl, "Padding size %d is not supported for %dD input tensor.", 2 * k, x->ndim);
  GNode *r = x;
  for (int i = 0; i < k && r; i++) {
    int d = x->ndim - 1 - i;
    int64_t n = r->shape[d], lo = p[2 * i], hi = p[2 * i + 1], N = n + lo + hi;
    if (N < 0)
      return fail(B, pl, "The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input",
                  (long long)n, (long long)lo, (long long)hi, d);
    if (mode == PAD_REFLECT && (lo >= n || hi >= n))
      return fail(B, pl, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
                  (long long)lo, (long long)hi, d, shape_fmt(B->a, x->ndim, x->shape));
    if (mode != PAD_CIRCULAR && n == 0 && N > 0)
      return fail(B, pl, "pad: mode='%s' of an empty dimension (%d) has nothing to %s", mname, d, mode == PAD_REFLECT ? "reflect" : "replicate");
    GNode *pieces[3];
    int np = 0;
    if (mode == PAD_CIRCULAR) {
      if (lo > n || hi > n) return fail(B, pl, "Padding value causes wrapping around more than once.");
      int64_t c0 = lo < 0 ? -lo : 0, m = n - c0 - (hi < 0 ? -hi : 0);
      if (lo > m || hi > m)
        return fail(B, pl, "pad: mode='circular' wraps around more than once after the negative padding crops dimension %d to %lld", d, (long long)m);
      GNode *c = narrow_dim(B, r, d, c0, m, loc);
      if (lo > 0) pieces[np++] = narrow_dim(B, c, d, m - lo, lo, loc);
      pieces[np++] = c;
      if (hi > 0) pieces[np++] = narrow_dim(B, c, d, 0, hi, loc);
    } else {
      /* j runs over [-lo, n + hi): below 0, inside, from n */
      int64_t j0 = -lo, j1 = n + hi;
      int64_t a0 = j0, a1 = j1 < 0 ? j1 : 0;           /* j < 0 */
      int64_t b0 = j0 > 0 ? j0 : 0, b1 = j1 < n ? j1 : n; /* 0 <= j < n */
      int64_t c0 = j0 > n ? j0 : n, c1 = j1;           /* j >= n */
      int64_t shape[COIL_MAX_DIMS];
      memcpy(shape, r->shape, sizeof(int64_t) * (size_t)r->ndim);
      if (a1 > a0) {
        if (mode == PAD_REFLECT) pieces[np++] = step_dim(B, r, d, -a0, -1, a1 - a0, loc);
        else shape[d] = a1 - a0, pieces[np++] = expand(B, narrow_dim(B, r, d, 0, 1, loc), r->ndim, shape, loc);
      }
      if (b1 > b0) pieces[np++] = narrow_dim(B, r, d, b0, b1 - b0, loc);
      if (c1 > c0) {
        if (mode == PAD_REFLECT) pieces[np++] = step_dim(B, r, d, 2 * (n - 1) - c0, -1, c1 - c0, loc);
        else shape[d] = c1 - c0, pieces[np++] = expand(B, narrow_dim(B, r, d, n - 1, 1, loc), r->ndim, shape, loc);
      }
    }
    if (np == 0) { /* an empty result along d */
      r = narrow_dim(B, r, d, 0, 0, loc);
      continue;
    }
    r = np == 1 ? pieces[0] : cat_nodes(B, pieces, np, d, "pad", loc, loc);
  }
  return r;
}

/* aten.reflection_padNd(x, padding) and aten.replication_padNd: F.pad's
 * modes. */
static Val *b_pad_mode(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *pv = arg(A, 0, "padding");
  SrcLoc pl = arg_loc(A, 0, "padding");
  if (!check_args(B, A, s->name, 1)) return NULL;
  if (!pv || pv->kind != V_TUPLE || pv->n % 2 || pv->n > 6) return fail(B, pl, "%s needs padding, a list of 2, 4 or 6 ints", s->name);
  int64_t p[6];
  for (int i = 0; i < pv->n; i++)
    if (!get_int(B, pv->items[i], pl, "a pad", &p[i])) return NULL;
  int k = s->name[strlen(s->name) - 2] - '0'; /* "reflection_pad2d" */
  if (pv->n != 2 * k) return fail(B, pl, "%s needs %d pads, got %d", s->name, 2 * k, pv->n);
  bool reflect = s->name[2] == 'f';
  GNode *r = pad_mode(B, x, reflect ? PAD_REFLECT : PAD_REPLICATE, p, k, reflect ? "reflect" : "replicate", pl, loc);
  return r ? mktensor(B, r) : NULL;
}

/* F.pad(x, pad, mode="constant", value=None) and aten.constant_pad_nd(x,
 * pad, value=0): pad pairs (before, after) from the last dim backwards;
 * a negative pad crops.  The value is converted to x's dtype. */
static Val *b_pad(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool f = !strcmp(s->name, "pad");
  int64_t p[2 * COIL_MAX_DIMS];
  Val *pv = arg(A, 0, "pad");
  SrcLoc pl = arg_loc(A, 0, "pad");
  if (!pv || pv->kind != V_TUPLE) return fail(B, pl, "%s needs pad, a tuple of ints", s->name);
  if (pv->n > 2 * COIL_MAX_DIMS) return fail(B, pl, "padding of %d values: at most %d", pv->n, 2 * COIL_MAX_DIMS);
  for (int i = 0; i < pv->n; i++)
    if (!get_int(B, pv->items[i], pl, "a pad", &p[i])) return NULL;
  Val *mode = f ? arg(A, 1, "mode") : NULL, *value = arg(A, f ? 2 : 1, "value");
  if (!check_args(B, A, s->name, f ? 3 : 2)) return NULL;
  if (mode && mode->kind != V_NONE) {
    SrcLoc ml = arg_loc(A, 1, "mode");
    if (mode->kind != V_STR) return fail(B, ml, "pad: mode must be a string, got %s", kind_name(mode));
    if (strcmp(mode->name, "constant")) {
      int m = !strcmp(mode->name, "reflect") ? PAD_REFLECT : !strcmp(mode->name, "replicate") ? PAD_REPLICATE
            : !strcmp(mode->name, "circular") ? PAD_CIRCULAR : -1;
      if (m < 0) return fail(B, ml, "pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got '%s'", mode->name);
      if (value && value->kind != V_NONE)
        return fail(B, arg_loc(A, 2, "value"), "Padding mode \"%s\" doesn't take in value argument.", mode->name);
      if (pv->n % 2) return fail(B, pl, "Padding length must be divisible by 2");
      GNode *r = pad_mode(B, x, m, p, pv->n / 2, mode->name, pl, loc);
      return r ? mktensor(B, r) : NULL;
    }
  }
  if (pv->n % 2) return fail(B, pl, "Padding length must be divisible by 2");
  if (pv->n / 2 > x->ndim)
    return fail(B, pl, "Padding length should be less than or equal to two times the input dimension but got padding length %d and input of dimension %d",
                pv->n, x->ndim);
  double fv = 0;
  int64_t iv = 0;
  if (value && value->kind != V_NONE) {
    if (!scalar_arg(B, value, arg_loc(A, f ? 2 : 1, "value"), s->name, "value")) return NULL;
    if (!fill_of(B, value, x->dtype, arg_loc(A, f ? 2 : 1, "value"), &fv, &iv)) return NULL;
  }
  int64_t start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  for (int i = 0; i < pv->n / 2; i++) {
    int d = x->ndim - 1 - i;
    int64_t lo = p[2 * i], hi = p[2 * i + 1];
    shape[d] = x->shape[d] + lo + hi;
    start[d] = -lo;
    if (shape[d] < 0)
      return fail(B, pl, "The input size %lld, plus negative padding %lld and %lld resulted in a negative output size, which is invalid. Check dimension %d of your input",
                  (long long)x->shape[d], (long long)lo, (long long)hi, d);
  }
  return mktensor(B, pad(B, x, start, shape, fv, iv, loc));
}

/* t with every point i of dim moved to i * step and fills between: of
 * length (n - 1) * step + 1 (an unsqueeze, a pad of the new dim to step,
 * a reshape, a narrow). */
static GNode *spread(Builder *B, GNode *t, int dim, int64_t step, double f, int64_t i, SrcLoc loc) {
  int64_t in[COIL_MAX_DIMS], wide[COIL_MAX_DIMS], flat[COIL_MAX_DIMS], start[COIL_MAX_DIMS] = {0};
  int n = t->ndim;
  for (int d = 0, j = 0; d <= n; d++) {
    in[d] = d == dim + 1 ? 1 : t->shape[j];
    wide[d] = d == dim + 1 ? step : in[d];
    if (d != dim + 1) j++;
  }
  for (int d = 0; d < n; d++) flat[d] = d == dim ? t->shape[d] * step : t->shape[d];
  GNode *r = reshape(B, pad(B, reshape(B, t, n + 1, in, loc), start, wide, f, i, loc), n, flat, loc);
  return narrow_dim(B, r, dim, 0, (t->shape[dim] - 1) * step + 1, loc);
}

/* x with x[..., lo:lo + n, ...] (along dim, n t's size there) replaced
 * by t in x's dtype: where(the range's points, t padded to x's shape, x). */
static GNode *put_range(Builder *B, GNode *x, GNode *t, int dim, int64_t lo, SrcLoc loc) {
  int64_t start[COIL_MAX_DIMS] = {0};
  start[dim] = -lo;
  GNode *p = pad(B, cast(B, t, x->dtype, loc), start, x->shape, 0, 0, loc);
  GNode *index = iota(B, x->ndim, x->shape, dim, 0, 1, loc);
  int64_t last = lo + t->shape[dim];
  GNode *cond = lo > 0 ? ti(B, OP_GE, index, lo, loc) : NULL;
  if (last < x->shape[dim]) cond = cond ? tt(B, OP_AND, cond, ti(B, OP_LT, index, last, loc), loc) : ti(B, OP_LT, index, last, loc);
  return cond ? twhere(B, cond, p, x, loc) : p; /* no cond: the whole of x */
}

/* slice_scatter(x, src, dim=0, start=None, end=None, step=1): x with
 * x[..., start:end:step, ...] (along dim) replaced by src in x's dtype:
 * where(the slice's points, src padded to x's shape, x). */
static Val *b_slice_scatter(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  static const char *const names[3] = {"start", "end", "step"};
  Val *src = arg(A, 0, "src");
  int dim;
  if (!src || src->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "src"), "slice_scatter needs a tensor src");
  if (!dim_arg(B, A, 1, x, 0, &dim)) return NULL;
  int64_t v[3] = {0, 0, 1};
  bool given[3] = {false, false, true};
  for (int i = 0; i < 3; i++) {
    Val *a = arg(A, i + 2, names[i]);
    if (a && a->kind != V_NONE && !(given[i] = get_int(B, a, arg_loc(A, i + 2, names[i]), names[i], &v[i]))) return NULL;
  }
  if (!check_args(B, A, s->name, 5)) return NULL;
  if (v[2] < 1) return fail(B, arg_loc(A, 4, "step"), "slice step must be positive (as in PyTorch)");
  int64_t len = x->shape[dim];
  clamp_slice(len, 1, given[0], given[1], &v[0], &v[1]);
  int64_t step = v[2], count = v[1] > v[0] ? (v[1] - v[0] + step - 1) / step : 0;
  GNode *t = src->t;
  int64_t want[COIL_MAX_DIMS];
  memcpy(want, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  want[dim] = count;
  if (t->ndim != x->ndim || memcmp(t->shape, want, sizeof(int64_t) * (size_t)x->ndim))
    return fail(B, arg_loc(A, 0, "src"), "expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                shape_fmt(B->a, t->ndim, t->shape), shape_fmt(B->a, x->ndim, want));
  if (count == 0) return mktensor(B, x);
  if (step > 1 && x->ndim + 1 > COIL_MAX_DIMS) return fail(B, loc, "slice_scatter with a step: at most %d dimensions", COIL_MAX_DIMS - 1);
  if (step == 1) return mktensor(B, put_range(B, x, t, dim, v[0], loc));
  int64_t start[COIL_MAX_DIMS] = {0};
  start[dim] = -v[0];
  GNode *p = pad(B, spread(B, cast(B, t, x->dtype, loc), dim, step, 0, 0, loc), start, x->shape, 0, 0, loc);
  GNode *mask = spread(B, expand(B, mkconst(B, DT_BOOL, 0, 1, loc), t->ndim, t->shape, loc), dim, step, 0, 0, loc);
  return mktensor(B, twhere(B, pad(B, mask, start, x->shape, 0, 0, loc), p, x, loc));
}

/* aten.as_strided_scatter(x, src, size, stride, storage_offset=None): x
 * with its as_strided view replaced by src in x's dtype, for the views
 * as_strided has (strided_window): a run of x's elements in row-major
 * order, so the flat x with that run put in.  aot_autograd writes one for
 * an in-place op on a view (ConvNeXt's backward: the whole of a [640]
 * buffer as [2, 320]). */
static Val *b_as_strided_scatter(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *src = arg(A, 0, "src");
  if (!src || src->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "src"), "as_strided_scatter needs a tensor src");
  if (!check_args(B, A, s->name, 4)) return NULL;
  int n;
  int64_t size[COIL_MAX_DIMS], off, want, total = shape_numel(x->ndim, x->shape);
  if (!strided_window(B, A, 1, x, "as_strided_scatter", &n, size, &off, &want, loc)) return NULL;
  GNode *t = src->t;
  if (t->ndim != n || memcmp(t->shape, size, sizeof(int64_t) * (size_t)n))
    return fail(B, arg_loc(A, 0, "src"), "expected src to have the size of the view: src size = %s, view size = %s",
                shape_fmt(B->a, t->ndim, t->shape), shape_fmt(B->a, n, size));
  if (want == 0) return mktensor(B, x);
  GNode *flat = reshape(B, x, 1, &total, loc);
  GNode *put = put_range(B, flat, reshape(B, t, 1, &want, loc), 0, off, loc);
  return mktensor(B, reshape(B, put, x->ndim, x->shape, loc));
}

/* select_scatter(x, src, dim, index): x with x.select(dim, index)
 * replaced by src in x's dtype. */
static Val *b_select_scatter(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *src = arg(A, 0, "src");
  int dim;
  int64_t i;
  if (!src || src->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "src"), "select_scatter needs a tensor src");
  if (!dim_arg(B, A, 1, x, 0, &dim) || !get_int(B, arg(A, 2, "index"), arg_loc(A, 2, "index"), "index", &i) || !check_args(B, A, s->name, 3))
    return NULL;
  int64_t n = x->shape[dim];
  if (i < -n || i >= n)
    return fail(B, arg_loc(A, 2, "index"), "select_scatter(): index %lld out of range for tensor of size %lld at dimension %d", (long long)i,
                (long long)n, dim);
  if (i < 0) i += n;
  GNode *t = src->t;
  int64_t want[COIL_MAX_DIMS], one[COIL_MAX_DIMS], start[COIL_MAX_DIMS] = {0};
  for (int d = 0, j = 0; d < x->ndim; d++) {
    one[d] = d == dim ? 1 : x->shape[d];
    if (d != dim) want[j++] = x->shape[d];
  }
  if (t->ndim != x->ndim - 1 || memcmp(t->shape, want, sizeof(int64_t) * (size_t)t->ndim))
    return fail(B, arg_loc(A, 0, "src"), "expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                shape_fmt(B->a, t->ndim, t->shape), shape_fmt(B->a, x->ndim - 1, want));
  start[dim] = -i;
  GNode *p = pad(B, reshape(B, cast(B, t, x->dtype, loc), x->ndim, one, loc), start, x->shape, 0, 0, loc);
  GNode *cond = ti(B, OP_EQ, iota(B, x->ndim, x->shape, dim, 0, 1, loc), i, loc);
  return mktensor(B, twhere(B, cond, p, x, loc));
}

/* ------------------------------------------------------------ indexed reads */

/* x read at index values: out[p] = x[q] with q[dim] = index[p] (index has
 * the result's shape) and q[d] = p[from[d]] for x's other dims (from[d] < 0:
 * 0, a broadcast dim of size 1).  fuse.c gives x a buffer where it has
 * none, and the kernels read it where the index says: only what is named
 * moves.  An index outside x's dim is a run-time error, never a read. */
static GNode *gather_node(Builder *B, GNode *x, int dim, GNode *index, const int *from, bool wraps, SrcLoc loc) {
  if (!x || !index) return NULL; /* an error is already reported */
  if (x->shape[dim] == 0 && shape_numel(index->ndim, index->shape))
    return fail(B, loc, "index out of range: dimension %d of the indexed tensor has size 0", dim);
  GNode *n = new_node(B, OP_GATHER, x->dtype, index->ndim, index->shape, loc);
  n->in[0] = x;
  n->in[1] = index;
  n->nin = 2;
  n->dim = dim;
  n->wraps = wraps;
  for (int d = 0; d < x->ndim; d++) n->perm[d] = d == dim ? -1 : from[d];
  return n;
}

/* x indexed along dim by every element of idx: the result's dims are x's
 * before dim, idx's, then x's after dim (index_select, embedding, x[idx]). */
static GNode *index_along(Builder *B, GNode *x, int dim, GNode *idx, bool wraps, SrcLoc loc) {
  if (x->ndim - 1 + idx->ndim > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
  int64_t shape[COIL_MAX_DIMS], ishape[COIL_MAX_DIMS];
  int from[COIL_MAX_DIMS], nd = 0;
  for (int d = 0; d < dim; d++) from[d] = nd, ishape[nd] = 1, shape[nd++] = x->shape[d];
  for (int d = 0; d < idx->ndim; d++) ishape[nd] = idx->shape[d], shape[nd++] = idx->shape[d];
  for (int d = dim + 1; d < x->ndim; d++) from[d] = nd, ishape[nd] = 1, shape[nd++] = x->shape[d];
  GNode *index = expand(B, reshape(B, idx, nd, ishape, loc), nd, shape, loc);
  return gather_node(B, x, dim, index, from, wraps, loc);
}

/* A tensor argument holding indices: int64 (only) or int32 too. */
static GNode *index_arg(Builder *B, Val *v, SrcLoc at, const char *fname, const char *what, bool int32_ok) {
  if (!v || v->kind != V_TENSOR) return fail(B, at, "%s: %s must be a tensor, got %s", fname, what, v ? kind_name(v) : "nothing");
  DType t = v->t->dtype;
  if (t == DT_I64 || (t == DT_I32 && int32_ok)) return v->t;
  if (t == DT_BOOL)
    return fail(B, at, "%s: a bool index selects a number of elements that depends on the data; coil needs shapes known when compiling "
                "(use torch.where)", fname);
  return fail(B, at, "%s: expected %s of dtype %s, got %s", fname, what, int32_ok ? "int32 or int64" : "int64", dtype_name(t));
}

/* gather(x, dim, index): out[p] = x[p with p[dim] = index[p]]. */
static Val *b_gather(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dim;
  if (!dim_arg(B, A, 0, x, 0, &dim)) return NULL;
  GNode *index = index_arg(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), "gather()", "index", false);
  Val *sg = arg(A, 2, "sparse_grad");
  if (sg) (void)get_bool(B, sg, arg_loc(A, 2, "sparse_grad"), "sparse_grad", false); /* the gradient's layout only */
  if (!index || B->err || !check_args(B, A, s->name, 3)) return NULL;
  if (index->ndim != x->ndim)
    return fail(B, arg_loc(A, 1, "index"), "gather(): index tensor must have the same number of dimensions as input tensor (%d and %d)",
                index->ndim, x->ndim);
  int from[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    from[d] = d;
    if (d != dim && index->shape[d] > x->shape[d])
      return fail(B, arg_loc(A, 1, "index"), "gather(): size does not match at dimension %d: expected index %s to be no larger than "
                  "self %s apart from dimension %d", d, shape_fmt(B->a, index->ndim, index->shape), shape_fmt(B->a, x->ndim, x->shape), dim);
  }
  return mktensor(B, gather_node(B, x, dim, index, from, false, loc));
}

/* take_along_dim(x, indices, dim=None): gather after broadcasting x and
 * indices to each other in every dim but dim; dim=None: of the flattened
 * x by the flattened indices. */
static Val *b_take_along_dim(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  GNode *idx = index_arg(B, arg(A, 0, "indices"), arg_loc(A, 0, "indices"), "take_along_dim()", "indices", false);
  Val *dv = arg(A, 1, "dim");
  if (!idx || !check_args(B, A, s->name, 2)) return NULL;
  if (!dv || dv->kind == V_NONE) {
    int64_t n = shape_numel(x->ndim, x->shape), m = shape_numel(idx->ndim, idx->shape);
    int from[1] = {-1};
    return mktensor(B, gather_node(B, reshape(B, x, 1, &n, loc), 0, reshape(B, idx, 1, &m, loc), from, false, loc));
  }
  int dim;
  if (!dim_arg(B, A, 1, x, 0, &dim)) return NULL;
  if (idx->ndim != x->ndim)
    return fail(B, arg_loc(A, 0, "indices"), "take_along_dim(): input and indices should have the same number of dimensions, but got %d "
                "dimensions for input, and %d dimensions for indices", x->ndim, idx->ndim);
  int64_t shape[COIL_MAX_DIMS];
  int from[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) {
    int64_t a = x->shape[d], b = idx->shape[d];
    from[d] = a == 1 ? -1 : d;
    if (d == dim) shape[d] = b;
    else if (a == b || a == 1 || b == 1) shape[d] = a == 1 ? b : a;
    else
      return fail(B, arg_loc(A, 0, "indices"), "take_along_dim(): the shapes %s and %s do not broadcast in dimension %d",
                  shape_fmt(B->a, x->ndim, x->shape), shape_fmt(B->a, idx->ndim, idx->shape), d);
  }
  return mktensor(B, gather_node(B, x, dim, expand(B, idx, x->ndim, shape, loc), from, false, loc));
}

/* index_select(x, dim, index): x along dim at each element of a 1-D (or
 * 0-D) index. */
static Val *b_index_select(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dim;
  if (!dim_arg(B, A, 0, x, 0, &dim)) return NULL;
  GNode *idx = index_arg(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), "index_select()", "index", true);
  if (!idx || !check_args(B, A, s->name, 2)) return NULL;
  if (idx->ndim > 1) return fail(B, arg_loc(A, 1, "index"), "index_select(): index is supposed to be a vector, got %d dimensions", idx->ndim);
  int64_t n = shape_numel(idx->ndim, idx->shape);
  return mktensor(B, index_along(B, x, dim, reshape(B, idx, 1, &n, loc), false, loc));
}

/* F.embedding(input, weight, padding_idx=None, max_norm=None, ...) and
 * aten.embedding(weight, indices, ...): the rows of a 2-D weight named by
 * the indices.  padding_idx and scale_grad_by_freq change only the
 * gradient (the backward is its own graph); max_norm renormalises weight's
 * rows in place, which a function coil compiles cannot do. */
static Val *b_embedding(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool aten = s->forms & SP_ATEN;
  Val *other = arg(A, 0, aten ? "indices" : "weight");
  if (!other || other->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, aten ? "indices" : "weight"), "embedding: %s must be a tensor", aten ? "indices" : "weight");
  GNode *w = aten ? x : other->t;
  GNode *ids = index_arg(B, mktensor(B, aten ? other->t : x), aten ? arg_loc(A, 0, "indices") : A->at, "embedding", "indices", true);
  if (!ids) return NULL;
  if (!aten) {
    Val *mn = arg(A, 2, "max_norm");
    if (mn && mn->kind != V_NONE)
      return fail(B, arg_loc(A, 2, "max_norm"), "F.embedding with max_norm renormalises weight in place; a function coil compiles is pure "
                  "(renormalise weight before the call)");
    for (int i = 1; i < 6; i++) {
      static const char *const names[] = {NULL, "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"};
      (void)arg(A, i, names[i]); /* they do not change the result */
    }
    if (!check_args(B, A, s->name, 6)) return NULL;
  } else {
    for (int i = 1; i < 4; i++) (void)arg(A, i, i == 1 ? "padding_idx" : i == 2 ? "scale_grad_by_freq" : "sparse");
    if (!check_args(B, A, s->name, 4)) return NULL;
  }
  if (w->ndim != 2) return fail(B, loc, "embedding: weight must be 2-D, got %d dimensions", w->ndim);
  return mktensor(B, index_along(B, w, 0, ids, false, loc));
}

/* ------------------------------------------------------------ sums at indices */

/* idx checked against [0, size), the size of dim of the indexed tensor (a
 * negative value counted from the end first where wraps): its values read
 * back through an index value of that range, an indexed read, which checks
 * them as every indexed read does (the range gets a buffer of size int64s).
 * The range lies along dim, so the check's error names that dim. */
static GNode *checked_index(Builder *B, GNode *idx, int64_t size, int dim, bool wraps, SrcLoc loc) {
  int64_t shape[COIL_MAX_DIMS];
  int from[COIL_MAX_DIMS];
  for (int d = 0; d <= dim; d++) shape[d] = d == dim ? size : 1, from[d] = -1;
  return gather_node(B, iota(B, dim + 1, shape, dim, 0, 1, loc), dim, idx, from, wraps, loc);
}

/* x with each value of vals added at the point idx names: for every point
 * q of vals' shape in row-major order, out[p] += vals[q], p[dim] = idx[q]
 * and p[d] = q[d] elsewhere (idx has vals' shape, no larger than x's off
 * dim).  One add per value, in that order, each rounded to x's dtype: what
 * PyTorch's CPU loops do (index_put with accumulate, index_add,
 * scatter_add), so the sums are its sums.  The kernels add in place at the
 * index (an indexed store, lower.c): numel(vals) adds, however large x is.
 * An index outside x's dim is a run-time error, as a gather's. */
static GNode *scatter_add_node(Builder *B, GNode *x, int dim, GNode *idx, GNode *vals, bool wraps, SrcLoc loc) {
  if (!x || !idx || !vals) return NULL; /* an error is already reported */
  if (x->dtype == DT_BOOL) return fail(B, loc, "a sum at indices of a bool tensor is not supported");
  if (!shape_numel(vals->ndim, vals->shape)) return x;
  if (x->shape[dim] == 0) return fail(B, loc, "index out of range: dimension %d of the indexed tensor has size 0", dim);
  GNode *v = cast(B, vals, x->dtype, loc); /* before the node: inputs come first */
  if (!v) return NULL;
  GNode *n = new_node(B, OP_SCATTER_ADD, x->dtype, x->ndim, x->shape, loc);
  n->cdtype = opmath(x->dtype);
  n->in[0] = x;
  n->in[1] = idx;
  n->in[2] = v;
  n->nin = 3;
  n->dim = dim;
  n->wraps = wraps;
  return n;
}

/* x plus, at x's index idx[s] along dim, the values vals[..., s, ...]
 * (vals: x's shape with idx's dims in place of dim), summed in index order
 * where indices repeat: index_add, index_put with accumulate, an
 * embedding's backward.  idx is checked where it is used (an index
 * outside x's dim is a run-time error; a negative one too). */
static GNode *sum_at_indices(Builder *B, GNode *x, int dim, GNode *idx, GNode *vals, SrcLoc loc) {
  if (!x || !idx || !vals) return NULL;
  int R = x->ndim;
  int64_t S = shape_numel(idx->ndim, idx->shape), vshape[COIL_MAX_DIMS], ishape[COIL_MAX_DIMS];
  for (int d = 0; d < R; d++) vshape[d] = d == dim ? S : x->shape[d], ishape[d] = d == dim ? S : 1;
  GNode *v = reshape(B, vals, R, vshape, loc);
  GNode *i = expand(B, reshape(B, idx, R, ishape, loc), R, vshape, loc);
  return scatter_add_node(B, x, dim, i, v, false, loc);
}

/* The one index tensor of an index list (None elsewhere) and its dim. */
static GNode *one_index(Builder *B, Val *list, SrcLoc at, GNode *x, const char *fname, int *dim) {
  if (!list || list->kind != V_TUPLE) return fail(B, at, "%s: indices must be a list or tuple of tensors", fname);
  if (list->n > x->ndim) return fail(B, at, "too many indices for a tensor of dimension %d (%d given)", x->ndim, list->n);
  *dim = -1;
  for (int i = 0; i < list->n; i++) {
    if (list->items[i]->kind == V_NONE) continue;
    if (*dim >= 0) return fail(B, at, "%s with more than one index tensor is not supported", fname);
    *dim = i;
  }
  if (*dim < 0) return fail(B, at, "%s needs an index tensor", fname);
  return index_arg(B, list->items[*dim], at, fname, "an index tensor", true);
}

/* vals broadcast to x indexed along dim by idx (x[:, idx] has that shape). */
static GNode *values_for(Builder *B, Val *vv, SrcLoc at, GNode *x, int dim, GNode *idx, const char *fname) {
  if (!vv || (vv->kind != V_TENSOR && !is_num(vv))) return fail(B, at, "%s: values must be a tensor", fname);
  GNode *v = vv->kind == V_TENSOR ? vv->t : mkconst(B, x->dtype, vv->kind == V_FLOAT ? vv->f : (double)vv->i, vv->i, at);
  int64_t shape[COIL_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < dim; d++) shape[nd++] = x->shape[d];
  for (int k = 0; k < idx->ndim; k++) shape[nd++] = idx->shape[k];
  for (int d = dim + 1; d < x->ndim; d++) shape[nd++] = x->shape[d];
  if (v->ndim > nd) return fail(B, at, "%s: values of shape %s do not broadcast to the indexed shape %s", fname, shape_fmt(B->a, v->ndim, v->shape), shape_fmt(B->a, nd, shape));
  for (int d = 0; d < v->ndim; d++)
    if (v->shape[d] != 1 && v->shape[d] != shape[nd - v->ndim + d])
      return fail(B, at, "%s: values of shape %s do not broadcast to the indexed shape %s", fname, shape_fmt(B->a, v->ndim, v->shape),
                  shape_fmt(B->a, nd, shape));
  return expand(B, v, nd, shape, at);
}

/* ------------------------------------------------------------ index lists */

/* The index tensors of an index list (x[i, :, j]; the list of aten.index
 * and index_put, None for a dim not indexed): m tensors at dims dim[0] <
 * ... < dim[m - 1] of the indexed tensor, broadcast together to shape, as
 * PyTorch broadcasts them. */
typedef struct IndexList {
  int m, ndim;
  int dim[COIL_MAX_DIMS];
  GNode *idx[COIL_MAX_DIMS];
  int64_t shape[COIL_MAX_DIMS];
} IndexList;

static bool broadcast_indices(Builder *B, IndexList *L, SrcLoc at) {
  L->ndim = 0;
  for (int k = 0; k < L->m; k++) {
    const GNode *t = L->idx[k];
    int n = t->ndim > L->ndim ? t->ndim : L->ndim;
    int64_t out[COIL_MAX_DIMS];
    for (int i = 0; i < n; i++) {
      int64_t a = i < n - L->ndim ? 1 : L->shape[i - (n - L->ndim)], b = i < n - t->ndim ? 1 : t->shape[i - (n - t->ndim)];
      if (a != b && a != 1 && b != 1) {
        char *shapes = "";
        for (int j = 0; j < L->m; j++)
          shapes = arena_printf(B->a, "%s%s%s", shapes, j ? ", " : "", shape_fmt(B->a, L->idx[j]->ndim, L->idx[j]->shape));
        return fail(B, at, "shape mismatch: indexing tensors could not be broadcast together with shapes %s", shapes), false;
      }
      out[i] = a == 1 ? b : a;
    }
    memcpy(L->shape, out, sizeof(int64_t) * (size_t)n);
    L->ndim = n;
  }
  for (int k = 0; k < L->m; k++)
    if (!(L->idx[k] = expand(B, L->idx[k], L->ndim, L->shape, at))) return false;
  return true;
}

/* aten's list of indices for x, None where a dim is not indexed. */
static bool index_list(Builder *B, Val *list, SrcLoc at, GNode *x, const char *fname, IndexList *L) {
  if (!list || list->kind != V_TUPLE) return fail(B, at, "%s: indices must be a list or tuple of tensors", fname), false;
  if (list->n > x->ndim) return fail(B, at, "too many indices for a tensor of dimension %d (%d given)", x->ndim, list->n), false;
  L->m = 0;
  for (int i = 0; i < list->n; i++) {
    if (list->items[i]->kind == V_NONE) continue;
    if (!(L->idx[L->m] = index_arg(B, list->items[i], at, fname, "an index tensor", true))) return false;
    L->dim[L->m++] = i;
  }
  return broadcast_indices(B, L, at);
}

/* x with the indexed dims merged into one at *fdim (row-major, the first
 * slowest).  PyTorch puts the broadcast index's dims where the indexed dims
 * were when these are adjacent, and first otherwise: so the merged dim
 * stays in place where they are adjacent, and otherwise the indexed dims
 * go first (a permute, *perm; the others after them in order).  Reading
 * the merged tensor along *fdim at linear_index's positions gives
 * PyTorch's result and its layout. */
static GNode *merge_indexed(Builder *B, GNode *x, const IndexList *L, int *perm, int *fdim, SrcLoc loc) {
  bool adjacent = L->dim[L->m - 1] - L->dim[0] == L->m - 1;
  int n = 0;
  for (int k = 0; k < L->m && !adjacent; k++) perm[n++] = L->dim[k];
  for (int d = 0; d < x->ndim; d++) {
    bool indexed = false;
    for (int k = 0; k < L->m; k++) indexed |= L->dim[k] == d;
    if (adjacent || !indexed) perm[n++] = d;
  }
  *fdim = adjacent ? L->dim[0] : 0;
  GNode *p = permute(B, x, perm, loc);
  if (!p) return NULL;
  int64_t shape[COIL_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (d > *fdim && d < *fdim + L->m) shape[nd - 1] *= p->shape[d];
    else shape[nd++] = p->shape[d];
  }
  return reshape(B, p, nd, shape, loc);
}

/* The position in merge_indexed's merged dim that the index tensors name
 * together: each index checked against its own dim of x (a negative one
 * counted from the end first where wraps), so that an index out of range
 * is an error that names the dim and the size it is outside of, never a
 * position inside another row. */
static GNode *linear_index(Builder *B, GNode *x, const IndexList *L, bool wraps, SrcLoc loc) {
  GNode *lin = NULL;
  int64_t stride = 1;
  for (int k = L->m - 1; k >= 0; k--) {
    int d = L->dim[k];
    GNode *i = checked_index(B, L->idx[k], x->shape[d], d, wraps, loc);
    if (stride != 1) i = tci(B, OP_MUL, i, stride, loc);
    lin = lin ? tt(B, OP_ADD, i, lin, loc) : i;
    stride *= x->shape[d];
  }
  return lin;
}

/* x[indices]: one index tensor is one indexed read of x along its dim;
 * several are one indexed read of x with the indexed dims merged, at the
 * linear position they name together (merge_indexed gives the merged
 * tensor a buffer of its own: one pass over x, then a read per point of
 * the result). */
static GNode *read_at_indices(Builder *B, GNode *x, const IndexList *L, SrcLoc loc) {
  if (L->m == 1) return index_along(B, x, L->dim[0], L->idx[0], true, loc);
  int perm[COIL_MAX_DIMS], fdim;
  GNode *xm = merge_indexed(B, x, L, perm, &fdim, loc);
  GNode *lin = linear_index(B, x, L, true, loc);
  if (!xm || !lin) return NULL;
  return index_along(B, xm, fdim, lin, false, loc);
}

/* aten.index.Tensor(x, [None, ..., i, ..., j, ...]): x[:, ..., i, ..., j]
 * (a negative index counts from the end, as x[idx] does). */
static Val *b_index(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *list = arg(A, 0, "indices");
  SrcLoc at = arg_loc(A, 0, "indices");
  IndexList L;
  if (!list || !check_args(B, A, s->name, 1)) return list ? NULL : fail(B, at, "index: a list of indices is needed");
  if (!index_list(B, list, at, x, "index", &L)) return NULL;
  if (!L.m) return mktensor(B, x);
  return mktensor(B, read_at_indices(B, x, &L, loc));
}

/* aten._unsafe_masked_index(x, mask, indices, fill): x[indices] where mask
 * holds, fill elsewhere, every index clamped into its dim first (what
 * Inductor's decompositions make of the reflect pads' backward and of
 * masked gathers): a clamped index is always in range. */
static Val *b_masked_index(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *fname = "_unsafe_masked_index";
  Val *mv = arg(A, 0, "mask"), *fv = arg(A, 2, "fill");
  IndexList L;
  if (!index_list(B, arg(A, 1, "indices"), arg_loc(A, 1, "indices"), x, fname, &L) || !check_args(B, A, s->name, 3)) return NULL;
  if (!mv || mv->kind != V_TENSOR || mv->t->dtype != DT_BOOL) return fail(B, arg_loc(A, 0, "mask"), "%s: mask must be a bool tensor", fname);
  double f;
  int64_t iv;
  if (!fv || fv->kind == V_TENSOR || !is_num(fv)) return fail(B, arg_loc(A, 2, "fill"), "%s: fill must be a number", fname);
  if (!fill_of(B, fv, x->dtype, arg_loc(A, 2, "fill"), &f, &iv)) return NULL;
  for (int k = 0; k < L.m; k++) L.idx[k] = tci(B, OP_MINIMUM, tci(B, OP_MAXIMUM, L.idx[k], 0, loc), x->shape[L.dim[k]] - 1, loc);
  GNode *v = L.m ? read_at_indices(B, x, &L, loc) : x;
  if (!v) return NULL;
  GNode *m = expand(B, mv->t, v->ndim, v->shape, arg_loc(A, 0, "mask"));
  return m ? mktensor(B, twhere(B, m, v, mkconst(B, x->dtype, f, iv, loc), loc)) : NULL;
}

/* x with, at x's index idx[s] along dim, the values vals[..., s, ...]
 * (vals: x's shape with idx's dims in place of dim), and where indices
 * repeat, the value of the last s in row-major order: what a loop of writes
 * in index order leaves, PyTorch's CPU result (PyTorch leaves the winner
 * unspecified; this rule is the same on every target).  Where fillv is
 * given, that value at every named point instead.  idx is in range
 * already.  Dense, as sum_at_indices is, but over dim only: for each
 * position along dim the largest s whose index names it (an amax of
 * where(hit, s, -1): size(dim) * idx.numel() selections), then an indexed
 * read of the values there; x where no index names the point. */
static GNode *last_at_indices(Builder *B, GNode *x, int dim, GNode *idx, GNode *vals, GNode *fillv, SrcLoc loc) {
  if (!x || !idx || (!vals && !fillv)) return NULL;
  int R = x->ndim;
  int64_t K = shape_numel(idx->ndim, idx->shape);
  if (K == 0) return x;
  if (R + 1 > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS - 1);
  int64_t big[COIL_MAX_DIMS], ishape[COIL_MAX_DIMS], vshape[COIL_MAX_DIMS];
  for (int d = 0; d < R; d++) big[d] = x->shape[d], ishape[d] = 1, vshape[d] = d == dim ? K : x->shape[d];
  big[R] = ishape[R] = K;
  /* [1, .., size(dim), .., 1, K]: whether index s names the position */
  GNode *hit = tt(B, OP_EQ, reshape(B, idx, R + 1, ishape, loc), iota(B, R + 1, big, dim, 0, 1, loc), loc);
  GNode *pos = twhere(B, hit, iota(B, R + 1, big, R, 0, 1, loc), mkconst(B, DT_I64, 0, -1, loc), loc);
  GNode *last = reduce(B, OP_AMAX, pos, 1u << R, false, loc);
  if (!last) return NULL;
  GNode *named = ti(B, OP_GE, last, 0, loc);
  if (fillv) return twhere(B, named, cast(B, fillv, x->dtype, loc), x, loc);
  int from[COIL_MAX_DIMS];
  for (int d = 0; d < R; d++) from[d] = d;
  GNode *v = reshape(B, cast(B, vals, x->dtype, loc), R, vshape, loc);
  GNode *at = expand(B, tci(B, OP_MAXIMUM, last, 0, loc), R, x->shape, loc);
  return twhere(B, named, gather_node(B, v, dim, at, from, false, loc), x, loc);
}

/* x with values put at the points the index list names: summed in
 * (accumulate; sum_at_indices) or written (last_at_indices), on x with the
 * indexed dims merged (merge_indexed, a view), then laid back out as x. */
static GNode *put_at_indices(Builder *B, GNode *x, const IndexList *L, Val *vv, SrcLoc vat, bool acc, const char *fname, SrcLoc loc) {
  int perm[COIL_MAX_DIMS], inv[COIL_MAX_DIMS], fdim;
  GNode *xm = merge_indexed(B, x, L, perm, &fdim, loc);
  GNode *lin = linear_index(B, x, L, true, loc);
  if (!xm || !lin) return NULL;
  GNode *vals = values_for(B, vv, vat, xm, fdim, lin, fname);
  if (!vals) return NULL;
  GNode *r = acc ? sum_at_indices(B, xm, fdim, lin, vals, loc) : last_at_indices(B, xm, fdim, lin, vals, NULL, loc);
  if (!r) return NULL;
  int64_t pshape[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) pshape[d] = x->shape[perm[d]], inv[perm[d]] = d;
  return permute(B, reshape(B, r, x->ndim, pshape, loc), inv, loc);
}

/* index_put(x, indices, values, accumulate=False): x with values at the
 * points x[indices] reads (every index tensor, broadcast together; a
 * negative index counts from the end), summed in with accumulate, written
 * otherwise (where indices repeat, the last in index order wins, as on
 * PyTorch's CPU). */
static Val *b_index_put(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *fname = "index_put";
  IndexList L;
  if (!index_list(B, arg(A, 0, "indices"), arg_loc(A, 0, "indices"), x, fname, &L)) return NULL;
  if (!L.m) return fail(B, arg_loc(A, 0, "indices"), "%s needs an index tensor", fname);
  Val *vv = arg(A, 1, "values");
  bool acc = get_bool(B, arg(A, 2, "accumulate"), arg_loc(A, 2, "accumulate"), "accumulate", false);
  if (B->err || !check_args(B, A, s->name, 3)) return NULL;
  return mktensor(B, put_at_indices(B, x, &L, vv, arg_loc(A, 1, "values"), acc, fname, loc));
}

/* aten._unsafe_masked_index_put_accumulate(x, mask, indices, values): what
 * Inductor's decompositions make of an embedding's backward: indices
 * clamped into [-size, size), values where mask holds (0 elsewhere),
 * summed in at the indices. */
static Val *b_masked_index_put(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *fname = "_unsafe_masked_index_put_accumulate";
  Val *mv = arg(A, 0, "mask");
  int dim = 0;
  GNode *idx = one_index(B, arg(A, 1, "indices"), arg_loc(A, 1, "indices"), x, fname, &dim);
  if (!idx) return NULL;
  GNode *vals = values_for(B, arg(A, 2, "values"), arg_loc(A, 2, "values"), x, dim, idx, fname);
  if (!vals || !check_args(B, A, s->name, 3)) return NULL;
  if (!mv || mv->kind != V_TENSOR || mv->t->dtype != DT_BOOL) return fail(B, arg_loc(A, 0, "mask"), "%s: mask must be a bool tensor", fname);
  int64_t n = x->shape[dim];
  GNode *i = tci(B, OP_MINIMUM, tci(B, OP_MAXIMUM, idx, -n, loc), n - 1, loc);
  i = twhere(B, ti(B, OP_LT, i, 0, loc), tci(B, OP_ADD, i, n, loc), i, loc);
  GNode *m = expand(B, mv->t, vals->ndim, vals->shape, loc);
  if (!m) return NULL;
  return mktensor(B, sum_at_indices(B, x, dim, i, twhere(B, m, vals, mkconst(B, vals->dtype, 0, 0, loc), loc), loc));
}

/* index_add(x, dim, index, source, alpha=1): x with alpha * source's
 * slices summed in at the 1-D index's positions along dim. */
static Val *b_index_add(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int dim;
  if (!dim_arg(B, A, 0, x, 0, &dim)) return NULL;
  GNode *idx = index_arg(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), "index_add()", "index", true);
  Val *src = arg(A, 2, "source"), *alpha = arg(A, 3, "alpha");
  if (!idx || !check_args(B, A, s->name, 4)) return NULL;
  if (idx->ndim > 1) return fail(B, arg_loc(A, 1, "index"), "index_add(): index is supposed to be a vector, got %d dimensions", idx->ndim);
  if (!src || src->kind != V_TENSOR) return fail(B, arg_loc(A, 2, "source"), "index_add(): source must be a tensor");
  int64_t n = shape_numel(idx->ndim, idx->shape), want[COIL_MAX_DIMS];
  memcpy(want, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  want[dim] = n;
  GNode *t = src->t;
  if (t->ndim != x->ndim || memcmp(t->shape, want, sizeof(int64_t) * (size_t)x->ndim))
    return fail(B, arg_loc(A, 2, "source"), "index_add(): source of shape %s, expected %s", shape_fmt(B->a, t->ndim, t->shape),
                shape_fmt(B->a, x->ndim, want));
  if (alpha) {
    Val vt = {.kind = V_TENSOR, .t = cast(B, t, x->dtype, loc)};
    if (!is_num(alpha) || alpha->kind == V_TENSOR) return fail(B, arg_loc(A, 3, "alpha"), "index_add(): alpha must be a number");
    t = arith(B, OP_MUL, &vt, alpha, loc);
  }
  GNode *flat = reshape(B, idx, 1, &n, loc);
  return mktensor(B, sum_at_indices(B, x, dim, flat, t, loc)); /* the indexed store checks the index */
}

/* index_copy(x, dim, index, source): x with source's slices written at the
 * 1-D index's positions along dim (where indices repeat, the last one's, as
 * PyTorch's CPU loop leaves them; last_at_indices); index_fill(x, dim,
 * index, value): value (a number or a 0-d tensor) at those positions, a
 * negative index counted from the end (index_copy's is an error, as in
 * PyTorch). */
static Val *b_index_copy(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool fill = !strncmp(s->name, "index_fill", 10);
  const char *fname = fill ? "index_fill()" : "index_copy()";
  int dim;
  if (!x->ndim) return fail(B, loc, "%s of a 0-d tensor is not supported (unsqueeze it first)", fname);
  if (!dim_arg(B, A, 0, x, 0, &dim)) return NULL;
  GNode *idx = index_arg(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), fname, "index", false);
  Val *src = arg(A, 2, fill ? "value" : "source");
  SrcLoc sat = arg_loc(A, 2, fill ? "value" : "source");
  if (!idx || !check_args(B, A, s->name, 3)) return NULL;
  if (idx->ndim > 1) return fail(B, arg_loc(A, 1, "index"), "%s: index is supposed to be a vector, got %d dimensions", fname, idx->ndim);
  if (!src) return fail(B, sat, "%s: missing argument '%s'", fname, fill ? "value" : "source");
  int64_t n = shape_numel(idx->ndim, idx->shape);
  GNode *i = checked_index(B, reshape(B, idx, 1, &n, loc), x->shape[dim], dim, fill, loc);
  if (fill) {
    GNode *v;
    if (src->kind == V_TENSOR) {
      if (src->t->ndim) return fail(B, sat, "%s: only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)", fname,
                                    src->t->ndim);
      v = src->t;
    } else {
      double f;
      int64_t iv;
      if (!is_num(src)) return fail(B, sat, "%s: value must be a number", fname);
      if (!fill_of(B, src, x->dtype, sat, &f, &iv)) return NULL;
      v = mkconst(B, x->dtype, f, iv, sat);
    }
    return mktensor(B, last_at_indices(B, x, dim, i, NULL, v, loc));
  }
  if (src->kind != V_TENSOR) return fail(B, sat, "%s: source must be a tensor", fname);
  int64_t want[COIL_MAX_DIMS];
  memcpy(want, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  if (x->ndim) want[dim] = n;
  GNode *t = src->t;
  if (t->ndim != x->ndim || memcmp(t->shape, want, sizeof(int64_t) * (size_t)x->ndim))
    return fail(B, sat, "%s: source of shape %s, expected %s", fname, shape_fmt(B->a, t->ndim, t->shape), shape_fmt(B->a, x->ndim, want));
  return mktensor(B, last_at_indices(B, x, dim, i, t, NULL, loc));
}

/* Per-element writes (scatter): index has x's rank and is no larger than x
 * in any dim but dim; the element k of index's line at q names x's
 * position along dim for q's element of src.  The result is, in the
 * index's box (index's shape, x's size along dim), the last k whose index
 * names the point (-1: none), and *hit the same padded to x's shape with
 * -1. */
static GNode *spread_at_index(Builder *B, GNode *x, int dim, GNode *index, GNode **hit, SrcLoc loc) {
  int R = x->ndim;
  if (R + 1 > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS - 1);
  int64_t K = index->shape[dim], small[COIL_MAX_DIMS], big[COIL_MAX_DIMS], zero[COIL_MAX_DIMS] = {0};
  int perm[COIL_MAX_DIMS];
  for (int d = 0; d < R; d++) {
    small[d] = d == dim ? 1 : index->shape[d];
    big[d] = x->shape[d];
    perm[d] = d < dim ? d : d < R - 1 ? d + 1 : dim; /* index's dim last */
  }
  small[R] = big[R] = K;
  GNode *line = reshape(B, permute(B, checked_index(B, index, x->shape[dim], dim, false, loc), perm, loc), R + 1, small, loc);
  int64_t within[COIL_MAX_DIMS];
  memcpy(within, small, sizeof(int64_t) * (size_t)(R + 1));
  within[dim] = x->shape[dim];
  GNode *h = tt(B, OP_EQ, line, iota(B, R + 1, within, dim, 0, 1, loc), loc);
  if (!h) return NULL;
  h = expand(B, h, R + 1, within, loc);
  GNode *pos = twhere(B, h, iota(B, R + 1, within, R, 0, 1, loc), mkconst(B, DT_I64, 0, -1, loc), loc);
  GNode *last = reduce(B, OP_AMAX, pos, 1u << R, false, loc);
  if (!last) return NULL;
  *hit = pad(B, last, zero, big, 0, -1, loc);
  return last;
}

static bool scatter_args(Builder *B, Args *A, GNode *x, const char *fname, int *dim, GNode **index) {
  if (!dim_arg(B, A, 0, x, 0, dim)) return false;
  if (!(*index = index_arg(B, arg(A, 1, "index"), arg_loc(A, 1, "index"), fname, "index", false))) return false;
  GNode *ix = *index;
  if (ix->ndim != x->ndim)
    return fail(B, arg_loc(A, 1, "index"), "%s: index tensor must have the same number of dimensions as self tensor", fname), false;
  for (int d = 0; d < x->ndim; d++)
    if (d != *dim && ix->shape[d] > x->shape[d])
      return fail(B, arg_loc(A, 1, "index"), "%s: expected index %s to be no larger than self %s apart from dimension %d", fname,
                  shape_fmt(B->a, ix->ndim, ix->shape), shape_fmt(B->a, x->ndim, x->shape), *dim), false;
  return true;
}

/* scatter(x, dim, index, value): x with value at every position index
 * names; scatter(x, dim, index, src): src's element at each position of
 * index's box written where its index names, and where indices repeat
 * along a line, the last one's (PyTorch leaves the winner unspecified; its
 * CPU loop leaves the last, and so does coil on every target: an amax of
 * the positions that name the point, then an indexed read of src there,
 * index.numel() * x.size(dim) selections).  scatter_add(x, dim, index,
 * src): src's elements summed in where the index names, in index order
 * (scatter_add_node). */
static Val *b_scatter(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool add = !strncmp(s->name, "scatter_add", 11);
  const char *fname = add ? "scatter_add()" : "scatter()";
  int dim;
  GNode *index;
  if (!scatter_args(B, A, x, fname, &dim, &index)) return NULL;
  Val *src = arg(A, 2, "src");
  if (!src && !add) src = arg(A, 2, "value");
  Val *red = arg(A, 3, "reduce");
  if (!src || B->err || !check_args(B, A, s->name, 3)) return NULL;
  if (red && red->kind != V_NONE) return fail(B, arg_loc(A, 3, "reduce"), "%s: reduce= is not supported", fname);
  if (!shape_numel(index->ndim, index->shape)) return mktensor(B, x); /* nothing written (an amax over no k has no identity) */
  GNode *hit = NULL, *t;
  if (add || src->kind == V_TENSOR) {
    if (src->kind != V_TENSOR) return fail(B, arg_loc(A, 2, "src"), "%s: src must be a tensor", fname);
    t = src->t;
    for (int d = 0; d < x->ndim; d++)
      if (t->ndim != x->ndim || t->shape[d] < index->shape[d])
        return fail(B, arg_loc(A, 2, "src"), "%s: expected src %s to be no smaller than index %s", fname, shape_fmt(B->a, t->ndim, t->shape),
                    shape_fmt(B->a, index->ndim, index->shape));
    if (!add) {
      GNode *last = spread_at_index(B, x, dim, index, &hit, loc);
      if (!last) return NULL;
      int from[COIL_MAX_DIMS];
      int64_t start[COIL_MAX_DIMS] = {0};
      for (int d = 0; d < x->ndim; d++) from[d] = d;
      GNode *picked = gather_node(B, cast(B, t, x->dtype, loc), dim, tci(B, OP_MAXIMUM, last, 0, loc), from, false, loc);
      return mktensor(B, twhere(B, ti(B, OP_GE, hit, 0, loc), pad(B, picked, start, x->shape, 0, 0, loc), x, loc));
    }
    int64_t zero[COIL_MAX_DIMS] = {0};
    t = slice(B, cast(B, t, x->dtype, loc), zero, index->shape, loc);
    return mktensor(B, scatter_add_node(B, x, dim, index, t, false, loc));
  } else {
    if (!is_num(src)) return fail(B, arg_loc(A, 2, "value"), "%s: value must be a number", fname);
    t = mkconst(B, x->dtype, src->kind == V_FLOAT ? src->f : (double)src->i, src->i, loc);
  }
  if (!spread_at_index(B, x, dim, index, &hit, loc)) return NULL;
  return mktensor(B, twhere(B, ti(B, OP_GE, hit, 0, loc), t, x, loc));
}

/* Ops whose result's shape the data decides: refused with the reason
 * (coil compiles for shapes known when compiling). */
static Val *b_data_shape(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  (void)x, (void)A;
  return fail(B, loc, "%s: the result's shape depends on the data; coil compiles for shapes known when compiling "
              "(keep the shape: torch.where(mask, x, 0), or sum the selected values)", s->name);
}

/* ------------------------------------------------------------ losses against class indices */

/* nll_loss's pieces for log-probabilities logp (classes along dim 1, or 0
 * for one sample) and int64 class indices: each element's loss, -w[t] *
 * logp[t], and the weight it counts with in a mean, w[t]; both 0 where t
 * is ignore_index.  Any other index outside [0, C) is an error when the
 * kernel runs (an indexed read checks it). */
static bool nll_parts(Builder *B, GNode *logp, GNode *target, GNode *w, int64_t ignore, SrcLoc tloc, SrcLoc loc, GNode **loss, GNode **wt) {
  int cdim = logp->ndim >= 2 ? 1 : 0;
  int64_t want[COIL_MAX_DIMS], one[COIL_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < logp->ndim; d++) {
    one[d] = d == cdim ? 1 : logp->shape[d];
    if (d != cdim) want[nd++] = logp->shape[d];
  }
  if (target->ndim != nd || memcmp(target->shape, want, sizeof(int64_t) * (size_t)nd))
    return fail(B, tloc, "nll_loss: target of shape %s for input of shape %s (expected %s)", shape_fmt(B->a, target->ndim, target->shape),
                shape_fmt(B->a, logp->ndim, logp->shape), shape_fmt(B->a, nd, want)), false;
  if (target->dtype != DT_I64)
    return fail(B, tloc, "nll_loss: expected class indices of dtype int64, got %s (probabilities: a float target of the input's shape)",
                dtype_name(target->dtype)), false;
  GNode *ign = ti(B, OP_EQ, target, ignore, loc);
  GNode *safe = twhere(B, ign, mkconst(B, DT_I64, 0, 0, loc), target, loc);
  int from[COIL_MAX_DIMS];
  for (int d = 0; d < logp->ndim; d++) from[d] = d;
  GNode *picked = reshape(B, gather_node(B, logp, cdim, reshape(B, safe, logp->ndim, one, loc), from, false, loc), nd, want, loc);
  GNode *weight = w ? index_along(B, w, 0, safe, false, loc) : mkconst(B, logp->dtype, 1, 1, loc);
  if (!picked || !weight) return false;
  GNode *zero = mkconst(B, logp->dtype, 0, 0, loc);
  *loss = twhere(B, ign, zero, tneg(B, tt(B, OP_MUL, picked, cast(B, weight, logp->dtype, loc), loc), loc), loc);
  *wt = twhere(B, ign, zero, expand(B, cast(B, weight, logp->dtype, loc), nd, want, loc), loc);
  return *loss && *wt;
}

static GNode *sum_all(Builder *B, GNode *x, SrcLoc loc) {
  return cast(B, reduce(B, OP_SUM, x, x->ndim ? (uint32_t)((1u << x->ndim) - 1) : 0, false, loc), x->dtype, loc);
}

/* F.nll_loss(input, target, weight=None, size_average=None,
 * ignore_index=-100, reduce=None, reduction='mean') and F.cross_entropy(...,
 * label_smoothing=0.0) with class indices or, for cross_entropy, class
 * probabilities (a float target of the input's shape).  A mean over class
 * indices divides by the weights of the elements that count (NaN when none
 * does), as PyTorch's; label smoothing mixes in the loss against the
 * uniform distribution, weighted as PyTorch weights it. */
static Val *b_nll(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool ce = !strcmp(s->name, "cross_entropy");
  const char *fname = ce ? "cross_entropy" : "nll_loss";
  Val *tv = arg(A, 0, "target"), *wv = arg(A, 1, "weight"), *iv = arg(A, 3, "ignore_index"), *rv = arg(A, 5, "reduction");
  Val *sv = ce ? arg(A, 6, "label_smoothing") : NULL;
  Val *legacy[2] = {arg(A, 2, "size_average"), arg(A, 4, "reduce")};
  if (!check_args(B, A, s->name, ce ? 7 : 6)) return NULL;
  for (int i = 0; i < 2; i++)
    if (legacy[i] && legacy[i]->kind != V_NONE)
      return fail(B, arg_loc(A, i ? 4 : 2, i ? "reduce" : "size_average"), "%s: size_average and reduce are deprecated; use reduction=", fname);
  if (!tv || tv->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "target"), "%s: target must be a tensor", fname);
  if (!dtype_is_float(x->dtype)) return fail(B, loc, "%s: the input must be floating point, got %s", fname, dtype_name(x->dtype));
  if (x->ndim < 1) return fail(B, loc, "%s: the input needs a class dimension", fname);
  int cdim = x->ndim >= 2 ? 1 : 0;
  int64_t C = x->shape[cdim], ignore = -100;
  double eps = 0;
  if (iv && !get_int(B, iv, arg_loc(A, 3, "ignore_index"), "ignore_index", &ignore)) return NULL;
  if (sv && sv->kind != V_NONE && !num_value(B, sv, arg_loc(A, 6, "label_smoothing"), fname, &eps)) return NULL;
  if (eps < 0 || eps > 1) return fail(B, arg_loc(A, 6, "label_smoothing"), "%s: label_smoothing must be between 0.0 and 1.0", fname);
  const char *red = rv && rv->kind != V_NONE ? (rv->kind == V_STR ? rv->name : "") : "mean";
  if (strcmp(red, "mean") && strcmp(red, "sum") && strcmp(red, "none"))
    return fail(B, arg_loc(A, 5, "reduction"), "%s: reduction must be 'mean', 'sum' or 'none'", fname);
  GNode *w = NULL;
  if (wv && wv->kind != V_NONE) {
    if (wv->kind != V_TENSOR || wv->t->ndim != 1 || wv->t->shape[0] != C)
      return fail(B, arg_loc(A, 1, "weight"), "%s: weight must be a tensor of %lld class weights", fname, (long long)C);
    w = cast(B, wv->t, x->dtype, loc);
  }
  uint32_t cmask = 1u << cdim;
  GNode *logp = ce ? softmax(B, x, cmask, NULL, loc, true, loc) : x;
  if (!logp) return NULL;
  GNode *t = tv->t;
  int64_t wshape[COIL_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) wshape[d] = d == cdim ? C : 1;
  if (dtype_is_float(t->dtype)) { /* probabilities */
    if (!ce) return fail(B, arg_loc(A, 0, "target"), "nll_loss: expected class indices of dtype int64, got %s", dtype_name(t->dtype));
    if (t->ndim != x->ndim || memcmp(t->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim))
      return fail(B, arg_loc(A, 0, "target"), "cross_entropy: a probability target must have the input's shape %s, got %s",
                  shape_fmt(B->a, x->ndim, x->shape), shape_fmt(B->a, t->ndim, t->shape));
    GNode *p = cast(B, t, logp->dtype, loc);
    if (eps > 0) p = tc(B, OP_ADD, tc(B, OP_MUL, p, 1 - eps, loc), eps / (double)C, loc);
    GNode *term = tt(B, OP_MUL, logp, p, loc);
    if (w) term = tt(B, OP_MUL, term, reshape(B, w, x->ndim, wshape, loc), loc);
    GNode *l = tneg(B, cast(B, reduce(B, OP_SUM, term, cmask, false, loc), logp->dtype, loc), loc);
    if (!l) return NULL;
    if (!strcmp(red, "none")) return mktensor(B, l);
    GNode *sum = sum_all(B, l, loc);
    return mktensor(B, !strcmp(red, "sum") ? sum : tc(B, OP_DIV, sum, (double)(C ? shape_numel(x->ndim, x->shape) / C : 0), loc));
  }
  GNode *l, *wt;
  if (!nll_parts(B, logp, t, w, ignore, arg_loc(A, 0, "target"), loc, &l, &wt)) return NULL;
  GNode *nll = !strcmp(red, "none") ? l : !strcmp(red, "sum") ? sum_all(B, l, loc) : tt(B, OP_DIV, sum_all(B, l, loc), sum_all(B, wt, loc), loc);
  if (eps == 0) return mktensor(B, nll);
  /* label smoothing: the loss against the uniform distribution */
  GNode *term = w ? tt(B, OP_MUL, logp, reshape(B, w, x->ndim, wshape, loc), loc) : logp;
  GNode *smooth = tneg(B, cast(B, reduce(B, OP_SUM, term, cmask, false, loc), logp->dtype, loc), loc);
  smooth = twhere(B, ti(B, OP_EQ, t, ignore, loc), mkconst(B, logp->dtype, 0, 0, loc), smooth, loc);
  if (!smooth) return NULL;
  GNode *ret;
  if (!strcmp(red, "none")) ret = smooth;
  else if (!strcmp(red, "sum")) ret = sum_all(B, smooth, loc);
  else if (w) ret = tt(B, OP_DIV, sum_all(B, smooth, loc), sum_all(B, wt, loc), loc);
  else ret = tt(B, OP_DIV, sum_all(B, smooth, loc), sum_all(B, cast(B, ti(B, OP_NE, t, ignore, loc), logp->dtype, loc), loc), loc);
  return mktensor(B, tt(B, OP_ADD, tc(B, OP_MUL, nll, 1 - eps, loc), tc(B, OP_MUL, ret, eps / (double)C, loc), loc));
}

/* ------------------------------------------------------------ scans */

/* cumsum, cumprod, logcumsumexp, cummax and cummin along one dim.  A scan
 * is built from the reductions coil already has, so every target (C, both
 * Triton dialects, the executor) and the reference run it with no code of
 * their own:
 *   - a short axis (n <= 2 * SCAN_BLOCK) is dense: out[k] reduces x[j] over
 *     j <= k (a triangular where, the identity elsewhere), n work a point;
 *   - a longer one is cut into blocks of SCAN_BLOCK: each block's total
 *     (a reduction), the scan of those totals (the same builder, over
 *     n / SCAN_BLOCK: the recursion), shifted by one block (the totals
 *     before each block), combined with the dense scan inside the block.
 * That is about 2 * SCAN_BLOCK work a point however long the axis (the
 * levels shrink 16-fold), and kernels coil fuses as it fuses any reduction:
 * a block's totals get buffers, the dense scan and the combine are one
 * kernel writing the result.  The order of the additions is the blocks',
 * not PyTorch's left to right, so float sums round differently; f32 sums
 * and products accumulate in f64 (as PyTorch's CPU scans do) and bf16/f16
 * in f32, so that difference stays below the result's own rounding.
 *
 * cummax and cummin also give an index: the last position of the running
 * maximum (ties go to the later element) or of the last NaN, as PyTorch's
 * `x >= out || isnan(x)` loop does.  The scan carries (value, index) pairs:
 * the later pair wins when its value is NaN, or neither is NaN and its
 * value is >= (<=) the earlier one; that rule is associative, so blocks
 * combine like any scan.  The float values returned are read back from x
 * at the index, so a zero keeps the sign of the element PyTorch keeps. */

enum { SCAN_BLOCK = 16 };

typedef enum ScanKind { SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN, SCAN_LOGSUMEXP } ScanKind;

/* The identity of a scan in dtype dt, as a fill (f for floats, i else). */
static void scan_identity(ScanKind k, DType dt, double *f, int64_t *i) {
  bool fl = dtype_is_float(dt);
  int64_t lo = dt == DT_I32 ? INT32_MIN : dt == DT_BOOL ? 0 : INT64_MIN;
  int64_t hi = dt == DT_I32 ? INT32_MAX : dt == DT_BOOL ? 1 : INT64_MAX;
  *f = 0, *i = 0;
  switch (k) {
  case SCAN_SUM: break;
  case SCAN_PROD: *f = 1, *i = 1; break;
  case SCAN_MAX: case SCAN_LOGSUMEXP: if (fl) *f = -INFINITY; else *i = lo; break;
  case SCAN_MIN: if (fl) *f = INFINITY; else *i = hi; break;
  }
}

static GNode *scan_identity_const(Builder *B, ScanKind k, DType dt, SrcLoc loc) {
  double f;
  int64_t i;
  scan_identity(k, dt, &f, &i);
  return mkconst(B, dt, f, i, loc);
}

/* ------------------------------------------------------------ max pooling */

/* The most points a pooling window may have: the window is unrolled into
 * its points (one affine load each, no reduction axis), so its size is
 * bounded as a loop's is. */
#define POOL_MAX_POINTS 256

/* A 2-D pooling over the last two dims of x: kernel k, stride s, padding
 * p, dilation d (each [H, W]), and the output's size (out). */
typedef struct Pool {
  int64_t k[2], s[2], p[2], d[2], out[2];
} Pool;

/* One of pooling's int[2] arguments: an int, or a list of 1 or 2 (an empty
 * one, where empty_ok, is dflt: stride=[] means the kernel size). */
static bool pool_pair(Builder *B, Val *v, SrcLoc at, const char *what, const int64_t *dflt, bool empty_ok, int64_t *out) {
  if (!v || v->kind == V_NONE || (empty_ok && v->kind == V_TUPLE && v->n == 0)) {
    if (!dflt) return fail(B, at, "max_pool2d needs %s", what), false;
    out[0] = dflt[0], out[1] = dflt[1];
    return true;
  }
  if (v->kind == V_TUPLE && (v->n == 1 || v->n == 2)) {
    for (int i = 0; i < 2; i++)
      if (!get_int(B, v->items[i < v->n ? i : 0], at, what, &out[i])) return false;
    return true;
  }
  if (v->kind == V_TUPLE) return fail(B, at, "max_pool2d: %s must be an int or a list of 1 or 2 ints", what), false;
  if (!get_int(B, v, at, what, &out[0])) return false;
  out[1] = out[0];
  return true;
}

/* The arguments after x, (kernel_size, stride, padding, dilation,
 * ceil_mode) from argument first on, checked as PyTorch checks them, and
 * the output size (PyTorch's pooling_output_shape: with ceil_mode the last
 * window must still start inside the input or its left padding). */
static bool pool_args(Builder *B, GNode *x, Args *A, int first, Pool *P, SrcLoc loc) {
  static const int64_t zero[2] = {0, 0}, one[2] = {1, 1};
  SrcLoc kl = arg_loc(A, first, "kernel_size");
  if (!pool_pair(B, arg(A, first, "kernel_size"), kl, "kernel_size", NULL, false, P->k) ||
      !pool_pair(B, arg(A, first + 1, "stride"), arg_loc(A, first + 1, "stride"), "stride", P->k, true, P->s) ||
      !pool_pair(B, arg(A, first + 2, "padding"), arg_loc(A, first + 2, "padding"), "padding", zero, false, P->p) ||
      !pool_pair(B, arg(A, first + 3, "dilation"), arg_loc(A, first + 3, "dilation"), "dilation", one, false, P->d))
    return false;
  bool ceil = get_bool(B, arg(A, first + 4, "ceil_mode"), arg_loc(A, first + 4, "ceil_mode"), "ceil_mode", false);
  if (B->err) return false;
  if (x->ndim != 3 && x->ndim != 4)
    return fail(B, loc, "max_pool2d: expected a 3D or 4D input tensor, got %d dimensions", x->ndim), false;
  if (x->dtype == DT_BOOL) return fail(B, loc, "\"max_pool2d\" not implemented for 'Bool' (as in PyTorch)"), false;
  for (int i = 0; i < 2; i++) {
    if (P->k[i] <= 0 || P->s[i] <= 0 || P->d[i] <= 0)
      return fail(B, loc, "max_pool2d: kernel size, stride and dilation must be greater than zero, got kernel %lld, stride %lld, dilation %lld",
                  (long long)P->k[i], (long long)P->s[i], (long long)P->d[i]), false;
    int64_t span = (P->k[i] - 1) * P->d[i] + 1, in = x->shape[x->ndim - 2 + i];
    if (P->p[i] < 0 || P->p[i] > span / 2)
      return fail(B, loc, "max_pool2d: pad should be at most half of effective kernel size, but got pad=%lld, kernel_size=%lld and dilation=%lld",
                  (long long)P->p[i], (long long)P->k[i], (long long)P->d[i]), false;
    int64_t num = in + 2 * P->p[i] - span + (ceil ? P->s[i] - 1 : 0);
    int64_t out = (num < 0 ? -((-num + P->s[i] - 1) / P->s[i]) : num / P->s[i]) + 1;
    if (ceil && out > 0 && (out - 1) * P->s[i] >= in + P->p[i]) out--;
    if (out < 1 || in < 1)
      return fail(B, loc, "max_pool2d: the input's %s %lld gives an output of size %lld, which is too small", i ? "width" : "height",
                  (long long)in, (long long)out), false;
    P->out[i] = out;
  }
  if (P->k[0] * P->k[1] > POOL_MAX_POINTS)
    return fail(B, kl, "max_pool2d with a window of %lld points: coil unrolls windows of up to %d", (long long)(P->k[0] * P->k[1]),
                POOL_MAX_POINTS), false;
  return true;
}

/* Point (a, b) of every window: [..., OH, OW], the element x[..., oh*s0 -
 * p0 + a*d0, ow*s1 - p1 + b*d1], fill (f or i) where that lies outside x
 * (in the padding). */
static GNode *window_point(Builder *B, GNode *x, const Pool *P, int64_t a, int64_t b, double f, int64_t i, SrcLoc loc) {
  int n = x->ndim;
  int64_t start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)n);
  for (int j = 0; j < 2; j++) {
    start[n - 2 + j] = -P->p[j];
    shape[n - 2 + j] = (P->out[j] - 1) * P->s[j] + (P->k[j] - 1) * P->d[j] + 1;
  }
  GNode *t = pad(B, x, start, shape, f, i, loc);
  t = step_dim(B, t, n - 2, a * P->d[0], P->s[0], P->out[0], loc);
  return step_dim(B, t, n - 1, b * P->d[1], P->s[1], P->out[1], loc);
}

/* The flat index in x's (H, W) plane of window point (a, b), [OH, OW]:
 * (oh*s0 - p0 + a*d0) * W + ow*s1 - p1 + b*d1. */
static GNode *window_flat(Builder *B, const Pool *P, int64_t W, int64_t a, int64_t b, SrcLoc loc) {
  Val vh = {.kind = V_TENSOR, .t = iota(B, 2, P->out, 0, (a * P->d[0] - P->p[0]) * W, P->s[0] * W, loc)};
  Val vw = {.kind = V_TENSOR, .t = iota(B, 2, P->out, 1, b * P->d[1] - P->p[1], P->s[1], loc)};
  return arith(B, OP_ADD, &vh, &vw, loc);
}

/* max_pool2d of x: the maxima of the windows and (with_indices) the index
 * of each in the flattened (H, W) plane of x, as PyTorch's CPU kernel
 * gives them: it walks a window's points inside x in row-major order, and
 * a point replaces the maximum where it is greater or NaN (so ties keep
 * the first point, -0 before +0 included, and a NaN the last NaN).  The
 * window is unrolled into its points, one affine load each.  Without
 * indices the maximum is a fold of torch.maximum over the points in that
 * order, which keeps the same point.  With indices the walk itself is
 * unrolled: a running (maximum, index) pair that a point inside x takes
 * over where it is greater, NaN, or the first inside point of its window
 * (a window whose inside points are all the lowest value still names the
 * first of them).  Points in the padding read the lowest value and are
 * never taken.  The walk needs no comparison with the finished maximum:
 * an earlier form (hits equal to the maximum, picked first-to-last or,
 * for a NaN maximum, last-to-first) was miscompiled by Triton 3.6 on the
 * H200 at four or more elements per thread (docs/gpu.md, 2026-12-04). */
static Val *max_pool2d(Builder *B, GNode *x, const Pool *P, bool with_indices, SrcLoc loc) {
  int n = x->ndim;
  int64_t W = x->shape[n - 1], K = P->k[0] * P->k[1];
  double f;
  int64_t lo;
  scan_identity(SCAN_MAX, x->dtype, &f, &lo);
  if (!with_indices) {
    GNode *m = NULL;
    for (int64_t j = 0; j < K; j++) {
      GNode *pt = window_point(B, x, P, j / P->k[1], j % P->k[1], f, lo, loc);
      m = m ? tt(B, OP_MAXIMUM, pt, m, loc) : pt;
    }
    return m ? mktensor(B, m) : NULL;
  }
  int64_t plane[2] = {x->shape[n - 2], W};
  GNode *inside = expand(B, mkconst(B, DT_BOOL, 0, 1, loc), 2, plane, loc); /* padded with false */
  GNode *no = mkconst(B, DT_BOOL, 0, 0, loc);
  bool fl = dtype_is_float(x->dtype);
  /* The walk carries the offset of its point from the window's first point
   * (a constant per point), and the index is the first point's plus it:
   * an earlier walk that carried the flat index itself, one i64 select per
   * point, had its selects miscompiled by Triton 3.6 on the H200 at some
   * tiles (the values right, the indices a row off; docs/gpu.md,
   * 2026-12-04).  Inductor carries such offsets too. */
  DType odt = x->shape[n - 2] * W <= INT32_MAX ? DT_I32 : DT_I64;
  GNode *best = NULL, *off = NULL, *unseen = NULL; /* unseen: no inside point walked yet */
  for (int64_t j = 0; j < K; j++) {
    int64_t a = j / P->k[1], b = j % P->k[1];
    GNode *pt = window_point(B, x, P, a, b, f, lo, loc), *in = window_point(B, inside, P, a, b, 0, 0, loc);
    GNode *here = mkconst(B, odt, 0, a * P->d[0] * W + b * P->d[1], loc);
    if (!best) {
      best = pt, off = here, unseen = twhere(B, in, no, mkconst(B, DT_BOOL, 0, 1, loc), loc);
      continue;
    }
    GNode *wins = tt(B, OP_GT, pt, best, loc);
    if (fl) wins = tt(B, OP_OR, wins, tt(B, OP_NE, pt, pt, loc), loc);
    GNode *take = tt(B, OP_AND, in, tt(B, OP_OR, unseen, wins, loc), loc);
    best = twhere(B, take, pt, best, loc);
    off = twhere(B, take, here, off, loc);
    if (j + 1 < K) unseen = twhere(B, in, no, unseen, loc);
  }
  if (!best || !off) return NULL;
  GNode *idx = tt(B, OP_ADD, window_flat(B, P, W, 0, 0, loc), cast(B, off, DT_I64, loc), loc);
  if (!idx) return NULL;
  return named_pair(B, best, expand(B, idx, n, best->shape, loc), "values", "indices");
}

/* F.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
 * ceil_mode=False, return_indices=False), torch.max_pool2d (no indices),
 * aten.max_pool2d and aten.max_pool2d_with_indices ((values, indices)). */
static Val *b_max_pool2d(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool func = s->forms & SP_F, pair = !strcmp(s->name, "max_pool2d_with_indices");
  Pool P;
  if (!pool_args(B, x, A, 0, &P, loc)) return NULL;
  if (func) pair = get_bool(B, arg(A, 5, "return_indices"), arg_loc(A, 5, "return_indices"), "return_indices", false);
  if (!check_args(B, A, s->name, func ? 6 : 5) || B->err) return NULL;
  return max_pool2d(B, x, &P, pair, loc);
}

/* aten.max_pool2d_with_indices_backward(grad_output, self, kernel_size,
 * stride, padding, dilation, ceil_mode, indices): each gradient added at
 * its window's index in the (H, W) plane of a zero tensor of self's shape,
 * in the outputs' row-major order, each add in the gradient's dtype: PyTorch's
 * CPU loop. */
static Val *b_max_pool2d_backward(Builder *B, const Spelling *s, GNode *g, Args *A, SrcLoc loc) {
  Val *sv = arg(A, 0, "self"), *iv = arg(A, 6, "indices");
  if (!sv || sv->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "self"), "%s: self must be a tensor", s->name);
  if (!iv || iv->kind != V_TENSOR || iv->t->dtype != DT_I64)
    return fail(B, arg_loc(A, 6, "indices"), "%s: indices must be an int64 tensor", s->name);
  if (!check_args(B, A, s->name, 7)) return NULL;
  GNode *x = sv->t, *idx = iv->t;
  Pool P;
  if (!pool_args(B, x, A, 1, &P, loc)) return NULL;
  int n = x->ndim;
  int64_t want[COIL_MAX_DIMS];
  memcpy(want, x->shape, sizeof(int64_t) * (size_t)n);
  want[n - 2] = P.out[0], want[n - 1] = P.out[1];
  if (g->ndim != n || memcmp(g->shape, want, sizeof(int64_t) * (size_t)n) || idx->ndim != n ||
      memcmp(idx->shape, want, sizeof(int64_t) * (size_t)n))
    return fail(B, loc, "%s: grad_output %s and indices %s must have the pooling's output size %s", s->name,
                shape_fmt(B->a, g->ndim, g->shape), shape_fmt(B->a, idx->ndim, idx->shape), shape_fmt(B->a, n, want));
  int64_t lead = shape_numel(n - 2, x->shape), planes[2] = {lead, x->shape[n - 2] * x->shape[n - 1]}, outs[2] = {lead, P.out[0] * P.out[1]};
  GNode *zero = expand(B, mkconst(B, g->dtype, 0, 0, loc), 2, planes, loc);
  GNode *r = scatter_add_node(B, zero, 1, reshape(B, idx, 2, outs, loc), reshape(B, g, 2, outs, loc), false, loc);
  return r ? mktensor(B, reshape(B, r, n, x->shape, loc)) : NULL;
}


/* x's last dim n padded with the identity to nb * SCAN_BLOCK and split into
 * [nb, SCAN_BLOCK]. */
static GNode *scan_blocks(Builder *B, ScanKind k, GNode *x, int64_t nb, SrcLoc loc) {
  int nd = x->ndim;
  int64_t start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd - 1] = nb * SCAN_BLOCK;
  double f;
  int64_t i;
  scan_identity(k, x->dtype, &f, &i);
  GNode *p = pad(B, x, start, shape, f, i, loc);
  shape[nd - 1] = nb;
  shape[nd] = SCAN_BLOCK;
  return reshape(B, p, nd + 1, shape, loc);
}

/* x's last dim shifted one place later, fill first: the exclusive form of
 * an inclusive scan (the totals of the blocks before each block). */
static GNode *scan_shift(Builder *B, GNode *x, double f, int64_t i, SrcLoc loc) {
  int64_t start[COIL_MAX_DIMS] = {0};
  start[x->ndim - 1] = -1;
  return pad(B, x, start, x->shape, f, i, loc);
}

/* x [..., m] seen as [..., m (k), m (j)] at x[..., j], with the condition
 * j <= k. */
static GNode *scan_square(Builder *B, GNode *x, GNode **tri, SrcLoc loc) {
  int nd = x->ndim;
  int64_t m = x->shape[nd - 1], shape[COIL_MAX_DIMS];
  if (nd + 1 > COIL_MAX_DIMS) return fail(B, loc, "a scan of a %d-dim tensor needs more than %d dims inside coil", nd, COIL_MAX_DIMS);
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd - 1] = 1;
  shape[nd] = m;
  GNode *row = reshape(B, x, nd + 1, shape, loc);
  shape[nd - 1] = m;
  *tri = tt(B, OP_LE, iota(B, nd + 1, shape, nd, 0, 1, loc), iota(B, nd + 1, shape, nd - 1, 0, 1, loc), loc);
  return expand(B, row, nd + 1, shape, loc);
}

/* The inclusive scan of x along its last dim, dense: n work a point. */
static GNode *scan_dense(Builder *B, ScanKind k, GNode *x, SrcLoc loc) {
  GNode *tri, *sq = scan_square(B, x, &tri, loc);
  if (!sq) return NULL;
  GNode *w = twhere(B, tri, sq, scan_identity_const(B, k, x->dtype, loc), loc);
  uint32_t last = 1u << x->ndim;
  if (k == SCAN_LOGSUMEXP) return logsumexp(B, w, last, false, loc);
  Op op = k == SCAN_SUM ? OP_SUM : k == SCAN_PROD ? OP_PROD : k == SCAN_MAX ? OP_AMAX : OP_AMIN;
  return cast(B, reduce(B, op, w, last, false, loc), x->dtype, loc);
}

/* log(exp(a) + exp(b)) as PyTorch's scans combine it: the larger plus
 * log1p(exp(smaller - larger)), and a or b itself where both are the same
 * infinity (whose difference would be NaN); a NaN stays NaN. */
static GNode *log_add_exp(Builder *B, GNode *a, GNode *b, SrcLoc loc) {
  GNode *hi = tt(B, OP_MAXIMUM, a, b, loc), *lo = tt(B, OP_MINIMUM, a, b, loc);
  GNode *r = tt(B, OP_ADD, hi, float_unary(B, OP_LOG1P, float_unary(B, OP_EXP, tt(B, OP_SUB, lo, hi, loc), loc), loc), loc);
  GNode *same_inf = tt(B, OP_AND, tt(B, OP_EQ, lo, hi, loc), tc(B, OP_EQ, tabs(B, lo, loc), INFINITY, loc), loc);
  return twhere(B, same_inf, hi, r, loc);
}

static GNode *scan_combine(Builder *B, ScanKind k, GNode *before, GNode *x, SrcLoc loc) {
  switch (k) {
  case SCAN_SUM: return cast(B, tt(B, OP_ADD, before, x, loc), x->dtype, loc);
  case SCAN_PROD: return cast(B, tt(B, OP_MUL, before, x, loc), x->dtype, loc);
  case SCAN_MAX: return tt(B, OP_MAXIMUM, before, x, loc);
  case SCAN_MIN: return tt(B, OP_MINIMUM, before, x, loc);
  case SCAN_LOGSUMEXP: return log_add_exp(B, before, x, loc);
  }
  return NULL;
}

/* x's last dim unsplit from [nb, SCAN_BLOCK] and cut back to n. */
static GNode *scan_unblock(Builder *B, GNode *x, int64_t n, SrcLoc loc) {
  int nd = x->ndim - 1;
  int64_t shape[COIL_MAX_DIMS], start[COIL_MAX_DIMS] = {0};
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd - 1] = x->shape[nd - 1] * SCAN_BLOCK;
  GNode *flat = reshape(B, x, nd, shape, loc);
  shape[nd - 1] = n;
  return slice(B, flat, start, shape, loc);
}

/* The inclusive scan of x (in its accumulation dtype) along its last dim. */
static GNode *scan_last(Builder *B, ScanKind k, GNode *x, SrcLoc loc) {
  if (!x) return NULL;
  int nd = x->ndim;
  int64_t n = x->shape[nd - 1];
  if (n <= 2 * SCAN_BLOCK || shape_numel(nd, x->shape) == 0) return scan_dense(B, k, x, loc);
  if (nd + 2 > COIL_MAX_DIMS) return fail(B, loc, "a scan of a %d-dim tensor needs more than %d dims inside coil", nd, COIL_MAX_DIMS);
  int64_t nb = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  GNode *blocks = scan_blocks(B, k, x, nb, loc); /* [..., nb, B] */
  uint32_t last = 1u << nd;
  GNode *totals;
  if (k == SCAN_LOGSUMEXP) totals = logsumexp(B, blocks, last, false, loc);
  else totals = cast(B, reduce(B, k == SCAN_SUM ? OP_SUM : k == SCAN_PROD ? OP_PROD : k == SCAN_MAX ? OP_AMAX : OP_AMIN,
                               blocks, last, false, loc), x->dtype, loc);
  double f;
  int64_t i;
  scan_identity(k, x->dtype, &f, &i);
  GNode *before = scan_shift(B, scan_last(B, k, totals, loc), f, i, loc); /* [..., nb] */
  if (!before) return NULL;
  int64_t shape[COIL_MAX_DIMS];
  memcpy(shape, before->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd] = 1;
  GNode *r = scan_combine(B, k, reshape(B, before, nd + 1, shape, loc), scan_dense(B, k, blocks, loc), loc);
  return scan_unblock(B, r, n, loc);
}

/* Does a match b, NaN matching NaN (floats)? */
static GNode *scan_match(Builder *B, GNode *a, GNode *b, SrcLoc loc) {
  GNode *eq = tt(B, OP_EQ, a, b, loc);
  if (!dtype_is_float(a->dtype)) return eq;
  return tt(B, OP_OR, eq, tt(B, OP_AND, tt(B, OP_NE, a, a, loc), tt(B, OP_NE, b, b, loc), loc), loc);
}

/* Does the later pair's value v win over the earlier one's, p? */
static GNode *scan_later_wins(Builder *B, bool is_max, GNode *v, GNode *p, SrcLoc loc) {
  GNode *cmp = tt(B, is_max ? OP_GE : OP_LE, v, p, loc);
  if (!dtype_is_float(v->dtype)) return cmp;
  GNode *vnan = tt(B, OP_NE, v, v, loc), *pnum = tt(B, OP_EQ, p, p, loc);
  return tt(B, OP_OR, vnan, tt(B, OP_AND, pnum, cmp, loc), loc);
}

/* cummax (cummin) of x along its last dim: the values (*val, in x's dtype,
 * compared as PyTorch compares them) and the index (*idx, int64) of the
 * element each point's value came from. */
static void scan_arg_last(Builder *B, bool is_max, GNode *x, GNode **val, GNode **idx, SrcLoc loc) {
  *val = *idx = NULL;
  if (!x) return;
  ScanKind k = is_max ? SCAN_MAX : SCAN_MIN;
  int nd = x->ndim;
  int64_t n = x->shape[nd - 1], shape[COIL_MAX_DIMS];
  uint32_t last = 1u << nd;
  if (n <= 2 * SCAN_BLOCK || shape_numel(nd, x->shape) == 0) {
    GNode *tri, *sq = scan_square(B, x, &tri, loc);
    if (!sq) return;
    GNode *v = reduce(B, is_max ? OP_AMAX : OP_AMIN, twhere(B, tri, sq, scan_identity_const(B, k, x->dtype, loc), loc), last, false, loc);
    if (!v) return;
    /* the last j <= k whose element matches the point's value */
    memcpy(shape, v->shape, sizeof(int64_t) * (size_t)nd);
    shape[nd] = 1;
    GNode *hit = tt(B, OP_AND, tri, scan_match(B, sq, reshape(B, v, nd + 1, shape, loc), loc), loc);
    GNode *j = iota(B, nd + 1, sq->shape, nd, 0, 1, loc);
    *idx = reduce(B, OP_AMAX, twhere(B, hit, j, mkconst(B, DT_I64, 0, -1, loc), loc), last, false, loc);
    *val = v;
    return;
  }
  if (nd + 2 > COIL_MAX_DIMS) {
    fail(B, loc, "a scan of a %d-dim tensor needs more than %d dims inside coil", nd, COIL_MAX_DIMS);
    return;
  }
  int64_t nb = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  GNode *blocks = scan_blocks(B, k, x, nb, loc); /* [..., nb, B] */
  if (!blocks) return;
  /* each block's value and the (global) position of its last match, padding excluded */
  GNode *bv = reduce(B, is_max ? OP_AMAX : OP_AMIN, blocks, last, false, loc);
  if (!bv) return;
  memcpy(shape, bv->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd] = 1;
  GNode *pos = tt(B, OP_ADD, iota(B, nd + 1, blocks->shape, nd - 1, 0, SCAN_BLOCK, loc), iota(B, nd + 1, blocks->shape, nd, 0, 1, loc), loc);
  GNode *hit = tt(B, OP_AND, scan_match(B, blocks, reshape(B, bv, nd + 1, shape, loc), loc), ti(B, OP_LT, pos, n, loc), loc);
  GNode *bi = reduce(B, OP_AMAX, twhere(B, hit, pos, mkconst(B, DT_I64, 0, -1, loc), loc), last, false, loc);
  /* the running pairs of the blocks (their index is a block number) */
  GNode *pv, *pc;
  scan_arg_last(B, is_max, bv, &pv, &pc, loc);
  if (!pv || !bi) return;
  int from[COIL_MAX_DIMS];
  for (int d = 0; d < nd; d++) from[d] = d;
  GNode *pi = gather_node(B, bi, nd - 1, pc, from, false, loc);
  double f;
  int64_t fi;
  scan_identity(k, x->dtype, &f, &fi);
  GNode *before_v = reshape(B, scan_shift(B, pv, f, fi, loc), nd + 1, shape, loc);
  GNode *before_i = reshape(B, scan_shift(B, pi, 0, -1, loc), nd + 1, shape, loc);
  GNode *wv, *wi;
  scan_arg_last(B, is_max, blocks, &wv, &wi, loc); /* dense inside each block */
  if (!wv || !before_v || !before_i) return;
  GNode *later = scan_later_wins(B, is_max, wv, before_v, loc);
  GNode *base = iota(B, nd + 1, blocks->shape, nd - 1, 0, SCAN_BLOCK, loc);
  *val = scan_unblock(B, twhere(B, later, wv, before_v, loc), n, loc);
  *idx = scan_unblock(B, twhere(B, later, tt(B, OP_ADD, base, wi, loc), before_i, loc), n, loc);
}

/* x with dim moved last (back: the last dim moved back to dim). */
static GNode *scan_move(Builder *B, GNode *x, int dim, bool back, SrcLoc loc) {
  if (!x) return NULL;
  int perm[COIL_MAX_DIMS], nd = x->ndim;
  for (int d = 0; d < nd; d++) {
    if (!back) perm[d] = d == nd - 1 ? dim : d < dim ? d : d + 1;
    else perm[d] = d < dim ? d : d == dim ? nd - 1 : d - 1;
  }
  return permute(B, x, perm, loc);
}

/* The scan's dim (an int, normalised; a 0-d tensor scans as one element). */
static bool scan_dim(Builder *B, const char *name, Args *A, GNode *x, int *dim) {
  Val *dv = arg(A, 0, "dim");
  SrcLoc dl = arg_loc(A, 0, "dim");
  int64_t d;
  if (!dv) return fail(B, A->at, "%s() missing required argument 'dim'", name), false;
  if (!get_int(B, dv, dl, "dim", &d)) return false;
  *dim = norm_dim(B, d, x->ndim, dl);
  return *dim >= 0;
}

/* x as a tensor with at least one dim (a 0-d tensor as [1]). */
static GNode *scan_input(Builder *B, GNode *x, SrcLoc loc) {
  int64_t one = 1;
  return x->ndim ? x : reshape(B, x, 1, &one, loc);
}

/* cumsum, cumprod (op OP_SUM, OP_PROD): torch.cumsum(x, dim, *, dtype=None);
 * ints and bool give int64 unless dtype says otherwise; x is converted to
 * dtype first, as PyTorch does.  logcumsumexp (op OP_EXP): floats only. */
static Val *b_cumsum(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  const char *name = s->name;
  bool lse = s->op == OP_EXP;
  Val *dtv = lse ? NULL : arg(A, -1, "dtype");
  int dim;
  if (!scan_dim(B, name, A, x, &dim) || !check_args(B, A, name, 1) || B->err) return NULL;
  DType out = dtype_is_float(x->dtype) ? x->dtype : DT_I64;
  if (dtv && dtv->kind != V_NONE && !get_dtype(B, dtv, arg_loc(A, -1, "dtype"), &out)) return NULL;
  if (lse && !dtype_is_float(x->dtype))
    return fail(B, loc, "logcumsumexp of a %s tensor is not supported (as in PyTorch): it needs a floating-point tensor",
                dtype_name(x->dtype));
  /* PyTorch's CPU scans accumulate f32 in double, bf16 and f16 in float */
  if (shape_numel(x->ndim, x->shape) == 0) return mktensor(B, cast(B, x, out, loc));
  DType acc = out == DT_F32 ? DT_F64 : opmath(out);
  if (!dtype_is_float(out)) acc = DT_I64;
  GNode *src = scan_move(B, scan_input(B, cast(B, cast(B, x, out, loc), acc, loc), loc), x->ndim ? dim : 0, false, loc);
  GNode *r = scan_last(B, lse ? SCAN_LOGSUMEXP : s->op == OP_SUM ? SCAN_SUM : SCAN_PROD, src, loc);
  r = scan_move(B, r, x->ndim ? dim : 0, true, loc);
  if (r && !x->ndim) r = reshape(B, r, 0, NULL, loc);
  return mktensor(B, cast(B, r, out, loc));
}

/* cummax, cummin (op OP_ARGMAX, OP_ARGMIN): the named tuple (values,
 * indices) along dim. */
static Val *b_cummax(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  bool is_max = s->op == OP_ARGMAX;
  int dim;
  if (!scan_dim(B, s->name, A, x, &dim) || !check_args(B, A, s->name, 1) || B->err) return NULL;
  if (!x->ndim) return named_pair(B, x, mkconst(B, DT_I64, 0, 0, loc), "values", "indices");
  if (shape_numel(x->ndim, x->shape) == 0) return named_pair(B, x, cast(B, x, DT_I64, loc), "values", "indices");
  /* bools scan as ints (0 and 1 compare as False and True) */
  GNode *src = scan_move(B, cast(B, x, x->dtype == DT_BOOL ? DT_I32 : x->dtype, loc), dim, false, loc);
  GNode *v, *i;
  scan_arg_last(B, is_max, src, &v, &i, loc);
  if (!v || !i) return NULL;
  if (dtype_is_float(x->dtype)) {
    int from[COIL_MAX_DIMS];
    for (int d = 0; d < src->ndim; d++) from[d] = d;
    v = gather_node(B, src, src->ndim - 1, i, from, false, loc);
  }
  return named_pair(B, cast(B, scan_move(B, v, dim, true, loc), x->dtype, loc), scan_move(B, i, dim, true, loc), "values", "indices");
}

/* ------------------------------------------------------------ more ops */

/* The vocabulary of model code that is a composite of what coil has
 * (issue 22): causal masks (triu, tril), the log-space sums (logaddexp,
 * logaddexp2), xlogy, rsub, outer, the diagonal family (diagonal, trace,
 * diag, diag_embed), diff, and deg2rad, rad2deg, heaviside, sinc.  Each is
 * built from index values, wheres, views and reductions, so every target
 * and the reference run it with no code of their own; each follows the
 * formula of PyTorch's CPU kernel (its special cases, its dtype rules, the
 * dtype it computes in), so NaN, the infinities and -0 come out as there. */

/* triu and tril (diagonal=k) over the last two dims: x where the column
 * minus the row is >= k (triu) or <= k (tril), a 0 of x's dtype elsewhere
 * (a fill: a NaN outside the triangle gives 0, -0 inside stays -0). */
static Val *b_triangle(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t k = 0;
  Val *kv = arg(A, 0, "diagonal");
  if ((kv && !get_int(B, kv, arg_loc(A, 0, "diagonal"), "diagonal", &k)) || !check_args(B, A, s->name, 1)) return NULL;
  if (x->ndim < 2) return fail(B, loc, "%s: input tensor must have at least 2 dimensions (as in PyTorch)", s->name);
  int nd = x->ndim;
  GNode *d = tt(B, OP_SUB, iota(B, nd, x->shape, nd - 1, 0, 1, loc), iota(B, nd, x->shape, nd - 2, 0, 1, loc), loc);
  GNode *keep = ti(B, !strcmp(s->name, "triu") ? OP_GE : OP_LE, d, k, loc);
  return mktensor(B, twhere(B, keep, x, mkconst(B, x->dtype, 0, 0, loc), loc));
}

/* The two operands of a float binary op (logaddexp, logaddexp2, xlogy), in
 * the compute dtype of their result_type (ints and bool: float32, when
 * ints_float; else refused, as PyTorch's kernels are not built for them).
 * A Python number is rounded to a bf16/f16 result's dtype first, as
 * TensorIterator converts a wrapped scalar to the common dtype. */
static bool float_pair(Builder *B, const Spelling *s, GNode *x, Args *A, bool ints_float, GNode **pa, GNode **pb, DType *pdt, SrcLoc loc) {
  Val vx, *a, *b;
  if (!two_operands(B, s, x, A, &vx, &a, &b, loc)) return false;
  Val *vs[2] = {a, b};
  DType dt = result_type(vs, 2);
  if (!dtype_is_float(dt)) {
    if (!ints_float)
      return fail(B, loc, "%s of %s tensors is not supported (as in PyTorch): it needs floating-point tensors", s->name, dtype_name(dt)), false;
    dt = DT_F32;
  }
  Val rounded[2];
  for (int i = 0; i < 2; i++)
    if (vs[i]->kind != V_TENSOR) {
      rounded[i] = (Val){.kind = V_FLOAT, .f = dtype_round(dt, vs[i]->kind == V_FLOAT ? vs[i]->f : (double)vs[i]->i)};
      vs[i] = &rounded[i];
    }
  *pa = as_dtype(B, vs[0], opmath(dt), loc);
  *pb = as_dtype(B, vs[1], opmath(dt), loc);
  *pdt = dt;
  return *pa && *pb;
}

/* logaddexp(a, b) and logaddexp2: PyTorch's kernel is
 *     a == b and infinite ? a : max + log1p(exp(-|a - b|))
 * (logaddexp2: log1p(exp2(-|a - b|)) / ln 2), in f32 for bf16 and f16,
 * rounded once; a NaN gives NaN, -inf and -inf give -inf.  (f64's last
 * step is an fma in PyTorch's kernel too, which coil has no op for: where
 * the sum cancels, coil's f64 logaddexp2 gives 0 and PyTorch 1e-17.)  Both operands
 * are tensors in PyTorch (other: a number is a TypeError there). */
static Val *b_logaddexp(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *o = arg(A, 0, "other");
  if (o && o->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, "other"), "%s expects a tensor as its second argument, got %s (as in PyTorch)", s->name, kind_name(o));
  GNode *a, *b;
  DType dt;
  if (!float_pair(B, s, x, A, false, &a, &b, &dt, loc)) return NULL;
  if (!strcmp(s->name, "logaddexp")) return mktensor(B, cast(B, log_add_exp(B, a, b, loc), dt, loc));
  GNode *hi = tt(B, OP_MAXIMUM, a, b, loc), *lo = tt(B, OP_MINIMUM, a, b, loc);
  GNode *l = float_unary(B, OP_LOG1P, float_unary(B, OP_EXP2, tt(B, OP_SUB, lo, hi, loc), loc), loc);
  double inv_ln2 = 1.0 / 0.693147180559945309417232121458176568;
  GNode *r;
  if (a->dtype == DT_F32) {
    /* PyTorch's compiled kernel fuses max + l * (1 / ln 2) into one fma
     * (logaddexp2(-1, -1) is -1.06e-8 there, not 0): l and the f32 constant
     * multiply exactly in f64, and the sum is rounded once more, to f32. */
    GNode *p = tc(B, OP_MUL, cast(B, l, DT_F64, loc), dtype_round(DT_F32, inv_ln2), loc);
    r = cast(B, tt(B, OP_ADD, cast(B, hi, DT_F64, loc), p, loc), DT_F32, loc);
  } else {
    r = tt(B, OP_ADD, hi, tc(B, OP_MUL, l, inv_ln2, loc), loc);
  }
  GNode *same_inf = tt(B, OP_AND, tt(B, OP_EQ, lo, hi, loc), tc(B, OP_EQ, tabs(B, lo, loc), INFINITY, loc), loc);
  return mktensor(B, cast(B, twhere(B, same_inf, hi, r, loc), dt, loc));
}

/* xlogy(x, y) (and torch.special.xlogy): PyTorch's kernel is
 *     isnan(y) ? NaN : x == 0 ? 0 : x * log(y)
 * in the result's dtype (ints and bool: float32): of bf16 and f16, log(y)
 * is rounded to it before the product, which is rounded again. */
static Val *b_xlogy(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  GNode *a, *b;
  DType dt;
  if (!float_pair(B, s, x, A, true, &a, &b, &dt, loc)) return NULL;
  GNode *l = float_unary(B, OP_LOG, b, loc);
  if (dt != opmath(dt)) l = cast(B, cast(B, l, dt, loc), opmath(dt), loc);
  GNode *r = twhere(B, tc(B, OP_EQ, a, 0, loc), mkconst(B, opmath(dt), 0, 0, loc), tt(B, OP_MUL, a, l, loc), loc);
  r = twhere(B, tt(B, OP_NE, b, b, loc), mkconst(B, opmath(dt), NAN, 0, loc), r, loc);
  return mktensor(B, cast(B, r, dt, loc));
}

/* rsub(x, other, alpha=1): other - alpha * x, as sub(other, x, alpha). */
static Val *b_rsub(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *o = arg(A, 0, "other"), *alpha = arg(A, 1, "alpha");
  if (!o) return fail(B, loc, "rsub needs other");
  if (!check_args(B, A, s->name, 2)) return NULL;
  if (!is_num(o)) return fail(B, arg_loc(A, 0, "other"), "rsub expects a tensor or a number, got %s", kind_name(o));
  Val vx = {.kind = V_TENSOR, .t = x};
  if (alpha && !((alpha->kind == V_INT || alpha->kind == V_BOOL) && alpha->i == 1))
    return mktensor(B, add_scaled(B, OP_SUB, o, &vx, alpha, loc, arg_loc(A, 1, "alpha")));
  return mktensor(B, arith(B, OP_SUB, o, &vx, loc));
}

/* outer(x, vec2) and ger: x[:, None] * vec2, with mul's promotion. */
static Val *b_outer(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *v = arg(A, 0, "vec2");
  if (!v) return fail(B, loc, "%s needs vec2", s->name);
  if (!check_args(B, A, s->name, 1)) return NULL;
  if (v->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "vec2"), "%s expects a tensor vec2, got %s", s->name, kind_name(v));
  if (x->ndim != 1) return fail(B, loc, "%s: Expected 1-D argument self, but got %d-D (as in PyTorch)", s->name, x->ndim);
  if (v->t->ndim != 1) return fail(B, arg_loc(A, 0, "vec2"), "%s: Expected 1-D argument vec2, but got %d-D (as in PyTorch)", s->name, v->t->ndim);
  int64_t col[2] = {x->shape[0], 1};
  Val vc = {.kind = V_TENSOR, .t = reshape(B, x, 2, col, loc)};
  return mktensor(B, arith(B, OP_MUL, &vc, v, loc));
}

/* The diagonal of dims d1, d2 of x (normalised, distinct) at offset k, as
 * PyTorch's view: the other dims in order, then the diagonal.  It is a
 * view here too: the two dims moved last and flattened, then read from
 * the first element of the diagonal with a step of one row plus one. */
static GNode *diagonal_view(Builder *B, GNode *x, int64_t k, int d1, int d2, SrcLoc loc) {
  int nd = x->ndim, perm[COIL_MAX_DIMS], n = 0;
  for (int d = 0; d < nd; d++)
    if (d != d1 && d != d2) perm[n++] = d;
  perm[n++] = d1;
  perm[n++] = d2;
  int64_t s1 = x->shape[d1], s2 = x->shape[d2];
  int64_t len = k >= 0 ? (s1 < s2 - k ? s1 : s2 - k) : (s1 + k < s2 ? s1 + k : s2);
  if (len < 0) len = 0;
  int64_t shape[COIL_MAX_DIMS], start[COIL_MAX_DIMS] = {0}, step[COIL_MAX_DIMS];
  GNode *p = permute(B, x, perm, loc);
  if (!p) return NULL;
  for (int d = 0; d < nd - 1; d++) shape[d] = p->shape[d], step[d] = 1;
  shape[nd - 2] = s1 * s2;
  GNode *flat = reshape(B, p, nd - 1, shape, loc);
  shape[nd - 2] = len;
  start[nd - 2] = len == 0 ? 0 : k >= 0 ? k : -k * s2;
  step[nd - 2] = s2 + 1;
  return slice_step(B, flat, start, step, shape, loc);
}

/* Two distinct dims of a tensor of nd dims (normalised), or false. */
static bool two_dims(Builder *B, Args *A, int i, int64_t dflt1, int64_t dflt2, int nd, int *d1, int *d2) {
  int64_t a = dflt1, b = dflt2;
  Val *va = arg(A, i, "dim1"), *vb = arg(A, i + 1, "dim2");
  if ((va && !get_int(B, va, arg_loc(A, i, "dim1"), "dim1", &a)) || (vb && !get_int(B, vb, arg_loc(A, i + 1, "dim2"), "dim2", &b))) return false;
  if ((*d1 = norm_dim(B, a, nd, arg_loc(A, i, "dim1"))) < 0 || (*d2 = norm_dim(B, b, nd, arg_loc(A, i + 1, "dim2"))) < 0) return false;
  if (*d1 == *d2) return fail(B, arg_loc(A, i + 1, "dim2"), "diagonal dimensions cannot be identical %lld, %lld (as in PyTorch)", (long long)a, (long long)b), false;
  return true;
}

/* diagonal(offset=0, dim1=0, dim2=1): a view. */
static Val *b_diagonal(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t k = 0;
  Val *kv = arg(A, 0, "offset");
  int d1, d2;
  if (kv && !get_int(B, kv, arg_loc(A, 0, "offset"), "offset", &k)) return NULL;
  if (x->ndim < 2) return fail(B, loc, "%s needs a tensor of at least 2 dimensions, got %d (as in PyTorch)", s->name, x->ndim);
  if (!two_dims(B, A, 1, 0, 1, x->ndim, &d1, &d2) || !check_args(B, A, s->name, 3)) return NULL;
  return mktensor(B, diagonal_view(B, x, k, d1, d2, loc));
}

/* diagonal_scatter(x, src, offset=0, dim1=0, dim2=1): x with that
 * diagonal replaced by src (in x's dtype): diagonal's backward.  In x's
 * dims moved to [..., dim1, dim2], where(column - row == offset, src laid
 * along the row (offset >= 0) or the column, x), moved back. */
static Val *b_diagonal_scatter(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *sv = arg(A, 0, "src"), *kv = arg(A, 1, "offset");
  int64_t k = 0;
  int d1, d2;
  if (!sv) return fail(B, loc, "diagonal_scatter needs src");
  if (sv->kind != V_TENSOR) return fail(B, arg_loc(A, 0, "src"), "diagonal_scatter expects a tensor src, got %s", kind_name(sv));
  if (kv && !get_int(B, kv, arg_loc(A, 1, "offset"), "offset", &k)) return NULL;
  if (x->ndim < 2) return fail(B, loc, "%s needs a tensor of at least 2 dimensions, got %d (as in PyTorch)", s->name, x->ndim);
  if (!two_dims(B, A, 2, 0, 1, x->ndim, &d1, &d2) || !check_args(B, A, s->name, 4)) return NULL;
  GNode *src = sv->t, *slot = diagonal_view(B, x, k, d1, d2, loc);
  if (!slot) return NULL;
  if (src->ndim != slot->ndim || memcmp(src->shape, slot->shape, sizeof(int64_t) * (size_t)src->ndim))
    return fail(B, arg_loc(A, 0, "src"), "diagonal_scatter: expected src to have a size equal to the slice of self. src size = %s, slice size = %s (as in PyTorch)",
                shape_fmt(B->a, src->ndim, src->shape), shape_fmt(B->a, slot->ndim, slot->shape));
  int nd = x->ndim;
  int64_t len = slot->shape[nd - 2];
  if (len == 0) return mktensor(B, x); /* no element of the diagonal */
  int perm[COIL_MAX_DIMS], back[COIL_MAX_DIMS], n = 0;
  for (int d = 0; d < nd; d++)
    if (d != d1 && d != d2) perm[n++] = d;
  perm[n++] = d1;
  perm[n++] = d2;
  for (int d = 0; d < nd; d++) back[perm[d]] = d;
  GNode *xp = permute(B, x, perm, loc);
  int64_t s1 = x->shape[d1], s2 = x->shape[d2], start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, src->shape, sizeof(int64_t) * (size_t)(nd - 1));
  shape[nd - 2] = k >= 0 ? s1 : s2;
  GNode *sp = pad(B, cast(B, src, x->dtype, loc), start, shape, 0, 0, loc); /* the fill is never picked */
  shape[nd - 2] = k >= 0 ? s1 : 1;
  shape[nd - 1] = k >= 0 ? 1 : s2;
  GNode *sv2 = reshape(B, sp, nd, shape, loc);
  GNode *on = ti(B, OP_EQ, tt(B, OP_SUB, iota(B, nd, xp->shape, nd - 1, 0, 1, loc), iota(B, nd, xp->shape, nd - 2, 0, 1, loc), loc), k, loc);
  return mktensor(B, permute(B, twhere(B, on, sv2, xp, loc), back, loc));
}

/* trace: the sum of a matrix's diagonal, with sum's dtypes (ints: int64);
 * f32 accumulates in f64, as PyTorch's CPU trace does. */
static Val *b_trace(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  if (x->ndim != 2) return fail(B, loc, "trace: expected a matrix, but got tensor with dim %d (as in PyTorch)", x->ndim);
  if (x->dtype == DT_BOOL) return fail(B, loc, "trace of a bool tensor is not supported (as in PyTorch)");
  GNode *d = diagonal_view(B, x, 0, 0, 1, loc);
  DType out = dtype_is_float(x->dtype) ? x->dtype : DT_I64;
  return mktensor(B, cast(B, reduce(B, OP_SUM, cast(B, d, out == DT_F32 ? DT_F64 : out, loc), 1, false, loc), out, loc));
}

/* diag_embed: x's last dim laid on the diagonal (offset k) of dims d1, d2
 * (normalised for the result, nd + 1 dims), 0 elsewhere; x's other dims
 * fill the result's other dims in order.  Built as [..., m, m] with
 * where(column - row == k, x along the row (k >= 0) or column, 0), then
 * permuted into place. */
static GNode *diag_embed_node(Builder *B, GNode *x, int64_t k, int d1, int d2, SrcLoc loc) {
  int nd = x->ndim;
  if (nd + 1 > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
  int64_t n = x->shape[nd - 1], m = n + (k < 0 ? -k : k);
  int64_t start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
  shape[nd - 1] = m;
  GNode *xp = pad(B, x, start, shape, 0, 0, loc); /* the fill is never picked */
  shape[nd - 1] = k >= 0 ? m : 1;
  shape[nd] = k >= 0 ? 1 : m;
  GNode *xv = reshape(B, xp, nd + 1, shape, loc);
  shape[nd - 1] = shape[nd] = m;
  GNode *on = ti(B, OP_EQ, tt(B, OP_SUB, iota(B, nd + 1, shape, nd, 0, 1, loc), iota(B, nd + 1, shape, nd - 1, 0, 1, loc), loc), k, loc);
  GNode *r = twhere(B, on, xv, mkconst(B, x->dtype, 0, 0, loc), loc);
  int perm[COIL_MAX_DIMS];
  for (int d = 0, b = 0; d <= nd; d++) perm[d] = d == d1 ? nd - 1 : d == d2 ? nd : b++;
  return permute(B, r, perm, loc);
}

static Val *b_diag_embed(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t k = 0;
  Val *kv = arg(A, 0, "offset");
  int d1, d2;
  if (kv && !get_int(B, kv, arg_loc(A, 0, "offset"), "offset", &k)) return NULL;
  if (!two_dims(B, A, 1, -2, -1, x->ndim + 1, &d1, &d2) || !check_args(B, A, s->name, 3)) return NULL;
  return mktensor(B, diag_embed_node(B, x, k, d1, d2, loc));
}

/* diag(x, diagonal=0): of a vector the square matrix with it on that
 * diagonal, of a matrix that diagonal. */
static Val *b_diag(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t k = 0;
  Val *kv = arg(A, 0, "diagonal");
  if ((kv && !get_int(B, kv, arg_loc(A, 0, "diagonal"), "diagonal", &k)) || !check_args(B, A, s->name, 1)) return NULL;
  if (x->ndim == 1) return mktensor(B, diag_embed_node(B, x, k, 0, 1, loc));
  if (x->ndim == 2) return mktensor(B, diagonal_view(B, x, k, 0, 1, loc));
  return fail(B, loc, "diag(): Supports 1D or 2D tensors. Got %dD (as in PyTorch)", x->ndim);
}

/* diff(n=1, dim=-1, prepend=None, append=None): prepend, x and append
 * concatenated along dim (cat's promotion), then n times the next element
 * minus this one (of bools: logical_xor), as PyTorch's loop of narrows;
 * n at least the length gives an empty dim. */
static Val *b_diff(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  int64_t n = 1, dim = -1;
  Val *nv = arg(A, 0, "n"), *dv = arg(A, 1, "dim"), *pv = arg(A, 2, "prepend"), *av = arg(A, 3, "append");
  SrcLoc dl = arg_loc(A, 1, "dim");
  if ((nv && !get_int(B, nv, arg_loc(A, 0, "n"), "n", &n)) || (dv && !get_int(B, dv, dl, "dim", &dim)) || !check_args(B, A, s->name, 4))
    return NULL;
  if (x->ndim == 0) return fail(B, loc, "diff expects input to be at least one-dimensional (as in PyTorch)");
  if (n < 0) return fail(B, arg_loc(A, 0, "n"), "diff: order must be non-negative but got %lld (as in PyTorch)", (long long)n);
  int d = norm_dim(B, dim, x->ndim, dl);
  if (d < 0) return NULL;
  GNode *pieces[3];
  int np = 0;
  Val *ends[2] = {pv, av};
  const char *names[2] = {"prepend", "append"};
  for (int i = 0; i < 2; i++) {
    Val *e = ends[i];
    if (!e || e->kind == V_NONE) continue;
    SrcLoc el = arg_loc(A, 2 + i, names[i]);
    if (e->kind != V_TENSOR) return fail(B, el, "diff: %s must be a tensor, got %s (as in PyTorch)", names[i], kind_name(e));
    if (e->t->ndim != x->ndim)
      return fail(B, el, "diff expects prepend or append to be the same dimension as input (as in PyTorch): %s has %d, input %d", names[i],
                  e->t->ndim, x->ndim);
  }
  if (pv && pv->kind == V_TENSOR) pieces[np++] = pv->t;
  pieces[np++] = x;
  if (av && av->kind == V_TENSOR) pieces[np++] = av->t;
  GNode *r = np > 1 ? cat_nodes(B, pieces, np, d, "diff", dl, loc) : x;
  for (int64_t i = 0; i < n && r; i++) {
    int64_t len = r->shape[d], start[COIL_MAX_DIMS] = {0}, shape[COIL_MAX_DIMS];
    memcpy(shape, r->shape, sizeof(int64_t) * (size_t)r->ndim);
    if (len == 0) break;
    shape[d] = len - 1;
    GNode *lo = slice(B, r, start, shape, loc);
    start[d] = 1;
    GNode *hi = slice(B, r, start, shape, loc);
    r = tt(B, r->dtype == DT_BOOL ? OP_XOR : OP_SUB, hi, lo, loc);
  }
  return mktensor(B, r);
}

/* deg2rad and rad2deg: x times pi / 180 (180 / pi), a double scalar as
 * PyTorch's mul takes it; ints and bool first become float32. */
static Val *b_degrees(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  if (!dtype_is_float(x->dtype)) x = cast(B, x, DT_F32, loc);
  bool to_rad = !strcmp(s->name, "deg2rad");
  return mktensor(B, tc(B, OP_MUL, x, to_rad ? 0.017453292519943295769236907684886127134428718885417 : 57.295779513082320876798154814105170332405472466564, loc));
}

/* heaviside(x, values): values where x == 0 (-0 too), else x > 0 (0 for a
 * NaN); x and values must have one dtype, as in PyTorch. */
static Val *b_heaviside(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  Val *v = arg(A, 0, "values");
  if (!v) return fail(B, loc, "heaviside needs values");
  if (!check_args(B, A, s->name, 1)) return NULL;
  SrcLoc vl = arg_loc(A, 0, "values");
  if (v->kind != V_TENSOR) return fail(B, vl, "heaviside expects a tensor of values, got %s (as in PyTorch)", kind_name(v));
  if (v->t->dtype != x->dtype)
    return fail(B, vl, "heaviside is not yet implemented for tensors with different dtypes (as in PyTorch): %s and %s", dtype_name(x->dtype),
                dtype_name(v->t->dtype));
  return mktensor(B, twhere(B, tci(B, OP_EQ, x, 0, loc), v->t, cast(B, tci(B, OP_GT, x, 0, loc), x->dtype, loc), loc));
}

/* sinc: 1 at 0 (and -0), else sin(pi x) / (pi x), in f32 for bf16 and f16
 * (pi of that dtype), rounded once; ints and bool as float32. */
static Val *b_sinc(Builder *B, const Spelling *s, GNode *x, Args *A, SrcLoc loc) {
  if (!check_args(B, A, s->name, 0)) return NULL;
  DType dt = dtype_is_float(x->dtype) ? x->dtype : DT_F32;
  GNode *xf = cast(B, x, opmath(dt), loc);
  GNode *p = tc(B, OP_MUL, xf, 3.14159265358979323846264338327950288, loc);
  GNode *r = twhere(B, tc(B, OP_EQ, xf, 0, loc), mkconst(B, opmath(dt), 1, 1, loc), tt(B, OP_DIV, float_unary(B, OP_SIN, p, loc), p, loc), loc);
  return mktensor(B, cast(B, r, dt, loc));
}

enum { METHOD = SP_TENSOR, BOTH = SP_TENSOR | SP_TORCH, FUNC = SP_F, ALL = SP_TENSOR | SP_TORCH | SP_F, LINALG = SP_LINALG,
       ATEN = SP_ATEN, PRIMS = SP_PRIMS };

static const Spelling spellings[] = {
    /* casts */
    {"float", METHOD, b_cast_method, 0, DT_F32, "all"},
    {"half", METHOD, b_cast_method, 0, DT_F16, "all"},
    {"bfloat16", METHOD, b_cast_method, 0, DT_BF16, "all"},
    {"double", METHOD, b_cast_method, 0, DT_F64, "all"},
    {"int", METHOD, b_cast_method, 0, DT_I32, "all"},
    {"long", METHOD, b_cast_method, 0, DT_I64, "all"},
    {"bool", METHOD, b_cast_method, 0, DT_BOOL, "all"},
    {"to", METHOD, b_to, 0, 0, "all"},
    {"type", METHOD, b_to, 0, 0, "all"},
    {"type_as", METHOD, b_to, 0, 0, "all"},
    /* pointwise */
    {"exp", BOTH, b_float_unary, OP_EXP, 0, "all (ints and bool: float32)"},
    {"log", BOTH, b_float_unary, OP_LOG, 0, "all (ints and bool: float32)"},
    {"sqrt", BOTH, b_float_unary, OP_SQRT, 0, "all (ints and bool: float32)"},
    {"rsqrt", BOTH, b_float_unary, OP_RSQRT, 0, "all (ints and bool: float32)"},
    {"sigmoid", ALL, b_float_unary, OP_SIGMOID, 0, "all (ints and bool: float32)"},
    {"tanh", ALL, b_float_unary, OP_TANH, 0, "all (ints and bool: float32)"},
    {"reciprocal", BOTH, b_float_unary, OP_RECIP, 0, "all (ints and bool: float32)"},
    {"erf", BOTH, b_float_unary, OP_ERF, 0, "all (ints and bool: float32)"},
    {"sin", BOTH, b_float_unary, OP_SIN, 0, "all (ints and bool: float32)"},
    {"cos", BOTH, b_float_unary, OP_COS, 0, "all (ints and bool: float32)"},
    {"exp2", BOTH, b_float_unary, OP_EXP2, 0, "all (ints and bool: float32)"},
    {"log2", BOTH, b_float_unary, OP_LOG2, 0, "all (ints and bool: float32)"},
    {"floor", BOTH, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"ceil", BOTH, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"trunc", BOTH, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"fix", BOTH, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"frac", BOTH, b_rounding, 0, 0, "floats"},
    {"round", BOTH, b_rounding, 0, 0, "all (half to even; decimals=)"},
    {"sign", BOTH, b_rounding, 0, 0, "all"},
    {"sgn", BOTH, b_rounding, 0, 0, "all"},
    {"isnan", BOTH, b_isclass, 0, 0, "all"},
    {"isinf", BOTH, b_isclass, 0, 0, "all"},
    {"isfinite", BOTH, b_isclass, 0, 0, "all"},
    {"isposinf", BOTH, b_isclass, 0, 0, "all"},
    {"isneginf", BOTH, b_isclass, 0, 0, "all"},
    {"nan_to_num", BOTH, b_nan_to_num, 0, 0, "all"},
    {"masked_fill", BOTH, b_masked_fill, 0, 0, "all (mask: bool)"},
    {"lerp", BOTH, b_ternary, 0, 0, "floats"},
    {"addcmul", BOTH, b_ternary, 0, 0, "all"},
    {"addcdiv", BOTH, b_ternary, 0, 0, "floats"},
    {"neg", BOTH, b_neg_abs, OP_NEG, 0, "floats, ints"},
    {"negative", BOTH, b_neg_abs, OP_NEG, 0, "floats, ints"},
    {"abs", BOTH, b_neg_abs, OP_ABS, 0, "floats, ints"},
    {"square", BOTH, b_square, 0, 0, "all (bool: int64)"},
    {"relu", ALL, b_relu, 0, 0, "floats, ints"},
    /* activations: computed in f32 for bf16 and f16, rounded once */
    {"silu", FUNC, b_activation, 0, 0, "floats"},
    {"gelu", FUNC, b_activation, 0, 0, "floats (approximate='none' or 'tanh')"},
    {"relu6", FUNC, b_activation, 0, 0, "floats, ints"},
    {"leaky_relu", FUNC, b_activation, 0, 0, "floats"},
    {"elu", FUNC, b_activation, 0, 0, "floats"},
    {"selu", ALL, b_activation, 0, 0, "floats"},
    {"celu", ALL, b_activation, 0, 0, "floats"},
    {"softplus", FUNC, b_activation, 0, 0, "floats"},
    {"mish", FUNC, b_activation, 0, 0, "floats"},
    {"softsign", FUNC, b_activation, 0, 0, "floats"},
    {"hardtanh", FUNC, b_activation, 0, 0, "floats, ints"},
    {"hardsigmoid", FUNC, b_activation, 0, 0, "floats"},
    {"hardswish", FUNC, b_activation, 0, 0, "floats"},
    {"logsigmoid", FUNC, b_activation, 0, 0, "floats"},
    {"threshold", FUNC, b_activation, 0, 0, "floats, ints"},
    {"glu", FUNC, b_glu, 0, 0, "floats"},
    {"logical_not", BOTH, b_not, 0, 0, "bool"},
    {"bitwise_not", BOTH, b_not, 0, 0, "bool, ints"},
    {"clamp", BOTH, b_clamp, 0, 0, "floats, ints"},
    {"clip", BOTH, b_clamp, 0, 0, "floats, ints"},
    {"clamp_min", BOTH, b_clamp_one, OP_MAXIMUM, 0, "floats, ints"},
    {"clamp_max", BOTH, b_clamp_one, OP_MINIMUM, 0, "floats, ints"},
    {"add", BOTH, b_binary, OP_ADD, 0, "all"},
    {"sub", BOTH, b_binary, OP_SUB, 0, "floats, ints"},
    {"mul", BOTH, b_binary, OP_MUL, 0, "all"},
    {"div", BOTH, b_binary, OP_DIV, 0, "all (ints and bool: float32)"},
    {"true_divide", BOTH, b_binary, OP_DIV, 0, "all (ints and bool: float32)"},
    {"maximum", BOTH, b_binary, OP_MAXIMUM, 0, "all"},
    {"minimum", BOTH, b_binary, OP_MINIMUM, 0, "all"},
    {"pow", BOTH, b_binary, OP_POW, 0, "floats, ints"},
    {"lt", BOTH, b_binary, OP_LT, 0, "all"},
    {"le", BOTH, b_binary, OP_LE, 0, "all"},
    {"gt", BOTH, b_binary, OP_GT, 0, "all"},
    {"ge", BOTH, b_binary, OP_GE, 0, "all"},
    {"eq", BOTH, b_binary, OP_EQ, 0, "all"},
    {"ne", BOTH, b_binary, OP_NE, 0, "all"},
    {"logical_and", BOTH, b_binary, OP_AND, 0, "all"},
    {"logical_or", BOTH, b_binary, OP_OR, 0, "all"},
    {"logical_xor", BOTH, b_binary, OP_XOR, 0, "all"},
    {"bitwise_and", BOTH, b_binary, OP_AND, 0, "bool, ints"},
    {"bitwise_or", BOTH, b_binary, OP_OR, 0, "bool, ints"},
    {"bitwise_xor", BOTH, b_binary, OP_XOR, 0, "bool, ints"},
    {"where", METHOD, b_where_method, 0, 0, "all (condition: bool)"},
    {"where", SP_TORCH, b_where, 0, 0, "all (condition: bool)"},
    /* the rest of model code's math */
    {"tan", BOTH, b_float_unary, OP_TAN, 0, "all (ints and bool: float32)"},
    {"asin", BOTH, b_float_unary, OP_ASIN, 0, "all (ints and bool: float32)"},
    {"arcsin", BOTH, b_float_unary, OP_ASIN, 0, "all (ints and bool: float32)"},
    {"acos", BOTH, b_float_unary, OP_ACOS, 0, "all (ints and bool: float32)"},
    {"arccos", BOTH, b_float_unary, OP_ACOS, 0, "all (ints and bool: float32)"},
    {"atan", BOTH, b_float_unary, OP_ATAN, 0, "all (ints and bool: float32)"},
    {"arctan", BOTH, b_float_unary, OP_ATAN, 0, "all (ints and bool: float32)"},
    {"sinh", BOTH, b_float_unary, OP_SINH, 0, "all (ints and bool: float32)"},
    {"cosh", BOTH, b_float_unary, OP_COSH, 0, "all (ints and bool: float32)"},
    {"asinh", BOTH, b_float_unary, OP_ASINH, 0, "all (ints and bool: float32)"},
    {"arcsinh", BOTH, b_float_unary, OP_ASINH, 0, "all (ints and bool: float32)"},
    {"acosh", BOTH, b_float_unary, OP_ACOSH, 0, "all (ints and bool: float32)"},
    {"arccosh", BOTH, b_float_unary, OP_ACOSH, 0, "all (ints and bool: float32)"},
    {"atanh", BOTH, b_float_unary, OP_ATANH, 0, "all (ints and bool: float32)"},
    {"arctanh", BOTH, b_float_unary, OP_ATANH, 0, "all (ints and bool: float32)"},
    {"erfc", BOTH, b_float_unary, OP_ERFC, 0, "all (ints and bool: float32)"},
    {"erfinv", BOTH, b_float_unary, OP_ERFINV, 0, "all (ints and bool: float32)"},
    {"expm1", BOTH, b_float_unary, OP_EXPM1, 0, "all (ints and bool: float32)"},
    {"log10", BOTH, b_float_unary, OP_LOG10, 0, "all (ints and bool: float32)"},
    {"log1p", BOTH, b_float_unary, OP_LOG1P, 0, "all (ints and bool: float32)"},
    {"signbit", BOTH, b_signbit, 0, 0, "all"},
    {"atan2", BOTH, b_math2, OP_ATAN2, 0, "all (ints and bool: float32; other: a tensor)"},
    {"arctan2", BOTH, b_math2, OP_ATAN2, 0, "all (ints and bool: float32; other: a tensor)"},
    {"hypot", BOTH, b_math2, OP_HYPOT, 0, "floats (other: a tensor)"},
    {"copysign", BOTH, b_math2, OP_COPYSIGN, 0, "all (ints and bool: float32)"},
    {"fmod", BOTH, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"remainder", BOTH, b_mod, 0, 0, "floats, ints (Python's %; x % 0 of ints: 0)"},
    {"floor_divide", BOTH, b_mod, 0, 0, "floats, ints (Python's //; x // 0 of ints: 0)"},
    {"bitwise_left_shift", BOTH, b_shift, OP_SHL, 0, "ints"},
    {"bitwise_right_shift", BOTH, b_shift, OP_SHR, 0, "ints"},
    {"logaddexp", BOTH, b_logaddexp, 0, 0, "floats (other: a tensor)"},
    {"logaddexp2", BOTH, b_logaddexp, 0, 0, "floats (other: a tensor)"},
    {"xlogy", BOTH, b_xlogy, 0, 0, "all (ints and bool: float32; also torch.special.xlogy)"},
    {"rsub", SP_TORCH, b_rsub, 0, 0, "floats, ints (other - alpha * input)"},
    {"deg2rad", BOTH, b_degrees, 0, 0, "all (ints and bool: float32)"},
    {"rad2deg", BOTH, b_degrees, 0, 0, "all (ints and bool: float32)"},
    {"heaviside", BOTH, b_heaviside, 0, 0, "all (values: a tensor of input's dtype)"},
    {"sinc", BOTH, b_sinc, 0, 0, "all (ints and bool: float32; also torch.special.sinc)"},
    /* views */
    {"permute", BOTH, b_permute, 0, 0, "all"},
    {"transpose", BOTH, b_transpose, 0, 0, "all"},
    {"swapaxes", BOTH, b_transpose, 0, 0, "all"},
    {"t", BOTH, b_transpose, 0, 0, "all"},
    {"unsqueeze", BOTH, b_unsqueeze, 0, 0, "all"},
    {"squeeze", BOTH, b_squeeze, 0, 0, "all"},
    {"view", METHOD, b_view, 0, 0, "all"},
    {"reshape", BOTH, b_view, 0, 0, "all"},
    {"narrow", BOTH, b_narrow, 0, 0, "all"},
    {"flatten", BOTH, b_flatten, 0, 0, "all"},
    {"expand", METHOD, b_expand, 0, 0, "all"},
    {"expand_as", METHOD, b_expand_to, 0, 0, "all"},
    {"broadcast_to", BOTH, b_expand_to, 0, 0, "all"},
    {"select", BOTH, b_select, 0, 0, "all"},
    {"gather", BOTH, b_gather, 0, 0, "all (index: int64)"},
    {"take_along_dim", BOTH, b_take_along_dim, 0, 0, "all (indices: int64)"},
    {"index_select", BOTH, b_index_select, 0, 0, "all (index: int32, int64)"},
    {"embedding", FUNC, b_embedding, 0, 0, "all (indices: int32, int64; weight: 2-D)"},
    {"max_pool2d", FUNC | SP_TORCH, b_max_pool2d, 0, 0, "all but bool (windows of up to 256 points; return_indices: F.max_pool2d)"},
    {"masked_select", BOTH, b_data_shape, 0, 0, "(refused: a shape the data decides)"},
    {"nonzero", BOTH, b_data_shape, 0, 0, "(refused: a shape the data decides)"},
    {"argwhere", BOTH, b_data_shape, 0, 0, "(refused: a shape the data decides)"},
    {"unique", BOTH, b_data_shape, 0, 0, "(refused: a shape the data decides)"},
    {"index_put", BOTH, b_index_put, 0, 0, "all (index tensors: int32, int64; accumulate=True: all but bool)"},
    {"index_copy", BOTH, b_index_copy, 0, 0, "all (index: int64)"},
    {"index_fill", BOTH, b_index_copy, 0, 0, "all (index: int64)"},
    {"index_add", BOTH, b_index_add, 0, 0, "all but bool (index: int32, int64)"},
    {"scatter", BOTH, b_scatter, 0, 0, "all (index: int64)"},
    {"scatter_add", BOTH, b_scatter, 0, 0, "all but bool (index: int64)"},
    {"unbind", BOTH, b_unbind, 0, 0, "all"},
    {"chunk", BOTH, b_pieces, 0, 0, "all"},
    {"split", BOTH, b_pieces, 0, 0, "all"},
    {"repeat", METHOD, b_repeat, 0, 0, "all"},
    {"tile", BOTH, b_repeat, 0, 0, "all"},
    {"movedim", BOTH, b_movedim, 0, 0, "all"},
    {"moveaxis", BOTH, b_movedim, 0, 0, "all"},
    {"flip", BOTH, b_flip, 0, 0, "all"},
    {"fliplr", BOTH, b_flip, 0, 0, "all (>= 2 dims)"},
    {"flipud", BOTH, b_flip, 0, 0, "all (>= 1 dim)"},
    {"roll", BOTH, b_roll, 0, 0, "all"},
    {"triu", BOTH, b_triangle, 0, 0, "all (>= 2 dims)"},
    {"tril", BOTH, b_triangle, 0, 0, "all (>= 2 dims)"},
    {"diagonal", BOTH, b_diagonal, 0, 0, "all (>= 2 dims; a view)"},
    {"diagonal_scatter", BOTH, b_diagonal_scatter, 0, 0, "all (src in self's dtype)"},
    {"diag", BOTH, b_diag, 0, 0, "all (1-D: a matrix; 2-D: its diagonal)"},
    {"diag_embed", BOTH, b_diag_embed, 0, 0, "all"},
    {"outer", BOTH, b_outer, 0, 0, "all (1-D; promoted as mul)"},
    {"ger", BOTH, b_outer, 0, 0, "all (1-D; promoted as mul)"},
    {"view_as", METHOD, b_view_as, 0, 0, "all"},
    {"reshape_as", METHOD, b_view_as, 0, 0, "all"},
    {"cat", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"concat", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"concatenate", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"stack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"hstack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"vstack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"row_stack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"dstack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"column_stack", SP_TORCH, b_cat, 0, 0, "all (a list; promoted as result_type)"},
    {"pad", FUNC, b_pad, 0, 0, "all (mode: 'constant', 'reflect', 'replicate', 'circular')"},
    {"slice_scatter", BOTH, b_slice_scatter, 0, 0, "all (src in self's dtype)"},
    {"select_scatter", BOTH, b_select_scatter, 0, 0, "all (src in self's dtype)"},
    {"contiguous", METHOD, b_identity, 0, 0, "all"},
    {"clone", BOTH, b_identity, 0, 0, "all"},
    {"detach", BOTH, b_identity, 0, 0, "all"},
    /* reductions */
    {"sum", BOTH, b_reduce, OP_SUM, 0, "all (ints and bool: int64)"},
    {"mean", BOTH, b_reduce, OP_SUM, 0, "floats"},
    {"prod", BOTH, b_reduce, OP_PROD, 0, "all (ints and bool: int64)"},
    {"amax", BOTH, b_reduce, OP_AMAX, 0, "all"},
    {"amin", BOTH, b_reduce, OP_AMIN, 0, "all"},
    {"max", BOTH, b_max_min, OP_ARGMAX, 0, "all (dim: (values, indices); a tensor: maximum)"},
    {"min", BOTH, b_max_min, OP_ARGMIN, 0, "all (dim: (values, indices); a tensor: minimum)"},
    {"argmax", BOTH, b_argmax, OP_ARGMAX, 0, "floats, ints"},
    {"argmin", BOTH, b_argmax, OP_ARGMIN, 0, "floats, ints"},
    {"aminmax", SP_TORCH, b_aminmax, 0, 0, "all"},
    {"cumsum", BOTH, b_cumsum, OP_SUM, 0, "all (ints and bool: int64)"},
    {"cumprod", BOTH, b_cumsum, OP_PROD, 0, "all (ints and bool: int64)"},
    {"logcumsumexp", BOTH, b_cumsum, OP_EXP, 0, "floats"},
    {"cummax", BOTH, b_cummax, OP_ARGMAX, 0, "all ((values, indices))"},
    {"cummin", BOTH, b_cummax, OP_ARGMIN, 0, "all ((values, indices))"},
    {"diff", BOTH, b_diff, 0, 0, "all (bool: logical_xor; prepend, append: tensors)"},
    {"trace", BOTH, b_trace, 0, 0, "floats, ints (2-D; ints: int64)"},
    {"var", BOTH, b_var_std, 0, 0, "floats"},
    {"std", BOTH, b_var_std, 0, 0, "floats"},
    {"var_mean", SP_TORCH, b_var_mean, 0, 0, "floats"},
    {"std_mean", SP_TORCH, b_var_mean, 0, 0, "floats"},
    {"all", BOTH, b_logical_reduce, 0, 0, "all"},
    {"any", BOTH, b_logical_reduce, 0, 0, "all"},
    {"count_nonzero", BOTH, b_logical_reduce, 0, 0, "all"},
    {"nansum", BOTH, b_logical_reduce, 0, 0, "floats"},
    {"nanmean", BOTH, b_logical_reduce, 0, 0, "floats"},
    {"norm", BOTH, b_vector_norm, 0, 0, "floats (p: a number or 'fro')"},
    {"vector_norm", LINALG, b_vector_norm, 0, 0, "floats (ord: a number, inf, -inf)"},
    /* normalisation and losses */
    {"layer_norm", FUNC, b_norm_layer, 0, 0, "floats"},
    {"rms_norm", FUNC, b_norm_layer, 0, 0, "floats"},
    {"normalize", FUNC, b_normalize, 0, 0, "floats"},
    {"mse_loss", FUNC, b_loss, 0, 0, "floats"},
    {"nll_loss", FUNC, b_nll, 0, 0, "floats (target: int64 class indices)"},
    {"cross_entropy", FUNC, b_nll, 0, 0, "floats (target: int64 class indices, or probabilities)"},
    {"l1_loss", FUNC, b_loss, 0, 0, "floats"},
    {"smooth_l1_loss", FUNC, b_loss, 0, 0, "floats"},
    {"huber_loss", FUNC, b_loss, 0, 0, "floats"},
    {"group_norm", FUNC, b_group_norm, 0, 0, "floats"},
    {"batch_norm", FUNC, b_batch_norm, 0, 0, "floats (training=True: batch statistics, no running stats: coil does not update them in place)"},
    {"instance_norm", FUNC, b_batch_norm, 0, 0, "floats (use_input_stats=True: no running stats, as batch_norm)"},
    {"cosine_similarity", SP_TORCH | FUNC, b_similarity, 0, 0, "floats"},
    {"pairwise_distance", SP_TORCH | FUNC, b_similarity, 0, 0, "all (ints and bool: float32)"},
    {"binary_cross_entropy", FUNC, b_loss2, 0, 0, "floats"},
    {"binary_cross_entropy_with_logits", FUNC, b_loss2, 0, 0, "floats"},
    {"kl_div", FUNC, b_loss2, 0, 0, "floats (reduction: also 'batchmean')"},
    {"poisson_nll_loss", FUNC, b_loss2, 0, 0, "floats"},
    {"soft_margin_loss", FUNC, b_loss2, 0, 0, "floats"},
    {"hinge_embedding_loss", FUNC, b_loss2, 0, 0, "floats"},
    {"margin_ranking_loss", FUNC, b_loss2, 0, 0, "floats"},
    {"softmax", BOTH, b_softmax, 0, 0, "floats (or dtype=)"},
    {"log_softmax", BOTH, b_softmax, 0, 0, "floats (or dtype=)"},
    {"softmax", FUNC, b_f_softmax, 0, 0, "floats (or dtype=)"},
    {"log_softmax", FUNC, b_f_softmax, 0, 0, "floats (or dtype=)"},
    {"softmin", FUNC, b_f_softmax, 0, 0, "floats (or dtype=)"},
    {"logsumexp", BOTH, b_softmax, 0, 0, "all (ints and bool: float32)"},
    /* Python values known when compiling */
    {"size", METHOD, b_size, 0, 0, "all"},
    {"dim", METHOD, b_size, 0, 0, "all"},
    {"numel", BOTH, b_size, 0, 0, "all"},
    /* constants */
    {"zeros", SP_TORCH, b_creation, 0, 0, "(a size; dtype=)"},
    {"ones", SP_TORCH, b_creation, 0, 0, "(a size; dtype=)"},
    {"full", SP_TORCH, b_creation, 0, 0, "(a size and a number; dtype=)"},
    {"zeros_like", SP_TORCH, b_creation, 0, 0, "all"},
    {"ones_like", SP_TORCH, b_creation, 0, 0, "all"},
    {"full_like", SP_TORCH, b_creation, 0, 0, "all"},
    {"new_zeros", METHOD, b_creation, 0, 0, "all (a size; self's dtype or dtype=)"},
    {"new_ones", METHOD, b_creation, 0, 0, "all (a size; self's dtype or dtype=)"},
    {"new_full", METHOD, b_creation, 0, 0, "all (a size and a number; self's dtype or dtype=)"},
    {"new_empty", METHOD, b_creation, 0, 0, "all (a size; values: zeros)"},
    {"arange", SP_TORCH, b_arange, 0, 0, "(numbers: end, or start, end, step; dtype=)"},
    /* ATen and prims: the text a torch.compile backend prints of a graph
     * partition.  One row an overload, named by its schema as PyTorch
     * declares it, less the arguments that say where and how a tensor lives
     * (device, layout, pin_memory, memory_format, requires_grad,
     * non_blocking), which the printer drops and the binder ignores.  Where
     * an op has several overloads, aten.NAME(...) takes the first one here
     * that its arguments fit. */
    {"abs.default(Tensor self)", ATEN, b_neg_abs, OP_ABS, 0, "floats, ints"},
    {"neg.default(Tensor self)", ATEN, b_neg_abs, OP_NEG, 0, "floats, ints"},
    {"exp.default(Tensor self)", ATEN, b_float_unary, OP_EXP, 0, "all (ints and bool: float32)"},
    {"log.default(Tensor self)", ATEN, b_float_unary, OP_LOG, 0, "all (ints and bool: float32)"},
    {"sqrt.default(Tensor self)", ATEN, b_float_unary, OP_SQRT, 0, "all (ints and bool: float32)"},
    {"rsqrt.default(Tensor self)", ATEN, b_float_unary, OP_RSQRT, 0, "all (ints and bool: float32)"},
    {"sigmoid.default(Tensor self)", ATEN, b_float_unary, OP_SIGMOID, 0, "all (ints and bool: float32)"},
    {"tanh.default(Tensor self)", ATEN, b_float_unary, OP_TANH, 0, "all (ints and bool: float32)"},
    {"reciprocal.default(Tensor self)", ATEN, b_float_unary, OP_RECIP, 0, "all (ints and bool: float32)"},
    {"erf.default(Tensor self)", ATEN, b_float_unary, OP_ERF, 0, "all (ints and bool: float32)"},
    {"sin.default(Tensor self)", ATEN, b_float_unary, OP_SIN, 0, "all (ints and bool: float32)"},
    {"cos.default(Tensor self)", ATEN, b_float_unary, OP_COS, 0, "all (ints and bool: float32)"},
    {"exp2.default(Tensor self)", ATEN, b_float_unary, OP_EXP2, 0, "all (ints and bool: float32)"},
    {"log2.default(Tensor self)", ATEN, b_float_unary, OP_LOG2, 0, "all (ints and bool: float32)"},
    {"floor.default(Tensor self)", ATEN, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"ceil.default(Tensor self)", ATEN, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"trunc.default(Tensor self)", ATEN, b_rounding, 0, 0, "all (ints: unchanged)"},
    {"round.default(Tensor self)", ATEN, b_rounding, 0, 0, "all (half to even)"},
    {"round.decimals(Tensor self, *, int decimals)", ATEN, b_rounding, 0, 0, "all (half to even)"},
    {"frac.default(Tensor self)", ATEN, b_rounding, 0, 0, "floats"},
    {"sign.default(Tensor self)", ATEN, b_rounding, 0, 0, "all"},
    {"square.default(Tensor self)", ATEN, b_square, 0, 0, "all (bool: int64)"},
    {"isnan.default(Tensor self)", ATEN, b_isclass, 0, 0, "all"},
    {"isinf.default(Tensor self)", ATEN, b_isclass, 0, 0, "all"},
    {"isfinite.default(Tensor self)", ATEN, b_isclass, 0, 0, "all"},
    {"isposinf.default(Tensor self)", ATEN, b_isclass, 0, 0, "all"},
    {"isneginf.default(Tensor self)", ATEN, b_isclass, 0, 0, "all"},
    {"nan_to_num.default(Tensor self, float? nan=None, float? posinf=None, float? neginf=None)", ATEN, b_nan_to_num, 0, 0, "all"},
    {"relu.default(Tensor self)", ATEN, b_relu, 0, 0, "floats, ints"},
    {"gelu.default(Tensor self, *, str approximate=\"none\")", ATEN, b_activation, 0, 0, "floats"},
    {"silu.default(Tensor self)", ATEN, b_activation, 0, 0, "floats"},
    {"mish.default(Tensor self)", ATEN, b_activation, 0, 0, "floats"},
    {"hardsigmoid.default(Tensor self)", ATEN, b_activation, 0, 0, "floats"},
    {"hardswish.default(Tensor self)", ATEN, b_activation, 0, 0, "floats"},
    {"hardtanh.default(Tensor self, Scalar min_val=-1, Scalar max_val=1)", ATEN, b_activation, 0, 0, "floats, ints"},
    {"leaky_relu.default(Tensor self, Scalar negative_slope=0.01)", ATEN, b_activation, 0, 0, "floats"},
    {"softplus.default(Tensor self, Scalar beta=1, Scalar threshold=20)", ATEN, b_activation, 0, 0, "floats"},
    {"threshold.default(Tensor self, Scalar threshold, Scalar value)", ATEN, b_activation, 0, 0, "floats, ints"},
    {"logical_not.default(Tensor self)", ATEN, b_not, 0, 0, "all"},
    {"bitwise_not.default(Tensor self)", ATEN, b_not, 0, 0, "bool, ints"},
    {"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)", ATEN, b_binary, OP_ADD, 0, "all"},
    {"add.Scalar(Tensor self, Scalar other, Scalar alpha=1)", ATEN, b_binary, OP_ADD, 0, "all"},
    {"sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)", ATEN, b_binary, OP_SUB, 0, "floats, ints"},
    {"sub.Scalar(Tensor self, Scalar other, Scalar alpha=1)", ATEN, b_binary, OP_SUB, 0, "floats, ints"},
    {"mul.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_MUL, 0, "all"},
    {"mul.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_MUL, 0, "all"},
    {"div.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_DIV, 0, "all (ints and bool: float32)"},
    {"div.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_DIV, 0, "all (ints and bool: float32)"},
    {"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)", ATEN, b_binary, OP_DIV, 0, "all (rounding_mode: None or 'trunc' of floats)"},
    {"div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode)", ATEN, b_binary, OP_DIV, 0, "all (rounding_mode: None or 'trunc' of floats)"},
    {"pow.Tensor_Scalar(Tensor self, Scalar exponent)", ATEN, b_binary, OP_POW, 0, "floats, ints"},
    {"pow.Tensor_Tensor(Tensor self, Tensor exponent)", ATEN, b_binary, OP_POW, 0, "floats, ints"},
    {"pow.Scalar(Scalar self, Tensor exponent)", ATEN, b_binary, OP_POW, 0, "floats, ints"},
    {"maximum.default(Tensor self, Tensor other)", ATEN, b_binary, OP_MAXIMUM, 0, "all"},
    {"minimum.default(Tensor self, Tensor other)", ATEN, b_binary, OP_MINIMUM, 0, "all"},
    {"eq.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_EQ, 0, "all"},
    {"eq.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_EQ, 0, "all"},
    {"ne.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_NE, 0, "all"},
    {"ne.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_NE, 0, "all"},
    {"lt.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_LT, 0, "all"},
    {"lt.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_LT, 0, "all"},
    {"le.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_LE, 0, "all"},
    {"le.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_LE, 0, "all"},
    {"gt.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_GT, 0, "all"},
    {"gt.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_GT, 0, "all"},
    {"ge.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_GE, 0, "all"},
    {"ge.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_GE, 0, "all"},
    {"logical_and.default(Tensor self, Tensor other)", ATEN, b_binary, OP_AND, 0, "all"},
    {"logical_or.default(Tensor self, Tensor other)", ATEN, b_binary, OP_OR, 0, "all"},
    {"logical_xor.default(Tensor self, Tensor other)", ATEN, b_binary, OP_XOR, 0, "all"},
    {"bitwise_and.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_AND, 0, "bool, ints"},
    {"bitwise_and.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_AND, 0, "bool, ints"},
    {"bitwise_or.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_OR, 0, "bool, ints"},
    {"bitwise_or.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_OR, 0, "bool, ints"},
    {"bitwise_xor.Tensor(Tensor self, Tensor other)", ATEN, b_binary, OP_XOR, 0, "bool, ints"},
    {"bitwise_xor.Scalar(Tensor self, Scalar other)", ATEN, b_binary, OP_XOR, 0, "bool, ints"},
    /* the rest of model code's math */
    {"tan.default(Tensor self)", ATEN, b_float_unary, OP_TAN, 0, "all (ints and bool: float32)"},
    {"asin.default(Tensor self)", ATEN, b_float_unary, OP_ASIN, 0, "all (ints and bool: float32)"},
    {"acos.default(Tensor self)", ATEN, b_float_unary, OP_ACOS, 0, "all (ints and bool: float32)"},
    {"atan.default(Tensor self)", ATEN, b_float_unary, OP_ATAN, 0, "all (ints and bool: float32)"},
    {"sinh.default(Tensor self)", ATEN, b_float_unary, OP_SINH, 0, "all (ints and bool: float32)"},
    {"cosh.default(Tensor self)", ATEN, b_float_unary, OP_COSH, 0, "all (ints and bool: float32)"},
    {"asinh.default(Tensor self)", ATEN, b_float_unary, OP_ASINH, 0, "all (ints and bool: float32)"},
    {"acosh.default(Tensor self)", ATEN, b_float_unary, OP_ACOSH, 0, "all (ints and bool: float32)"},
    {"atanh.default(Tensor self)", ATEN, b_float_unary, OP_ATANH, 0, "all (ints and bool: float32)"},
    {"erfc.default(Tensor self)", ATEN, b_float_unary, OP_ERFC, 0, "all (ints and bool: float32)"},
    {"erfinv.default(Tensor self)", ATEN, b_float_unary, OP_ERFINV, 0, "all (ints and bool: float32)"},
    {"expm1.default(Tensor self)", ATEN, b_float_unary, OP_EXPM1, 0, "all (ints and bool: float32)"},
    {"log10.default(Tensor self)", ATEN, b_float_unary, OP_LOG10, 0, "all (ints and bool: float32)"},
    {"log1p.default(Tensor self)", ATEN, b_float_unary, OP_LOG1P, 0, "all (ints and bool: float32)"},
    {"signbit.default(Tensor self)", ATEN, b_signbit, 0, 0, "all"},
    {"atan2.default(Tensor self, Tensor other)", ATEN, b_math2, OP_ATAN2, 0, "all (ints and bool: float32)"},
    {"hypot.default(Tensor self, Tensor other)", ATEN, b_math2, OP_HYPOT, 0, "floats"},
    {"copysign.Tensor(Tensor self, Tensor other)", ATEN, b_math2, OP_COPYSIGN, 0, "all (ints and bool: float32)"},
    {"copysign.Scalar(Tensor self, Scalar other)", ATEN, b_math2, OP_COPYSIGN, 0, "all (ints and bool: float32)"},
    {"logaddexp.default(Tensor self, Tensor other)", ATEN, b_logaddexp, 0, 0, "floats"},
    {"logaddexp2.default(Tensor self, Tensor other)", ATEN, b_logaddexp, 0, 0, "floats"},
    {"xlogy.Tensor(Tensor self, Tensor other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"xlogy.Scalar_Other(Tensor self, Scalar other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"xlogy.Scalar_Self(Scalar self, Tensor other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"special_xlogy.default(Tensor self, Tensor other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"special_xlogy.other_scalar(Tensor self, Scalar other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"special_xlogy.self_scalar(Scalar self, Tensor other)", ATEN, b_xlogy, 0, 0, "all (ints and bool: float32)"},
    {"rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)", ATEN, b_rsub, 0, 0, "floats, ints (other - alpha * self)"},
    {"rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1)", ATEN, b_rsub, 0, 0, "floats, ints (other - alpha * self)"},
    {"deg2rad.default(Tensor self)", ATEN, b_degrees, 0, 0, "all (ints and bool: float32)"},
    {"rad2deg.default(Tensor self)", ATEN, b_degrees, 0, 0, "all (ints and bool: float32)"},
    {"heaviside.default(Tensor self, Tensor values)", ATEN, b_heaviside, 0, 0, "all (values: self's dtype)"},
    {"sinc.default(Tensor self)", ATEN, b_sinc, 0, 0, "all (ints and bool: float32)"},
    {"fmod.Tensor(Tensor self, Tensor other)", ATEN, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"fmod.Scalar(Tensor self, Scalar other)", ATEN, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"remainder.Tensor(Tensor self, Tensor other)", ATEN, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"remainder.Scalar(Tensor self, Scalar other)", ATEN, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"remainder.Scalar_Tensor(Scalar self, Tensor other)", ATEN, b_mod, 0, 0, "floats, ints (x % 0 of ints: 0)"},
    {"floor_divide.default(Tensor self, Tensor other)", ATEN, b_mod, 0, 0, "floats, ints (x // 0 of ints: 0)"},
    {"floor_divide.Scalar(Tensor self, Scalar other)", ATEN, b_mod, 0, 0, "floats, ints (x // 0 of ints: 0)"},
    {"bitwise_left_shift.Tensor(Tensor self, Tensor other)", ATEN, b_shift, OP_SHL, 0, "ints"},
    {"bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other)", ATEN, b_shift, OP_SHL, 0, "ints"},
    {"bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other)", ATEN, b_shift, OP_SHL, 0, "ints"},
    {"bitwise_right_shift.Tensor(Tensor self, Tensor other)", ATEN, b_shift, OP_SHR, 0, "ints"},
    {"bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other)", ATEN, b_shift, OP_SHR, 0, "ints"},
    {"bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other)", ATEN, b_shift, OP_SHR, 0, "ints"},
    {"__lshift__.Tensor(Tensor self, Tensor other)", ATEN, b_shift, OP_SHL, 0, "ints"},
    {"__lshift__.Scalar(Tensor self, Scalar other)", ATEN, b_shift, OP_SHL, 0, "ints"},
    {"__rshift__.Tensor(Tensor self, Tensor other)", ATEN, b_shift, OP_SHR, 0, "ints"},
    {"__rshift__.Scalar(Tensor self, Scalar other)", ATEN, b_shift, OP_SHR, 0, "ints"},
    {"clamp.default(Tensor self, Scalar? min=None, Scalar? max=None)", ATEN, b_clamp, 0, 0, "floats, ints"},
    {"clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None)", ATEN, b_clamp, 0, 0, "floats, ints"},
    {"clamp_min.default(Tensor self, Scalar min)", ATEN, b_clamp_one, OP_MAXIMUM, 0, "floats, ints"},
    {"clamp_max.default(Tensor self, Scalar max)", ATEN, b_clamp_one, OP_MINIMUM, 0, "floats, ints"},
    {"clamp_min.Tensor(Tensor self, Tensor min)", ATEN, b_clamp_one, OP_MAXIMUM, 0, "floats, ints"},
    {"clamp_max.Tensor(Tensor self, Tensor max)", ATEN, b_clamp_one, OP_MINIMUM, 0, "floats, ints"},
    {"where.self(Tensor condition, Tensor self, Tensor other)", ATEN, b_where, 0, 0, "all (condition: bool)"},
    {"masked_fill.Scalar(Tensor self, Tensor mask, Scalar value)", ATEN, b_masked_fill, 0, 0, "all (mask: bool)"},
    {"masked_fill.Tensor(Tensor self, Tensor mask, Tensor value)", ATEN, b_masked_fill, 0, 0, "all (mask: bool; value: 0-d)"},
    {"lerp.Scalar(Tensor self, Tensor end, Scalar weight)", ATEN, b_ternary, 0, 0, "floats"},
    {"lerp.Tensor(Tensor self, Tensor end, Tensor weight)", ATEN, b_ternary, 0, 0, "floats"},
    {"addcmul.default(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)", ATEN, b_ternary, 0, 0, "all"},
    {"addcdiv.default(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)", ATEN, b_ternary, 0, 0, "floats"},
    {"fma.default(Tensor a, Tensor b, Tensor c)", PRIMS, b_fma, 0, 0, "all (a * b + c, op by op)"},
    {"convert_element_type.default(Tensor a, ScalarType dtype)", PRIMS, b_to, 0, 0, "all"},
    {"_to_copy.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_to, 0, 0, "all"},
    {"copy.default(Tensor self, Tensor src, bool non_blocking=False)", ATEN, b_copy, 0, 0, "all"},
    {"clone.default(Tensor self)", ATEN, b_identity, 0, 0, "all"},
    {"alias.default(Tensor self)", ATEN, b_identity, 0, 0, "all"},
    {"lift_fresh_copy.default(Tensor self)", ATEN, b_identity, 0, 0, "all"},
    {"detach.default(Tensor self)", ATEN, b_identity, 0, 0, "all"},
    {"full.default(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "(a size and a number)"},
    {"zeros.default(SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "(a size)"},
    {"ones.default(SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "(a size)"},
    {"empty.memory_format(SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "(a size; values: zeros)"},
    {"scalar_tensor.default(Scalar s, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "(a number)"},
    {"scalar_tensor.default(Scalar s, *, ScalarType? dtype=None)", PRIMS, b_creation, 0, 0, "(a number; xlogy's decomposition)"},
    {"zeros_like.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all"},
    {"ones_like.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all"},
    {"empty_like.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all (values: zeros)"},
    {"full_like.default(Tensor self, Scalar fill_value, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all"},
    {"new_zeros.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all (a size)"},
    {"new_ones.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all (a size)"},
    {"new_full.default(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all (a size and a number)"},
    {"new_empty.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0, "all (a size; values: zeros)"},
    {"new_empty_strided.default(Tensor self, SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None)", ATEN, b_creation, 0, 0,
     "all (a size; values: zeros; stride: the layout of an empty result)"},
    {"arange.default(Scalar end, *, ScalarType? dtype=None)", ATEN, b_arange, 0, 0, "(a number)"},
    {"arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None)", ATEN, b_arange, 0, 0, "(numbers)"},
    {"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None)", ATEN, b_arange, 0, 0, "(numbers)"},
    {"iota.default(SymInt length, *, SymInt start, SymInt step, ScalarType dtype)", PRIMS, b_iota, 0, 0, "(ints; integer dtypes)"},
    {"view.default(Tensor self, SymInt[] size)", ATEN, b_view, 0, 0, "all"},
    {"_unsafe_view.default(Tensor self, SymInt[] size)", ATEN, b_view, 0, 0, "all"},
    {"reshape.default(Tensor self, SymInt[] shape)", ATEN, b_view, 0, 0, "all"},
    {"expand.default(Tensor self, SymInt[] size, *, bool implicit=False)", ATEN, b_expand, 0, 0, "all"},
    {"permute.default(Tensor self, int[] dims)", ATEN, b_permute, 0, 0, "all"},
    {"t.default(Tensor self)", ATEN, b_transpose, 0, 0, "all"},
    {"transpose.int(Tensor self, int dim0, int dim1)", ATEN, b_transpose, 0, 0, "all"},
    {"unsqueeze.default(Tensor self, int dim)", ATEN, b_unsqueeze, 0, 0, "all"},
    {"squeeze.default(Tensor self)", ATEN, b_squeeze, 0, 0, "all"},
    {"squeeze.dim(Tensor self, int dim)", ATEN, b_squeeze, 0, 0, "all"},
    {"squeeze.dims(Tensor self, int[] dim)", ATEN, b_squeeze, 0, 0, "all"},
    {"select.int(Tensor self, int dim, SymInt index)", ATEN, b_select, 0, 0, "all"},
    {"gather.default(Tensor self, int dim, Tensor index, *, bool sparse_grad=False)", ATEN, b_gather, 0, 0, "all (index: int64)"},
    {"take_along_dim.default(Tensor self, Tensor indices, int? dim=None)", ATEN, b_take_along_dim, 0, 0, "all (indices: int64)"},
    {"index_select.default(Tensor self, int dim, Tensor index)", ATEN, b_index_select, 0, 0, "all (index: int32, int64)"},
    {"embedding.default(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False)", ATEN,
     b_embedding, 0, 0, "all (indices: int32, int64; weight: 2-D)"},
    {"index.Tensor(Tensor self, Tensor?[] indices)", ATEN, b_index, 0, 0, "all (index tensors: int32, int64)"},
    {"_unsafe_index.Tensor(Tensor self, Tensor?[] indices)", ATEN, b_index, 0, 0, "all (index tensors: int32, int64; checked)"},
    {"_unsafe_masked_index.default(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill)", ATEN, b_masked_index, 0, 0,
     "all (index tensors: int32, int64; clamped)"},
    {"index_put.default(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False)", ATEN, b_index_put, 0, 0,
     "all (index tensors: int32, int64; accumulate=True: all but bool)"},
    {"_unsafe_index_put.default(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False)", ATEN, b_index_put, 0, 0,
     "all (index tensors: int32, int64; accumulate=True: all but bool; checked)"},
    {"_unsafe_masked_index_put_accumulate.default(Tensor self, Tensor mask, Tensor?[] indices, Tensor values)", ATEN, b_masked_index_put, 0,
     0, "all but bool (one index tensor)"},
    {"index_add.default(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)", ATEN, b_index_add, 0, 0,
     "all but bool (index: int32, int64)"},
    {"scatter.value(Tensor self, int dim, Tensor index, Scalar value)", ATEN, b_scatter, 0, 0, "all (index: int64)"},
    {"scatter.src(Tensor self, int dim, Tensor index, Tensor src)", ATEN, b_scatter, 0, 0, "all (index: int64)"},
    {"index_copy.default(Tensor self, int dim, Tensor index, Tensor source)", ATEN, b_index_copy, 0, 0, "all (index: int64)"},
    {"index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value)", ATEN, b_index_copy, 0, 0, "all (index: int64)"},
    {"index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value)", ATEN, b_index_copy, 0, 0, "all (index: int64)"},
    {"scatter_add.default(Tensor self, int dim, Tensor index, Tensor src)", ATEN, b_scatter, 0, 0, "all but bool (index: int64)"},
    {"slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)", ATEN, b_slice, 0, 0, "all (step: positive)"},
    {"flip.default(Tensor self, int[] dims)", ATEN, b_flip, 0, 0, "all"},
    {"roll.default(Tensor self, SymInt[1] shifts, int[1] dims=[])", ATEN, b_roll, 0, 0, "all"},
    {"triu.default(Tensor self, SymInt diagonal=0)", ATEN, b_triangle, 0, 0, "all (>= 2 dims)"},
    {"tril.default(Tensor self, SymInt diagonal=0)", ATEN, b_triangle, 0, 0, "all (>= 2 dims)"},
    {"diagonal.default(Tensor self, int offset=0, int dim1=0, int dim2=1)", ATEN, b_diagonal, 0, 0, "all (>= 2 dims; a view)"},
    {"diagonal_copy.default(Tensor self, int offset=0, int dim1=0, int dim2=1)", ATEN, b_diagonal, 0, 0, "all (>= 2 dims)"},
    {"diagonal_scatter.default(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1)", ATEN, b_diagonal_scatter, 0, 0,
     "all (src in self's dtype)"},
    {"diag.default(Tensor self, int diagonal=0)", ATEN, b_diag, 0, 0, "all (1-D: a matrix; 2-D: its diagonal)"},
    {"diag_embed.default(Tensor self, int offset=0, int dim1=-2, int dim2=-1)", ATEN, b_diag_embed, 0, 0, "all"},
    {"outer.default(Tensor self, Tensor vec2)", ATEN, b_outer, 0, 0, "all (1-D)"},
    {"ger.default(Tensor self, Tensor vec2)", ATEN, b_outer, 0, 0, "all (1-D)"},
    {"rev.default(Tensor a, int[] dims)", PRIMS, b_flip, 0, 0, "all"},
    {"as_strided.default(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)", ATEN, b_as_strided, 0, 0,
     "all (a contiguous layout of size: a reshape of self's elements in order)"},
    {"max_pool2d.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)",
     ATEN, b_max_pool2d, 0, 0, "all but bool (windows of up to 256 points)"},
    {"max_pool2d_with_indices.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)",
     ATEN, b_max_pool2d, 0, 0, "all but bool ((values, indices); windows of up to 256 points)"},
    {"max_pool2d_with_indices_backward.default(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices)",
     ATEN, b_max_pool2d_backward, 0, 0, "floats"},
    {"as_strided_scatter.default(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)", ATEN,
     b_as_strided_scatter, 0, 0, "all (the views as_strided has; src in self's dtype)"},
    {"reflection_pad1d.default(Tensor self, SymInt[2] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"reflection_pad2d.default(Tensor self, SymInt[4] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"reflection_pad3d.default(Tensor self, SymInt[6] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"replication_pad1d.default(Tensor self, SymInt[2] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"replication_pad2d.default(Tensor self, SymInt[4] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"replication_pad3d.default(Tensor self, SymInt[6] padding)", ATEN, b_pad_mode, 0, 0, "floats"},
    {"narrow.default(Tensor self, int dim, SymInt start, SymInt length)", ATEN, b_narrow, 0, 0, "all"},
    {"split.Tensor(Tensor self, SymInt split_size, int dim=0)", ATEN, b_pieces, 0, 0, "all"},
    {"split_with_sizes.default(Tensor self, SymInt[] split_sizes, int dim=0)", ATEN, b_pieces, 0, 0, "all"},
    {"unbind.int(Tensor self, int dim=0)", ATEN, b_unbind, 0, 0, "all"},
    {"flatten.using_ints(Tensor self, int start_dim=0, int end_dim=-1)", ATEN, b_flatten, 0, 0, "all"},
    {"repeat.default(Tensor self, SymInt[] repeats)", ATEN, b_repeat, 0, 0, "all"},
    {"cat.default(Tensor[] tensors, int dim=0)", ATEN, b_cat, 0, 0, "all (promoted as result_type)"},
    {"stack.default(Tensor[] tensors, int dim=0)", ATEN, b_cat, 0, 0, "all (promoted as result_type)"},
    {"constant_pad_nd.default(Tensor self, SymInt[] pad, Scalar value=0)", ATEN, b_pad, 0, 0, "all"},
    {"slice_scatter.default(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)", ATEN, b_slice_scatter, 0, 0,
     "all (src in self's dtype)"},
    {"select_scatter.default(Tensor self, Tensor src, int dim, SymInt index)", ATEN, b_select_scatter, 0, 0, "all (src in self's dtype)"},
    {"sum.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_SUM, 0, "all (ints and bool: int64)"},
    {"sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_SUM, 0, "all (ints and bool: int64)"},
    {"mean.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_SUM, 0, "floats"},
    {"mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_SUM, 0, "floats"},
    {"prod.default(Tensor self, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_PROD, 0, "all (ints and bool: int64)"},
    {"prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)", ATEN, b_reduce, OP_PROD, 0, "all (ints and bool: int64)"},
    {"amax.default(Tensor self, int[1] dim=[], bool keepdim=False)", ATEN, b_reduce, OP_AMAX, 0, "all"},
    {"amin.default(Tensor self, int[1] dim=[], bool keepdim=False)", ATEN, b_reduce, OP_AMIN, 0, "all"},
    {"max.default(Tensor self)", ATEN, b_reduce, OP_AMAX, 0, "all"},
    {"min.default(Tensor self)", ATEN, b_reduce, OP_AMIN, 0, "all"},
    {"max.dim(Tensor self, int dim, bool keepdim=False)", ATEN, b_max_min, OP_ARGMAX, 0, "all ((values, indices))"},
    {"min.dim(Tensor self, int dim, bool keepdim=False)", ATEN, b_max_min, OP_ARGMIN, 0, "all ((values, indices))"},
    {"argmax.default(Tensor self, int? dim=None, bool keepdim=False)", ATEN, b_argmax, OP_ARGMAX, 0, "floats, ints"},
    {"argmin.default(Tensor self, int? dim=None, bool keepdim=False)", ATEN, b_argmax, OP_ARGMIN, 0, "floats, ints"},
    {"aminmax.default(Tensor self, *, int? dim=None, bool keepdim=False)", ATEN, b_aminmax, 0, 0, "all"},
    {"cumsum.default(Tensor self, int dim, *, ScalarType? dtype=None)", ATEN, b_cumsum, OP_SUM, 0, "all (ints and bool: int64)"},
    {"cumprod.default(Tensor self, int dim, *, ScalarType? dtype=None)", ATEN, b_cumsum, OP_PROD, 0, "all (ints and bool: int64)"},
    {"logcumsumexp.default(Tensor self, int dim)", ATEN, b_cumsum, OP_EXP, 0, "floats"},
    {"_logcumsumexp.default(Tensor self, int dim)", ATEN, b_cumsum, OP_EXP, 0, "floats"},
    {"cummax.default(Tensor self, int dim)", ATEN, b_cummax, OP_ARGMAX, 0, "all ((values, indices))"},
    {"cummin.default(Tensor self, int dim)", ATEN, b_cummax, OP_ARGMIN, 0, "all ((values, indices))"},
    {"diff.default(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None)", ATEN, b_diff, 0, 0,
     "all (bool: logical_xor)"},
    {"trace.default(Tensor self)", ATEN, b_trace, 0, 0, "floats, ints (2-D; ints: int64)"},
    {"any.default(Tensor self)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"any.dim(Tensor self, int dim, bool keepdim=False)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"any.dims(Tensor self, int[]? dim=None, bool keepdim=False)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"all.default(Tensor self)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"all.dim(Tensor self, int dim, bool keepdim=False)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"all.dims(Tensor self, int[]? dim=None, bool keepdim=False)", ATEN, b_logical_reduce, 0, 0, "all"},
    {"var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)", ATEN, b_var_std, 0, 0, "floats"},
    {"std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)", ATEN, b_var_std, 0, 0, "floats"},
    {"var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)", ATEN, b_var_mean, 0, 0, "floats"},
    {"std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)", ATEN, b_var_mean, 0, 0, "floats"},
    {"logsumexp.default(Tensor self, int[1] dim, bool keepdim=False)", ATEN, b_softmax, 0, 0, "all (ints and bool: float32)"},
    {"softmax.int(Tensor self, int dim, ScalarType? dtype=None)", ATEN, b_softmax, 0, 0, "floats (or dtype=)"},
    {"log_softmax.int(Tensor self, int dim, ScalarType? dtype=None)", ATEN, b_softmax, 0, 0, "floats (or dtype=)"},
    {"_softmax.default(Tensor self, int dim, bool half_to_float)", ATEN, b_aten_softmax, 0, 0, "floats"},
    {"_log_softmax.default(Tensor self, int dim, bool half_to_float)", ATEN, b_aten_softmax, 0, 0, "floats"},
};

static const Spelling *find_spelling(const char *name, unsigned form) {
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    if (!strcmp(spellings[i].name, name) && (spellings[i].forms & form)) return &spellings[i];
  return NULL;
}

bool graph_spelling(int i, SpellingInfo *out) {
  if (i < 0 || (size_t)i >= sizeof spellings / sizeof *spellings) return false;
  *out = (SpellingInfo){spellings[i].name, spellings[i].forms, spellings[i].dtypes};
  return true;
}

/* x.NAME(...) */
static Val *call_method(Builder *B, const char *name, GNode *x, Args *A, SrcLoc loc) {
  const Spelling *s = find_spelling(name, SP_TENSOR);
  if (!s) return fail(B, loc, "'%s' is not in coil's subset of tensor ops", name);
  return s->build(B, s, x, A, loc);
}

/* torch.NAME(...): the first argument is the tensor a builder works on,
 * except for the calls whose first argument is something else. */
static Val *call_torch_fn(Builder *B, const char *name, Args *A, SrcLoc loc) {
  if (!strcmp(name, "where")) { /* its first argument is the condition */
    Val *c = arg(A, 0, "condition");
    if (!c || c->kind != V_TENSOR) return fail(B, loc, "torch.where needs a bool tensor condition");
    Args rest = after_first(A);
    return b_where(B, find_spelling(name, SP_TORCH), c->t, &rest, loc);
  }
  static const char *const creators[] = {"zeros", "ones", "full", "arange", "cat", "concat", "concatenate", "stack", "hstack", "vstack",
                                         "row_stack", "dstack", "column_stack", NULL};
  if (name_in(name, creators)) {
    const Spelling *s = find_spelling(name, SP_TORCH);
    return s->build(B, s, NULL, A, loc);
  }
  /* torch.pow(number, tensor): the number is the base (Tensor.__rpow__). */
  if (!strcmp(name, "pow")) {
    Val *base = arg(A, 0, "self"), *e = arg(A, 1, "exponent");
    if (base && is_num(base) && base->kind != V_TENSOR && e) {
      if (!check_args(B, A, name, 2)) return NULL;
      if (e->kind != V_TENSOR) return fail(B, arg_loc(A, 1, "exponent"), "torch.pow needs a tensor base or exponent");
      return mktensor(B, arith(B, OP_POW, base, e, loc));
    }
  }
  /* torch.remainder(2, x), torch.bitwise_left_shift(2, x): a number first */
  static const char *const number_first[] = {"remainder", "bitwise_left_shift", "bitwise_right_shift", "xlogy", NULL};
  if (name_in(name, number_first)) {
    Val *first = arg(A, 0, "input");
    if (first && is_num(first) && first->kind != V_TENSOR) {
      const Spelling *s = find_spelling(name, SP_TORCH);
      return s->build(B, s, NULL, A, loc);
    }
  }
  Val *x = arg(A, 0, "input");
  if (!x) return fail(B, loc, "torch.%s needs a tensor argument", name);
  if (x->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, "input"), "torch.%s expects a tensor as its first argument, got %s", name, kind_name(x));
  const Spelling *s = find_spelling(name, SP_TORCH);
  if (!s) return fail(B, loc, "'%s' is not in coil's subset of tensor ops", name);
  Args rest = after_first(A);
  return s->build(B, s, x->t, &rest, loc);
}

/* torch.special.NAME(...): the functions of torch.special that are
 * torch.NAME under another name, with its semantics. */
static Val *call_special(Builder *B, const char *name, Args *A, SrcLoc loc) {
  static const char *const same[] = {"xlogy", "sinc", "expm1", "exp2", "log1p", "erf", "erfc", "erfinv", "logsumexp", NULL};
  if (!name_in(name, same)) return fail(B, loc, "torch.special.%s is not in coil's subset", name);
  return call_torch_fn(B, name, A, loc);
}

/* ------------------------------------------------------------ ATen */

/* torch.ops.aten.NAME.OVERLOAD(...) and torch.ops.prims.NAME.OVERLOAD(...),
 * as a torch.compile backend prints a graph partition (with aten =
 * torch.ops.aten).  The call is bound to the overload's schema, as
 * PyTorch binds it, and handed to the row's builder. */

/* SP_ATEN for torch.ops.aten, SP_PRIMS for torch.ops.prims, else 0. */
static unsigned aten_form(const char *module) {
  if (!module) return 0; /* a value that names no module (an attribute of a tensor, say) */
  return !strcmp(module, "torch.ops.aten") ? SP_ATEN : !strcmp(module, "torch.ops.prims") ? SP_PRIMS : 0;
}

/* The namespace as the backend's printer names it. */
static const char *aten_prefix(unsigned form) { return form & SP_PRIMS ? "prims" : "aten"; }

static bool span_is(const char *s, size_t n, const char *word) { return strlen(word) == n && !memcmp(s, word, n); }

/* Is row s the op `op` of namespace form, and of that overload (any, when
 * NULL)?  Its name is "OP.OVERLOAD(ARGS)". */
static bool aten_row(const Spelling *s, unsigned form, const char *op, const char *overload) {
  if (!(s->forms & form)) return false;
  const char *dot = strchr(s->name, '.');
  return span_is(s->name, (size_t)(dot - s->name), op) && (!overload || span_is(dot + 1, strcspn(dot + 1, "("), overload));
}

/* "aten.add.Tensor": how errors name an overload. */
static const char *aten_name(Builder *B, const Spelling *s) {
  return arena_printf(B->a, "%s.%.*s", aten_prefix(s->forms), (int)strcspn(s->name, "("), s->name);
}

/* One argument of a schema: "int[1]? dim=None" (dflt NULL: none). */
typedef struct SchemaArg {
  const char *type, *name, *dflt;
  size_t ntype, nname, ndflt;
  bool kwonly;
} SchemaArg;

#define MAX_SCHEMA_ARGS 8

/* The arguments of a row's schema, "OP.OVERLOAD(ARG, ..., *, ARG...)". */
static int schema_args(const char *schema, SchemaArg *out) {
  const char *p = strchr(schema, '(') + 1;
  int n = 0;
  bool kwonly = false;
  while (*p != ')') {
    if (*p == '*') {
      kwonly = true;
      p++;
    } else {
      SchemaArg *a = &out[n++];
      *a = (SchemaArg){.type = p, .ntype = strcspn(p, " "), .kwonly = kwonly};
      a->name = p += a->ntype + 1;
      p += a->nname = strcspn(p, "=,)");
      if (*p == '=') {
        a->dflt = ++p;
        p += a->ndflt = strcspn(p, ",)");
      }
    }
    if (*p == ',') p += 2;
  }
  return n;
}

/* What an argument of type a->type takes (without "or None"); NULL when v
 * is one.  The overload's first tensor is the one it works on; a later
 * one may be a number, which PyTorch wraps (add.Tensor(x, 1e-06)). */
static const char *schema_want(const SchemaArg *a, const Val *v, bool first_tensor) {
  const char *t = a->type;
  size_t n = a->ntype - (t[a->ntype - 1] == '?');
  const char *bracket = memchr(t, '[', n);
  if (bracket && !strncmp(t, "Tensor?[", 8)) {
    bool ok = v->kind == V_TUPLE;
    for (int i = 0; ok && i < v->n; i++) ok = v->items[i]->kind == V_TENSOR || v->items[i]->kind == V_NONE;
    return ok ? NULL : "a list of tensors or None";
  }
  if (bracket && !strncmp(t, "Tensor[", 7)) {
    bool ok = v->kind == V_TUPLE;
    for (int i = 0; ok && i < v->n; i++) ok = v->items[i]->kind == V_TENSOR;
    return ok ? NULL : "a list of tensors";
  }
  if (bracket) {
    bool ok = v->kind == V_TUPLE || (bracket[1] != ']' && v->kind == V_INT); /* int[1]: an int is a list of one */
    for (int i = 0; ok && v->kind == V_TUPLE && i < v->n; i++) ok = v->items[i]->kind == V_INT || v->items[i]->kind == V_BOOL;
    return ok ? NULL : "a list of ints";
  }
  if (span_is(t, n, "Tensor"))
    return v->kind == V_TENSOR || (!first_tensor && is_num(v)) ? NULL : first_tensor ? "a tensor" : "a tensor or a number";
  if (span_is(t, n, "Scalar")) return is_num(v) && v->kind != V_TENSOR ? NULL : "a number";
  if (span_is(t, n, "int") || span_is(t, n, "SymInt")) return v->kind == V_INT || v->kind == V_BOOL ? NULL : "an int";
  if (span_is(t, n, "float")) return v->kind == V_INT || v->kind == V_FLOAT ? NULL : "a number";
  if (span_is(t, n, "bool")) return v->kind == V_BOOL ? NULL : "True or False";
  if (span_is(t, n, "ScalarType")) return v->kind == V_DTYPE ? NULL : "a dtype such as torch.float32";
  if (span_is(t, n, "str")) return v->kind == V_STR ? NULL : "a string";
  coil_unreachable("schema_want: a type no row uses");
}

/* The value of an argument's default: None, True, False, [], a number or
 * a string. */
static Val *schema_default(Builder *B, const SchemaArg *a) {
  const char *d = a->dflt;
  size_t n = a->ndflt;
  if (span_is(d, n, "None")) return mkval(B, V_NONE);
  if (span_is(d, n, "True") || span_is(d, n, "False")) return mkbool(B, d[0] == 'T');
  if (span_is(d, n, "[]")) {
    Val *t = tuple_of(B, 0);
    t->list = true;
    return t;
  }
  if (d[0] == '"' || d[0] == '\'') {
    Val *v = mkval(B, V_STR);
    v->name = arena_strndup(B->a, d + 1, n - 2);
    return v;
  }
  if (memchr(d, '.', n)) {
    Val *v = mkval(B, V_FLOAT);
    v->f = strtod(d, NULL);
    return v;
  }
  return mkint(B, strtoll(d, NULL, 10));
}

/* Bind the arguments of a call (of the op named at loc) to row s's schema
 * as PyTorch does, and put them in the form its builder reads: x, the
 * overload's first argument when it is a tensor (else NULL), and in rest
 * every positional argument up to the last one given (one skipped takes
 * its default) and the keyword-only ones given.  NULL, or why the call
 * does not fit, with its position in *at. */
static const char *aten_bind(Builder *B, const Spelling *s, Args *A, SrcLoc loc, GNode **x, Args *rest, SrcLoc *at) {
  static const char *const placement[] = {"device", "layout", "pin_memory", "memory_format", "requires_grad", "non_blocking", NULL};
  const char *name = aten_name(B, s);
  SchemaArg sa[MAX_SCHEMA_ARGS];
  int n = schema_args(s->name, sa), npos = 0;
  while (npos < n && !sa[npos].kwonly) npos++;
  Val *v[MAX_SCHEMA_ARGS] = {0};
  SrcLoc l[MAX_SCHEMA_ARGS];
  if (A->npos > npos) {
    *at = A->locs[npos];
    return arena_printf(B->a, "%s takes %d positional argument%s but %d were given", name, npos, npos == 1 ? "" : "s", A->npos);
  }
  for (int i = 0; i < A->npos; i++) v[i] = A->pos[i], l[i] = A->locs[i];
  for (int k = 0; k < A->nkw; k++) {
    int i = 0;
    while (i < n && !span_is(sa[i].name, sa[i].nname, A->kwn[k])) i++;
    if (i == n && name_in(A->kwn[k], placement)) continue;
    *at = A->kwlocs[k];
    if (i == n) return arena_printf(B->a, "%s got an unexpected keyword argument '%s'", name, A->kwn[k]);
    if (v[i]) return arena_printf(B->a, "%s got multiple values for argument '%s'", name, A->kwn[k]);
    v[i] = A->kwv[k], l[i] = A->kwlocs[k];
  }
  /* add, sub, mul and div take a number as self too, as PyTorch's parser
   * lets them (1 - x is sub.Tensor(1, x)); b_binary takes it with x NULL. */
  bool number_self = s->build == b_binary && (s->op == OP_ADD || s->op == OP_SUB || s->op == OP_MUL || s->op == OP_DIV);
  bool tensor_seen = number_self;
  for (int i = 0; i < n; i++) {
    bool first_tensor = !tensor_seen && !strncmp(sa[i].type, "Tensor", 6);
    tensor_seen |= first_tensor;
    if (!v[i]) {
      *at = loc;
      if (!sa[i].dflt) return arena_printf(B->a, "%s missing required argument '%.*s'", name, (int)sa[i].nname, sa[i].name);
      continue;
    }
    bool optional = sa[i].type[sa[i].ntype - 1] == '?';
    const char *want = optional && v[i]->kind == V_NONE ? NULL : schema_want(&sa[i], v[i], first_tensor);
    *at = l[i];
    if (want)
      return arena_printf(B->a, "%s: argument '%.*s' must be %s%s, got %s", name, (int)sa[i].nname, sa[i].name, want,
                          optional ? " or None" : "", kind_name(v[i]));
  }
  int first = span_is(sa[0].type, sa[0].ntype, "Tensor") && v[0]->kind == V_TENSOR, last = first - 1;
  for (int i = first; i < npos; i++)
    if (v[i]) last = i;
  *x = first ? v[0]->t : NULL;
  *rest = (Args){.at = A->at, .npos = last + 1 - first};
  rest->pos = ARENA_ARRAY(B->a, Val *, n + 1);
  rest->locs = ARENA_ARRAY(B->a, SrcLoc, n + 1);
  rest->kwn = ARENA_ARRAY(B->a, const char *, n + 1);
  rest->kwv = ARENA_ARRAY(B->a, Val *, n + 1);
  rest->kwlocs = ARENA_ARRAY(B->a, SrcLoc, n + 1);
  rest->kwused = ARENA_ARRAY(B->a, bool, n + 1);
  for (int i = first; i <= last; i++) {
    rest->pos[i - first] = v[i] ? v[i] : schema_default(B, &sa[i]);
    rest->locs[i - first] = v[i] ? l[i] : A->at;
  }
  for (int i = npos; i < n; i++)
    if (v[i]) {
      rest->kwn[rest->nkw] = arena_strndup(B->a, sa[i].name, sa[i].nname);
      rest->kwv[rest->nkw] = v[i];
      rest->kwlocs[rest->nkw++] = l[i];
    }
  return NULL;
}

/* aten.NAME.OVERLOAD(...); aten.NAME(...) (fn->overload NULL) takes the
 * first of the op's rows whose schema the arguments fit, as PyTorch's
 * packet picks the first overload that takes them. */
static Val *call_aten(Builder *B, const Val *fn, Args *A, SrcLoc loc) {
  unsigned form = aten_form(fn->ns);
  const char *tried = "";
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
    const Spelling *s = &spellings[i];
    if (!aten_row(s, form, fn->name, fn->overload)) continue;
    GNode *x = NULL;
    Args rest;
    SrcLoc at;
    const char *why = aten_bind(B, s, A, loc, &x, &rest, &at);
    if (why && fn->overload) return fail(B, at, "%s", why);
    if (why) {
      tried = arena_printf(B->a, "%s%s%s", tried, *tried ? ", " : "", aten_name(B, s));
      continue;
    }
    Spelling op = *s; /* its builder knows it by its name, "add" */
    op.name = arena_strndup(B->a, s->name, strcspn(s->name, "."));
    return op.build(B, &op, x, &rest, loc);
  }
  return fail(B, loc, "%s.%s: none of its overloads in coil's subset (%s) takes these arguments", aten_prefix(form), fn->name, tried);
}

/* torch.ops.aten.NAME: the op's packet, if coil has the op. */
static Val *aten_packet(Builder *B, const char *module, const char *name, SrcLoc loc) {
  unsigned form = aten_form(module);
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    if (aten_row(&spellings[i], form, name, NULL)) {
      Val *f = mkval(B, V_FN);
      f->ns = module;
      f->name = name;
      return f;
    }
  return fail(B, loc, "%s.%s is not in coil's subset (docs/ops.md lists the ATen overloads it compiles)", aten_prefix(form), name);
}

/* aten.NAME.OVERLOAD: one of the packet's overloads, if coil has it. */
static Val *aten_overload(Builder *B, const Val *packet, const char *overload, SrcLoc loc) {
  unsigned form = aten_form(packet->ns);
  const char *has = "";
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
    const Spelling *s = &spellings[i];
    if (aten_row(s, form, packet->name, overload)) {
      Val *f = mkval(B, V_FN);
      *f = *packet;
      f->overload = overload;
      return f;
    }
    if (aten_row(s, form, packet->name, NULL)) has = arena_printf(B->a, "%s%s%s", has, *has ? ", " : "", aten_name(B, s));
  }
  return fail(B, loc, "%s.%s.%s is not in coil's subset (it has %s)", aten_prefix(form), packet->name, overload, has);
}

/* ------------------------------------------------------------ modules */

/* The modules a function can name: torch and its submodules that hold
 * ops, and math.  Anything else imported is a clear error at its use. */
static const char *const known_modules[] = {"torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special", "torch.ops",
                                            "torch.ops.aten", "torch.ops.prims", "math", NULL};

static Val *mkmodule(Builder *B, const char *name) {
  Val *v = mkval(B, V_MODULE);
  v->name = name;
  return v;
}

static Val *mkfloat(Builder *B, double f) {
  Val *v = mkval(B, V_FLOAT);
  v->f = f;
  return v;
}

static Val *mkfn(Builder *B, const char *ns, const char *name) {
  Val *f = mkval(B, V_FN);
  f->ns = ns;
  f->name = name;
  return f;
}

static Val *module_attr(Builder *B, const char *mod, const char *name, SrcLoc loc) {
  if (!name_in(mod, known_modules)) return fail(B, loc, "module '%s' is not in coil's subset", mod);
  const char *sub = arena_printf(B->a, "%s.%s", mod, name);
  if (name_in(sub, known_modules)) return mkmodule(B, sub);
  if (!strcmp(mod, "torch.ops")) return fail(B, loc, "torch.ops.%s is not in coil's subset (torch.ops.aten and torch.ops.prims are)", name);
  if (aten_form(mod)) return aten_packet(B, mod, name, loc);
  if (!strcmp(mod, "torch")) {
    for (size_t i = 0; i < sizeof torch_dtypes / sizeof *torch_dtypes; i++)
      if (!strcmp(name, torch_dtypes[i].name)) {
        Val *v = mkval(B, V_DTYPE);
        v->dt = torch_dtypes[i].dt;
        return v;
      }
    static const struct { const char *name; double value; } consts[] = {
        {"inf", INFINITY}, {"nan", NAN}, {"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536}};
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
      if (!strcmp(name, consts[i].name)) return mkfloat(B, consts[i].value);
    static const char *const submodules[] = {"cuda", "fft", "distributions", "autograd", "jit", NULL};
    if (name_in(name, submodules)) return fail(B, loc, "torch.%s is not in coil's subset", name);
    return mkfn(B, "torch", name);
  }
  if (!strcmp(mod, "torch.nn"))
    return fail(B, loc, "torch.nn.%s is not in coil's subset: an nn.Module is compiled by the torch.compile backend "
                        "(torch.compile(model, backend=\"coil\")); here, use torch.nn.functional", name);
  if (!strcmp(mod, "math")) {
    static const struct { const char *name; double value; } consts[] = {
        {"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536}, {"tau", 6.28318530717958647692},
        {"inf", INFINITY}, {"nan", NAN}};
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
      if (!strcmp(name, consts[i].name)) return mkfloat(B, consts[i].value);
  }
  return mkfn(B, mod, name);
}

static bool num_value(Builder *B, Val *v, SrcLoc loc, const char *fname, double *out) {
  if (v && (v->kind == V_INT || v->kind == V_BOOL)) { *out = (double)v->i; return true; }
  if (v && v->kind == V_FLOAT) { *out = v->f; return true; }
  fail(B, loc, "%s expects a Python number, got %s%s", fname, v ? kind_name(v) : "nothing",
       v && v->kind == V_TENSOR ? " (use the torch function on tensors)" : "");
  return false;
}

/* math.NAME(...): Python numbers in, a Python number out, known when
 * compiling (math.sqrt(d) in a scale factor). */
static Val *call_math(Builder *B, const char *name, Args *A, SrcLoc loc) {
  static const struct { const char *name; double (*f)(double); } unary[] = {
      {"sqrt", sqrt}, {"exp", exp}, {"expm1", expm1}, {"log2", log2}, {"log10", log10}, {"log1p", log1p},
      {"sin", sin}, {"cos", cos}, {"tan", tan}, {"asin", asin}, {"acos", acos}, {"atan", atan},
      {"sinh", sinh}, {"cosh", cosh}, {"tanh", tanh}, {"asinh", asinh}, {"acosh", acosh}, {"atanh", atanh},
      {"erf", erf}, {"erfc", erfc}, {"fabs", fabs}, {"gamma", tgamma}, {"lgamma", lgamma},
  };
  double x, y;
  for (size_t i = 0; i < sizeof unary / sizeof *unary; i++)
    if (!strcmp(name, unary[i].name)) {
      if (!num_value(B, arg(A, 0, "x"), arg_loc(A, 0, "x"), arena_printf(B->a, "math.%s", name), &x) || !check_args(B, A, name, 1))
        return NULL;
      double r = unary[i].f(x);
      /* Python raises where C returns NaN or inf from a finite argument. */
      if (!isfinite(r) && isfinite(x)) return fail(B, loc, "math.%s(%g): math domain error", name, x);
      return mkfloat(B, r);
    }
  if (!strcmp(name, "log")) {
    Val *b = arg(A, 1, "base");
    if (!num_value(B, arg(A, 0, "x"), arg_loc(A, 0, "x"), "math.log", &x) || !check_args(B, A, name, 2)) return NULL;
    if (x <= 0) return fail(B, loc, "math.log(%g): math domain error", x);
    if (!b) return mkfloat(B, log(x));
    if (!num_value(B, b, arg_loc(A, 1, "base"), "math.log", &y)) return NULL;
    return mkfloat(B, log(x) / log(y));
  }
  if (!strcmp(name, "pow") || !strcmp(name, "atan2") || !strcmp(name, "hypot") || !strcmp(name, "copysign") ||
      !strcmp(name, "fmod")) {
    if (!num_value(B, arg(A, 0, "x"), arg_loc(A, 0, "x"), name, &x) || !num_value(B, arg(A, 1, "y"), arg_loc(A, 1, "y"), name, &y) ||
        !check_args(B, A, name, 2))
      return NULL;
    double r = name[0] == 'p' ? pow(x, y) : name[0] == 'a' ? atan2(x, y) : name[0] == 'h' ? hypot(x, y)
             : name[0] == 'c' ? copysign(x, y) : fmod(x, y);
    if (isnan(r) && !isnan(x) && !isnan(y)) return fail(B, loc, "math.%s: math domain error", name);
    return mkfloat(B, r);
  }
  if (!strcmp(name, "floor") || !strcmp(name, "ceil") || !strcmp(name, "trunc")) {
    if (!num_value(B, arg(A, 0, "x"), arg_loc(A, 0, "x"), name, &x) || !check_args(B, A, name, 1)) return NULL;
    double r = name[0] == 'f' ? floor(x) : name[0] == 'c' ? ceil(x) : trunc(x);
    if (!isfinite(r) || fabs(r) > 9.2e18) return fail(B, loc, "math.%s(%g): cannot convert to an integer", name, x);
    return mkint(B, (int64_t)r);
  }
  if (!strcmp(name, "isnan") || !strcmp(name, "isinf") || !strcmp(name, "isfinite")) {
    if (!num_value(B, arg(A, 0, "x"), arg_loc(A, 0, "x"), name, &x) || !check_args(B, A, name, 1)) return NULL;
    Val *v = mkval(B, V_BOOL);
    v->i = name[2] == 'n' ? isnan(x) : name[2] == 'i' ? isinf(x) : isfinite(x);
    return v;
  }
  return fail(B, loc, "math.%s is not in coil's subset", name);
}

/* float(x), int(x), bool(x), abs(x), min(a, b, ...), max(a, b, ...) of
 * Python values known when compiling; float("nan") and float("-inf") too. */
static Val *mktuple(Builder *B, int n, bool list) {
  Val *t = mkval(B, V_TUPLE);
  t->items = ARENA_ARRAY(B->a, Val *, n + 1);
  t->list = list;
  return t;
}

/* A range's items; a loop over it is unrolled, so its length has a bound. */
#define MAX_RANGE (1 << 20)

/* len, range, zip, enumerate, reversed, tuple, list and isinstance of
 * values known when compiling; NULL (no error) for another name. */
static Val *call_sequence_builtin(Builder *B, const char *name, Args *A, SrcLoc loc) {
  Val *x = arg(A, 0, NULL);
  if (!strcmp(name, "range")) {
    int64_t v[3] = {0, 0, 1};
    if (A->npos < 1 || A->npos > 3) return fail(B, loc, "range() takes 1 to 3 arguments, got %d", A->npos);
    if (!check_args(B, A, name, 3)) return NULL;
    for (int i = 0; i < A->npos; i++)
      if (!get_int(B, A->pos[i], arg_loc(A, i, NULL), "a range() argument", &v[A->npos == 1 ? 1 : i])) return NULL;
    if (v[2] == 0) return fail(B, arg_loc(A, 2, NULL), "range() arg 3 must not be zero");
    int64_t len = v[2] > 0 ? (v[1] > v[0] ? (v[1] - v[0] + v[2] - 1) / v[2] : 0)
                           : (v[0] > v[1] ? (v[0] - v[1] - v[2] - 1) / -v[2] : 0);
    if (len > MAX_RANGE)
      return fail(B, loc, "range() of %lld items: coil unrolls loops when compiling, and a range has at most %d items",
                  (long long)len, MAX_RANGE);
    Val *t = mktuple(B, (int)len, false);
    for (int64_t i = 0; i < len; i++) t->items[t->n++] = mkint(B, v[0] + i * v[2]);
    return t;
  }
  if (!strcmp(name, "zip")) {
    if (!check_args(B, A, name, A->npos)) return NULL;
    int len = INT32_MAX;
    for (int i = 0; i < A->npos; i++) {
      if (A->pos[i]->kind != V_TUPLE) return fail(B, arg_loc(A, i, NULL), "zip() takes tuples and lists, got %s", kind_name(A->pos[i]));
      if (A->pos[i]->n < len) len = A->pos[i]->n;
    }
    if (!A->npos) len = 0;
    Val *t = mktuple(B, len, false);
    for (int k = 0; k < len; k++) {
      Val *row = mktuple(B, A->npos, false);
      for (int i = 0; i < A->npos; i++) row->items[row->n++] = A->pos[i]->items[k];
      t->items[t->n++] = row;
    }
    return t;
  }
  if (!x) return fail(B, loc, "%s() needs an argument", name);
  if (!strcmp(name, "isinstance")) {
    Val *ty = arg(A, 1, NULL);
    if (!ty || !check_args(B, A, name, 2)) return ty ? NULL : fail(B, loc, "isinstance() needs two arguments");
    Val **types = ty->kind == V_TUPLE ? ty->items : &ty;
    int n = ty->kind == V_TUPLE ? ty->n : 1;
    bool hit = false;
    for (int i = 0; i < n; i++) {
      Val *t = types[i];
      const char *tn = t->kind == V_FN && !t->self && !t->func ? t->name : "";
      bool builtin = t->kind == V_FN && !strcmp(t->ns, "builtins"), torch = t->kind == V_FN && !strcmp(t->ns, "torch");
      if (torch && !strcmp(tn, "Tensor")) hit |= x->kind == V_TENSOR;
      else if (builtin && !strcmp(tn, "int")) hit |= x->kind == V_INT || x->kind == V_BOOL;
      else if (builtin && !strcmp(tn, "float")) hit |= x->kind == V_FLOAT;
      else if (builtin && !strcmp(tn, "bool")) hit |= x->kind == V_BOOL;
      else if (builtin && !strcmp(tn, "tuple")) hit |= x->kind == V_TUPLE && !x->list;
      else if (builtin && !strcmp(tn, "list")) hit |= x->kind == V_TUPLE && x->list;
      else return fail(B, arg_loc(A, 1, NULL), "isinstance() takes torch.Tensor, int, float, bool, tuple or list in coil's subset");
    }
    return mkbool(B, hit);
  }
  int64_t start = 0;
  Val *sv = !strcmp(name, "enumerate") ? arg(A, 1, "start") : NULL;
  if (sv && !get_int(B, sv, arg_loc(A, 1, "start"), "enumerate's start", &start)) return NULL;
  if (!check_args(B, A, name, !strcmp(name, "enumerate") ? 2 : 1)) return NULL;
  if (!strcmp(name, "len")) {
    if (x->kind == V_TUPLE) return mkint(B, x->n);
    if (x->kind == V_STR) return mkint(B, (int64_t)strlen(x->name));
    if (x->kind == V_TENSOR && x->t->ndim) return mkint(B, x->t->shape[0]);
    return fail(B, arg_loc(A, 0, NULL), "len() of %s", x->kind == V_TENSOR ? "a 0-d tensor" : kind_name(x));
  }
  if (x->kind != V_TUPLE)
    return fail(B, arg_loc(A, 0, NULL), "%s() takes a tuple or a list in coil's subset, got %s%s", name, kind_name(x),
                x->kind == V_TENSOR ? " (iterating over a tensor's rows is not in the subset: index x[i] in a loop over range(x.shape[0]))" : "");
  Val *t = mktuple(B, x->n, !strcmp(name, "list"));
  for (int i = 0; i < x->n; i++) {
    Val *it = x->items[!strcmp(name, "reversed") ? x->n - 1 - i : i];
    if (!strcmp(name, "enumerate")) {
      Val *pair = mktuple(B, 2, false);
      pair->items[0] = mkint(B, start + i);
      pair->items[1] = it;
      pair->n = 2;
      it = pair;
    }
    t->items[t->n++] = it;
  }
  return t;
}

static Val *call_builtin(Builder *B, const char *name, Args *A, SrcLoc loc) {
  static const char *const seq[] = {"len", "range", "zip", "enumerate", "isinstance", "tuple", "list", "reversed", NULL};
  if (name_in(name, seq)) return call_sequence_builtin(B, name, A, loc);
  Val *x = arg(A, 0, NULL);
  if (!strcmp(name, "min") || !strcmp(name, "max")) {
    Val **items = A->pos;
    int n = A->npos;
    if (n == 1 && x->kind == V_TUPLE) items = x->items, n = x->n;
    if (n == 0) return fail(B, loc, "%s() needs at least one value", name);
    if (!check_args(B, A, name, A->npos)) return NULL;
    Val *best = NULL;
    double bv = 0;
    for (int i = 0; i < n; i++) {
      double v;
      if (items[i]->kind == V_TENSOR)
        return fail(B, loc, "%s() of tensors is not in coil's subset: use x.a%s(dim) or torch.%simum(a, b)", name, name,
                    name);
      if (!num_value(B, items[i], arg_loc(A, i, NULL), name, &v)) return NULL;
      if (!best || (name[1] == 'a' ? v > bv : v < bv)) best = items[i], bv = v;
    }
    return best;
  }
  if (!x) return fail(B, loc, "%s() needs an argument", name);
  if (!check_args(B, A, name, 1)) return NULL;
  if (x->kind == V_TENSOR && !strcmp(name, "abs")) return neg_abs(B, OP_ABS, x->t, loc); /* Tensor.__abs__ */
  if (x->kind == V_TENSOR)
    return fail(B, arg_loc(A, 0, NULL), "%s() of a tensor needs its values, which coil does not know when compiling%s", name,
                !strcmp(name, "bool") ? "; branch with torch.where" : "");
  if (!strcmp(name, "float") && x->kind == V_STR) {
    const char *t = x->name;
    bool neg = *t == '-';
    if (*t == '-' || *t == '+') t++;
    double v;
    if (!strcasecmp(t, "nan")) v = NAN;
    else if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) v = INFINITY;
    else {
      char *end;
      v = strtod(t, &end);
      if (!*t || *end) return fail(B, arg_loc(A, 0, NULL), "could not convert string to float: '%s'", x->name);
    }
    return mkfloat(B, neg ? -v : v);
  }
  double v;
  if (!num_value(B, x, arg_loc(A, 0, NULL), name, &v)) return NULL;
  if (!strcmp(name, "float")) return mkfloat(B, v);
  if (!strcmp(name, "abs")) return x->kind == V_FLOAT ? mkfloat(B, fabs(v)) : mkint(B, x->i < 0 ? -x->i : x->i);
  if (!strcmp(name, "bool")) {
    Val *r = mkval(B, V_BOOL);
    r->i = v != 0;
    return r;
  }
  if (!isfinite(v) || fabs(v) > 9.2e18) return fail(B, loc, "int(%g): cannot convert to an integer", v);
  return mkint(B, x->kind == V_FLOAT ? (int64_t)trunc(v) : x->i);
}

/* F.NAME(input, ...) (torch.nn.functional) and torch.linalg.NAME(x, ...). */
static Val *call_functional(Builder *B, const char *name, Args *A, SrcLoc loc, SpellingForm form) {
  const char *mod = form == SP_F ? "torch.nn.functional" : "torch.linalg";
  const Spelling *s = find_spelling(name, form);
  if (!s) return fail(B, loc, "%s.%s is not in coil's subset", mod, name);
  Val *x = arg(A, 0, "input");
  if (!x) return fail(B, loc, "%s.%s needs a tensor argument", mod, name);
  if (x->kind != V_TENSOR)
    return fail(B, arg_loc(A, 0, "input"), "%s.%s expects a tensor as its first argument, got %s", mod, name, kind_name(x));
  /* inplace=True writes the result over the input; in a function that
   * returns it, the values are the same. */
  (void)arg(A, -1, "inplace");
  Args rest = after_first(A);
  return s->build(B, s, x->t, &rest, loc);
}

/* ------------------------------------------------------------ evaluation */

/* The current frame's binding of name, or NULL. */
static Binding *local_slot(Builder *B, const char *name) {
  for (int i = B->nenv - 1; i >= B->frame->base; i--)
    if (!strcmp(B->env[i].name, name)) return &B->env[i];
  return NULL;
}

/* The frame's own bindings, then the module's constants.  NULL when
 * neither binds name (the caller tries the file's defs, imports and
 * builtins). */
static Val *lookup(Builder *B, const char *name) {
  Binding *b = local_slot(B, name);
  if (b) return b->val;
  if (B->frame->base == 0) return NULL; /* the top level: its bindings are the frame's */
  for (int i = B->nglobals - 1; i >= 0; i--)
    if (!strcmp(B->env[i].name, name)) return B->env[i].val;
  return NULL;
}

/* Bind in the current frame: a name rebound in a loop keeps one slot. */
static void bind(Builder *B, const char *name, Val *v) {
  if (v->kind == V_TENSOR && !v->t->label && v->t->op != OP_INPUT) v->t->label = name;
  Binding *b = local_slot(B, name);
  if (b) {
    b->val = v;
    return;
  }
  if (B->nenv == B->capenv) {
    B->capenv = B->capenv ? B->capenv * 2 : 32;
    Binding *e = ARENA_ARRAY(B->a, Binding, B->capenv);
    if (B->nenv) memcpy(e, B->env, sizeof(Binding) * (size_t)B->nenv);
    B->env = e;
  }
  B->env[B->nenv++] = (Binding){name, v};
}

/* The node whose memory a tensor's views read. */
static GNode *storage_base(GNode *n) {
  while (op_info[n->op].kind == OK_VIEW && n->op != OP_PAD) n = n->in[0]; /* a pad is a new tensor */
  return n;
}

/* A view (or the tensor itself, as x.float() of an f32 x is) shares its
 * source's memory, as in PyTorch: it keeps the source's storage number. */
static Val *same_storage(Val *r, const Val *from) {
  if (r && from && r != from && r->kind == V_TENSOR && from->kind == V_TENSOR && storage_base(r->t) == storage_base(from->t))
    r->storage = from->storage;
  return r;
}

static bool shares_memory(const Val *v, const Val *t) {
  if (v->kind == V_TUPLE) {
    for (int i = 0; i < v->n; i++)
      if (shares_memory(v->items[i], t)) return true;
    return false;
  }
  return v->kind == V_TENSOR && v->storage == t->storage && storage_base(v->t) == storage_base(t->t);
}

/* The bounds of lo:hi:step over a sequence of len items, clamped as Python
 * clamps them.  Tensors take a positive step (as PyTorch's); tuples any
 * nonzero step. */
static bool slice_bounds(Builder *B, Node *sl, int64_t len, bool any_step, int64_t *lo, int64_t *hi, int64_t *step) {
  Val *v[3] = {NULL, NULL, NULL};
  Node *part[3] = {sl->lhs, sl->rhs, sl->nitems ? sl->items[0] : NULL};
  static const char *what[3] = {"a slice's start", "a slice's stop", "a slice's step"};
  int64_t x[3];
  for (int i = 0; i < 3; i++) {
    if (!part[i]) continue;
    if (!(v[i] = eval(B, part[i]))) return false;
    if (v[i]->kind == V_NONE) { v[i] = NULL; continue; }
    if (!get_int(B, v[i], part[i]->loc, what[i], &x[i])) return false;
  }
  *step = v[2] ? x[2] : 1;
  if (*step == 0) { fail(B, part[2]->loc, "slice step cannot be zero"); return false; }
  if (!any_step && *step < 0) {
    fail(B, part[2]->loc, "step must be greater than zero (as in PyTorch; x.flip(dim) reverses)");
    return false;
  }
  *lo = x[0];
  *hi = x[1];
  clamp_slice(len, *step, v[0] != NULL, v[1] != NULL, lo, hi);
  return true;
}

/* Basic indexing of a tensor, as PyTorch has it: ints select (the dim goes),
 * lo:hi slices narrow, None inserts a dim of size 1, and one ... stands for
 * every dim not named.  The result is a box of x (OP_SLICE) reshaped: a
 * view, no copy.  Index tensors (advanced indexing) are applied to that
 * view as PyTorch applies them after the ints, slices and Nones: a 0-d one
 * selects as an int does (its dim goes), the others index together
 * (read_at_indices: broadcast, their dims in place where adjacent in the
 * view, else first). */
static Val *index_tensor(Builder *B, GNode *x, Node *rhs, SrcLoc loc) {
  Node *one[1] = {rhs};
  Node **items = one;
  int nitems = 1;
  if (rhs->kind == ND_TUPLE) items = rhs->items, nitems = rhs->nitems;
  int consumed = 0, ellipsis = -1;
  for (int i = 0; i < nitems; i++) {
    if (items[i]->kind == ND_ELLIPSIS) {
      if (ellipsis >= 0) return fail(B, items[i]->loc, "an index can only have a single ellipsis ('...')");
      ellipsis = i;
    } else if (items[i]->kind != ND_NONE) {
      consumed++;
    }
  }
  if (consumed > x->ndim)
    return fail(B, loc, "too many indices for a tensor of dimension %d (%d given)", x->ndim, consumed);
  int64_t start[COIL_MAX_DIMS] = {0}, steps[COIL_MAX_DIMS], box[COIL_MAX_DIMS], shape[COIL_MAX_DIMS + COIL_MAX_DIMS];
  memcpy(box, x->shape, sizeof(int64_t) * (size_t)x->ndim);
  for (int d = 0; d < x->ndim; d++) steps[d] = 1;
  int d = 0, nd = 0, nt = 0, tdim[COIL_MAX_DIMS];
  GNode *tensors[COIL_MAX_DIMS];
  SrcLoc tloc = loc;
  for (int i = 0; i < nitems; i++) {
    Node *it = items[i];
    if (it->kind == ND_ELLIPSIS) {
      for (int k = 0; k < x->ndim - consumed; k++, d++) shape[nd++] = x->shape[d];
      continue;
    }
    if (it->kind == ND_SLICE) {
      int64_t lo, hi, step;
      if (!slice_bounds(B, it, x->shape[d], false, &lo, &hi, &step)) return NULL;
      start[d] = lo;
      steps[d] = step;
      box[d] = (hi - lo + step - 1) / step; /* lo:hi:step, a strided view */
      shape[nd++] = box[d];
      d++;
      continue;
    }
    Val *v = eval(B, it);
    if (!v) return NULL;
    if (v->kind == V_NONE) {
      shape[nd++] = 1;
      continue;
    }
    if (v->kind == V_TENSOR) {
      /* x[..., idx, ...]: the box first (a view), then the index tensors */
      if (!(tensors[nt] = index_arg(B, v, it->loc, "indexing", "an index tensor", true))) return NULL;
      if (!nt) tloc = it->loc;
      tdim[nt++] = nd;
      shape[nd++] = x->shape[d];
      d++;
      continue;
    }
    if (v->kind != V_INT) return fail(B, it->loc, "a tensor index must be an int, a slice, None or ..., got %s", kind_name(v));
    if (v->i < -x->shape[d] || v->i >= x->shape[d])
      return fail(B, it->loc, "index %lld is out of bounds for dimension %d with size %lld", (long long)v->i, d,
                  (long long)x->shape[d]);
    start[d] = v->i < 0 ? v->i + x->shape[d] : v->i;
    box[d] = 1;
    d++;
  }
  for (; d < x->ndim; d++) shape[nd++] = x->shape[d];
  if (nd > COIL_MAX_DIMS) return fail(B, loc, "at most %d dimensions are supported", COIL_MAX_DIMS);
  GNode *t = reshape(B, slice_step(B, x, start, steps, box, loc), nd, shape, loc);
  if (!nt) return mktensor(B, t);
  /* a 0-d index tensor selects (PyTorch reads its value as an int): an
   * indexed read of its dim alone, the last first so that the dims of the
   * others stay where they are */
  IndexList L = {0};
  for (int k = nt - 1; k >= 0; k--) {
    if (tensors[k]->ndim) continue;
    t = index_along(B, t, tdim[k], tensors[k], true, loc);
    for (int j = k + 1; j < nt; j++) tdim[j]--;
  }
  for (int k = 0; k < nt; k++)
    if (tensors[k]->ndim) L.idx[L.m] = tensors[k], L.dim[L.m++] = tdim[k];
  if (!t || !L.m) return mktensor(B, t);
  if (!broadcast_indices(B, &L, tloc)) return NULL;
  return mktensor(B, read_at_indices(B, t, &L, loc));
}

/* Python arithmetic on ints and floats (shape arithmetic). */
static Val *scalar_binary(Builder *B, const char *op, Val *a, Val *b, SrcLoc loc) {
  bool fl = a->kind == V_FLOAT || b->kind == V_FLOAT;
  double x = a->kind == V_FLOAT ? a->f : (double)a->i, y = b->kind == V_FLOAT ? b->f : (double)b->i;
  int64_t i = a->i, j = b->i;
  Val *r = mkval(B, fl ? V_FLOAT : V_INT);
  switch (op[0]) {
  case '+': if (fl) r->f = x + y; else if (__builtin_add_overflow(i, j, &r->i)) goto overflow; break;
  case '-': if (fl) r->f = x - y; else if (__builtin_sub_overflow(i, j, &r->i)) goto overflow; break;
  case '*':
    if (op[1] == '*') {
      if (fl || j < 0) { r->kind = V_FLOAT; r->f = pow(x, y); }
      else { r->i = 1; for (int64_t k = 0; k < j; k++) if (!mul_ok(r->i, i, &r->i)) goto overflow; }
    } else if (fl) r->f = x * y;
    else if (!mul_ok(i, j, &r->i)) goto overflow;
    break;
  case '/':
    if (op[1] == '/') {
      if (fl) { r->f = floor(x / y); break; }
      if (j == 0) return fail(B, loc, "integer division by zero");
      r->i = i / j - ((i % j != 0) && ((i < 0) != (j < 0)));
    } else {
      if (y == 0) return fail(B, loc, "division by zero");
      r->kind = V_FLOAT;
      r->f = x / y;
    }
    break;
  case '%':
    if (fl) { r->f = x - floor(x / y) * y; break; }
    if (j == 0) return fail(B, loc, "integer modulo by zero");
    r->i = i % j;
    if (r->i && ((r->i < 0) != (j < 0))) r->i += j;
    break;
  case '&': case '|': case '^': case '<': case '>':
    /* bitwise and shifts of ints; of two bools, &, | and ^ give a bool */
    if (fl) return fail(B, loc, "operator '%s' needs ints, got a float", op);
    if (op[0] == '<' || op[0] == '>') {
      if (j < 0) return fail(B, loc, "negative shift count");
      if (op[0] == '>') r->i = j >= 64 ? (i < 0 ? -1 : 0) : i >> j;
      else if (j >= 63 || ((int64_t)((uint64_t)i << j) >> j) != i) goto overflow;
      else r->i = (int64_t)((uint64_t)i << j);
      break;
    }
    r->i = op[0] == '&' ? i & j : op[0] == '|' ? i | j : i ^ j;
    if (a->kind == V_BOOL && b->kind == V_BOOL) r->kind = V_BOOL;
    break;
  default: return fail(B, loc, "operator '%s' is not supported on numbers", op);
  }
  return r;
overflow:
  return fail(B, loc, "integer overflow in '%s'", op);
}

static Op binary_op(const char *op) {
  static const struct { const char *s; Op op; } t[] = {
      {"+", OP_ADD}, {"-", OP_SUB}, {"*", OP_MUL}, {"/", OP_DIV}, {"**", OP_POW}, {"&", OP_AND},
      {"|", OP_OR}, {"^", OP_XOR}, {"<", OP_LT}, {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE},
      {"==", OP_EQ}, {"!=", OP_NE},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (!strcmp(op, t[i].s)) return t[i].op;
  return OP_COUNT;
}

/* Python's truth value of a value known when compiling; -1 (an error) for
 * a tensor, whose values coil does not know. */
static int truth(Builder *B, Val *v, SrcLoc loc, const char *what, const char *hint) {
  switch (v->kind) {
  case V_INT: case V_BOOL: return v->i != 0;
  case V_FLOAT: return v->f != 0;
  case V_NONE: return 0;
  case V_TUPLE: return v->n != 0;
  case V_STR: return v->name[0] != 0;
  case V_TENSOR:
    fail(B, loc, "%s needs the truth value of a tensor, which coil does not know when compiling%s", what,
         *hint ? hint : ": branch on shapes, dtypes and Python numbers, or compute both sides and pick with "
                        "torch.where(cond, a, b)");
    return -1;
  default: return 1;
  }
}

/* Python's == on values known when compiling (a tensor is equal only to
 * itself, which is what `is` asks). */
static bool py_equal(const Val *a, const Val *b) {
  if (is_num(a) && is_num(b) && a->kind != V_TENSOR && b->kind != V_TENSOR) {
    if (a->kind == V_FLOAT || b->kind == V_FLOAT)
      return (a->kind == V_FLOAT ? a->f : (double)a->i) == (b->kind == V_FLOAT ? b->f : (double)b->i);
    return a->i == b->i;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case V_NONE: return true;
  case V_STR: case V_MODULE: return !strcmp(a->name, b->name);
  case V_DTYPE: return a->dt == b->dt;
  case V_TENSOR: return a->t == b->t && a->storage == b->storage;
  case V_FN:
    return a->func == b->func && a->self == b->self && !strcmp(a->name, b->name) && !strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "") &&
           !strcmp(a->overload ? a->overload : "", b->overload ? b->overload : "");
  case V_TUPLE:
    if (a->n != b->n || a->list != b->list) return false;
    for (int i = 0; i < a->n; i++)
      if (!py_equal(a->items[i], b->items[i])) return false;
    return true;
  default: return false;
  }
}

/* is, is not, in, not in, and == / != of values that are not numbers
 * (x.dtype == torch.bfloat16, mode == "tanh", None).  NULL, without an
 * error, when the comparison is arithmetic (numbers, tensors). */
static Val *compare_values(Builder *B, Node *n, Val *a, Val *b) {
  const char *op = n->op;
  bool neg = !strcmp(op, "is not") || !strcmp(op, "not in") || !strcmp(op, "!=");
  if (!strcmp(op, "is") || !strcmp(op, "is not")) return mkbool(B, py_equal(a, b) != neg);
  if (!strcmp(op, "in") || !strcmp(op, "not in")) {
    if (b->kind == V_STR && a->kind == V_STR) return mkbool(B, (strstr(b->name, a->name) != NULL) != neg);
    if (b->kind != V_TUPLE) return fail(B, n->loc, "'in' needs a tuple or a list on its right, got %s", kind_name(b));
    for (int i = 0; i < b->n; i++) {
      if (a->kind == V_TENSOR || b->items[i]->kind == V_TENSOR)
        return fail(B, n->loc, "'in' compares with ==, which needs the values of a tensor; coil does not know them when compiling");
      if (py_equal(a, b->items[i])) return mkbool(B, !neg);
    }
    return mkbool(B, neg);
  }
  if ((!strcmp(op, "==") || !strcmp(op, "!=")) && a->kind != V_TENSOR && b->kind != V_TENSOR && !(is_num(a) && is_num(b)))
    return mkbool(B, py_equal(a, b) != neg);
  return NULL;
}

static Val *call_user(Builder *B, Func *f, Args *A, SrcLoc loc);

static Val *eval_call(Builder *B, Node *n) {
  Val *fn = eval(B, n->lhs);
  if (!fn) return NULL;
  if (fn->kind != V_FN) return fail(B, n->loc, "%s is not callable", kind_name(fn));
  Args A = {.at = n->loc, .npos = n->nitems, .nkw = n->nkw};
  A.pos = ARENA_ARRAY(B->a, Val *, n->nitems + 1);
  A.locs = ARENA_ARRAY(B->a, SrcLoc, n->nitems + 1);
  A.kwn = n->kwnames;
  A.kwv = ARENA_ARRAY(B->a, Val *, n->nkw + 1);
  A.kwlocs = ARENA_ARRAY(B->a, SrcLoc, n->nkw + 1);
  A.kwused = ARENA_ARRAY(B->a, bool, n->nkw + 1);
  for (int i = 0; i < n->nitems; i++) {
    if (!(A.pos[i] = eval(B, n->items[i]))) return NULL;
    A.locs[i] = n->items[i]->loc;
  }
  for (int i = 0; i < n->nkw; i++) {
    if (!(A.kwv[i] = eval(B, n->kwvals[i]))) return NULL;
    A.kwlocs[i] = n->kwvals[i]->loc;
  }
  SrcLoc loc = n->lhs->kind == ND_ATTR ? n->lhs->loc : n->loc;
  if (fn->func) return call_user(B, fn->func, &A, loc);
  /* The tensor a call works on: its result, when a view of it, shares its
   * memory; clone() is a copy. */
  Val *src = fn->self ? fn->self : A.npos && A.pos[0]->kind == V_TENSOR ? A.pos[0] : NULL;
  Val *r;
  if (fn->self) r = call_method(B, fn->name, fn->self->t, &A, loc);
  else if (!strcmp(fn->ns, "builtins")) return call_builtin(B, fn->name, &A, loc);
  else if (!strcmp(fn->ns, "math")) return call_math(B, fn->name, &A, loc);
  else if (!strcmp(fn->ns, "torch.nn.functional")) r = call_functional(B, fn->name, &A, loc, SP_F);
  else if (!strcmp(fn->ns, "torch.linalg")) r = call_functional(B, fn->name, &A, loc, SP_LINALG);
  else if (!strcmp(fn->ns, "torch")) r = call_torch_fn(B, fn->name, &A, loc);
  else if (!strcmp(fn->ns, "torch.special")) r = call_special(B, fn->name, &A, loc);
  else if (aten_form(fn->ns)) r = call_aten(B, fn, &A, loc);
  else return fail(B, loc, "%s.%s is not in coil's subset", fn->ns, fn->name);
  if (r && r->kind == V_TENSOR && !strcmp(fn->name, "clone")) r->storage = ++B->nstorage;
  else same_storage(r, src);
  return r;
}

static Val *eval(Builder *B, Node *n) {
  if (B->err) return NULL;
  switch (n->kind) {
  case ND_INT: return mkint(B, n->ival);
  case ND_FLOAT: { Val *v = mkval(B, V_FLOAT); v->f = n->fval; return v; }
  case ND_BOOL: { Val *v = mkval(B, V_BOOL); v->i = n->ival; return v; }
  case ND_NONE: return mkval(B, V_NONE);
  case ND_STR: { Val *v = mkval(B, V_STR); v->name = n->name; return v; }
  case ND_SLICE: return fail(B, n->loc, "a slice is only allowed inside a subscript");
  case ND_ELLIPSIS: return fail(B, n->loc, "'...' is only allowed inside a subscript");
  case ND_NAME: {
    /* Python makes a name assigned anywhere in a function local to all of
     * it: read before its assignment, it is not the module's constant. */
    Func *f = B->frame->f;
    for (int i = 0; f && !local_slot(B, n->name) && i < f->nlocals; i++)
      if (!strcmp(f->locals[i], n->name))
        return fail(B, n->loc, "local variable '%s' is used before it is assigned (on this path through the function)",
                    n->name);
    Val *v = lookup(B, n->name);
    if (v && v->kind == V_UNDEF) return fail(B, v->at, "%s", v->name);
    if (v) return v;
    /* A def of the file: the last one of that name, as Python binds it. */
    for (int i = B->m->nfuncs - 1; i >= 0; i--)
      if (!strcmp(B->m->funcs[i].name, n->name)) {
        Val *fn = mkval(B, V_FN);
        fn->name = n->name;
        fn->ns = B->m->file;
        fn->func = &B->m->funcs[i];
        return fn;
      }
    for (int i = B->m->nimports - 1; i >= 0; i--)
      if (!strcmp(B->m->imports[i].alias, n->name)) return mkmodule(B, B->m->imports[i].module);
    /* torch without an import, as coil has always read it. */
    if (!strcmp(n->name, "torch")) return mkmodule(B, "torch");
    static const char *const builtins[] = {"float", "int", "abs", "min", "max", "bool", "len", "range", "zip",
                                           "enumerate", "isinstance", "tuple", "list", "reversed", NULL};
    if (name_in(n->name, builtins)) {
      Val *fn = mkval(B, V_FN);
      fn->name = n->name;
      fn->ns = "builtins";
      return fn;
    }
    static const char *const others[] = {"print", "sum", "map", "filter", "sorted", "any", "all", "dict", "set", NULL};
    if (name_in(n->name, others)) return fail(B, n->loc, "the Python builtin '%s' is not in coil's subset", n->name);
    if (!strcmp(n->name, "F")) return fail(B, n->loc, "name 'F' is not defined (import torch.nn.functional as F)");
    if (!strcmp(n->name, "math") || !strcmp(n->name, "nn"))
      return fail(B, n->loc, "name '%s' is not defined (import %s)", n->name, n->name[0] == 'm' ? "math" : "torch.nn as nn");
    return fail(B, n->loc, "name '%s' is not defined", n->name);
  }
  case ND_TUPLE: case ND_LIST: {
    Val *t = mkval(B, V_TUPLE);
    t->list = n->kind == ND_LIST;
    t->n = n->nitems;
    t->items = ARENA_ARRAY(B->a, Val *, n->nitems + 1);
    for (int i = 0; i < n->nitems; i++)
      if (!(t->items[i] = eval(B, n->items[i]))) return NULL;
    return t;
  }
  case ND_ATTR: {
    Val *lhs = eval(B, n->lhs);
    if (!lhs) return NULL;
    if (lhs->kind == V_MODULE) return module_attr(B, lhs->name, n->name, n->loc);
    if (lhs->kind == V_FN && aten_form(lhs->ns) && !lhs->overload) return aten_overload(B, lhs, n->name, n->loc);
    if (lhs->kind == V_TENSOR) {
      GNode *x = lhs->t;
      if (!strcmp(n->name, "shape")) {
        Val *t = mkval(B, V_TUPLE);
        t->n = x->ndim;
        t->items = ARENA_ARRAY(B->a, Val *, x->ndim + 1);
        for (int i = 0; i < x->ndim; i++) t->items[i] = mkint(B, x->shape[i]);
        return t;
      }
      if (!strcmp(n->name, "ndim")) return mkint(B, x->ndim);
      if (!strcmp(n->name, "dtype")) { Val *v = mkval(B, V_DTYPE); v->dt = x->dtype; return v; }
      if (!strcmp(n->name, "T") || !strcmp(n->name, "mT")) {
        int perm[COIL_MAX_DIMS];
        for (int i = 0; i < x->ndim; i++) perm[i] = n->name[0] == 'm' && i < x->ndim - 2 ? i : x->ndim - 1 - i;
        if (n->name[0] == 'm') {
          if (x->ndim < 2) return fail(B, n->loc, "mT needs at least 2 dimensions");
          perm[x->ndim - 2] = x->ndim - 1;
          perm[x->ndim - 1] = x->ndim - 2;
        }
        return same_storage(mktensor(B, permute(B, x, perm, n->loc)), lhs);
      }
      Val *f = mkval(B, V_FN);
      f->name = n->name;
      f->self = lhs;
      return f;
    }
    if (lhs->kind == V_TUPLE && lhs->fields) /* torch.return_types: x.max(1).values */
      for (int i = 0; i < lhs->n; i++)
        if (!strcmp(lhs->fields[i], n->name)) return lhs->items[i];
    if (lhs->kind == V_TUPLE && lhs->list)
      return fail(B, n->loc, "a list is a value in coil's subset: list.%s would change it in place; write xs = xs + [v]",
                  n->name);
    return fail(B, n->loc, "%s has no attribute '%s' in coil's subset", kind_name(lhs), n->name);
  }
  case ND_SUBSCRIPT: {
    Val *lhs = eval(B, n->lhs);
    if (!lhs) return NULL;
    if (lhs->kind == V_TENSOR) return same_storage(index_tensor(B, lhs->t, n->rhs, n->loc), lhs);
    if (lhs->kind != V_TUPLE) return fail(B, n->loc, "%s cannot be indexed", kind_name(lhs));
    if (n->rhs->kind == ND_TUPLE && n->rhs->nitems == 1 && n->rhs->items[0]->kind == ND_SLICE) {
      /* t[lo:hi:step] of a tuple, with Python's clamping (x.shape[1:]) */
      int64_t lo, hi, step, len = lhs->n;
      if (!slice_bounds(B, n->rhs->items[0], len, true, &lo, &hi, &step)) return NULL;
      Val *t = mkval(B, V_TUPLE);
      t->list = lhs->list;
      t->items = ARENA_ARRAY(B->a, Val *, len + 1);
      for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) t->items[t->n++] = lhs->items[i];
      return t;
    }
    Val *idx = eval(B, n->rhs);
    if (!idx) return NULL;
    int64_t i;
    if (!get_int(B, idx, n->rhs->loc, "an index", &i)) return NULL;
    if (i < -lhs->n || i >= lhs->n) return fail(B, n->rhs->loc, "index %lld is out of range for a tuple of length %d", (long long)i, lhs->n);
    return lhs->items[i < 0 ? i + lhs->n : i];
  }
  case ND_CALL: return eval_call(B, n);
  case ND_UNARY: {
    Val *x = eval(B, n->lhs);
    if (!x) return NULL;
    if (!strcmp(n->op, "not")) {
      int t = truth(B, x, n->loc, "'not'", " (use ~ on bool tensors)");
      return t < 0 ? NULL : mkbool(B, !t);
    }
    if (!strcmp(n->op, "+")) return x;
    if (x->kind == V_INT || x->kind == V_BOOL) {
      if (!strcmp(n->op, "~")) return mkint(B, ~x->i);
      return mkint(B, -x->i);
    }
    if (x->kind == V_FLOAT) {
      if (!strcmp(n->op, "~")) return fail(B, n->loc, "'~' needs an int or a bool tensor");
      Val *v = mkval(B, V_FLOAT);
      v->f = -x->f;
      return v;
    }
    if (x->kind != V_TENSOR) return fail(B, n->loc, "unary '%s' is not supported on %s", n->op, kind_name(x));
    Val *vs[1] = {x};
    if (!strcmp(n->op, "~")) { /* bitwise_not: a bool's logical not, an int's -x - 1 */
      if (x->t->dtype == DT_BOOL) return mktensor(B, pointwise(B, OP_NOT, vs, 1, DT_BOOL, DT_BOOL, n->loc));
      if (!dtype_is_int(x->t->dtype))
        return fail(B, n->loc, "'~' (bitwise_not) needs a bool or integer tensor, got %s (as in PyTorch)", dtype_name(x->t->dtype));
      return mktensor(B, tci(B, OP_XOR, x->t, -1, n->loc));
    }
    if (x->t->dtype == DT_BOOL) return fail(B, n->loc, "negation of a bool tensor is not supported (as in PyTorch); use ~");
    return mktensor(B, pointwise(B, OP_NEG, vs, 1, x->t->dtype, opmath(x->t->dtype), n->loc));
  }
  case ND_BOOLOP: {
    /* Python's and/or: short-circuit, and the result is an operand. */
    Val *a = eval(B, n->lhs);
    if (!a) return NULL;
    int t = truth(B, a, n->loc, n->op[0] == 'a' ? "'and'" : "'or'", " (use & and | on bool tensors)");
    if (t < 0) return NULL;
    return t == (n->op[0] == 'o') ? a : eval(B, n->rhs);
  }
  case ND_COND: {
    Val *c = eval(B, n->cond);
    if (!c) return NULL;
    int t = truth(B, c, n->cond->loc, "a conditional expression", "");
    return t < 0 ? NULL : eval(B, t ? n->lhs : n->rhs);
  }
  case ND_BINARY: case ND_COMPARE: {
    Val *a = eval(B, n->lhs), *b = a ? eval(B, n->rhs) : NULL;
    if (!a || !b) return NULL;
    if (n->kind == ND_COMPARE) {
      Val *r = compare_values(B, n, a, b);
      if (r || B->err) return r;
    }
    if (a->kind != V_TENSOR && b->kind != V_TENSOR) {
      if (!is_num(a) || !is_num(b)) {
        if (a->kind == V_TUPLE && b->kind == V_TUPLE && !strcmp(n->op, "+")) {
          Val *t = mkval(B, V_TUPLE);
          t->list = a->list && b->list;
          t->n = a->n + b->n;
          t->items = ARENA_ARRAY(B->a, Val *, t->n + 1);
          for (int i = 0; i < a->n; i++) t->items[i] = a->items[i];
          for (int i = 0; i < b->n; i++) t->items[a->n + i] = b->items[i];
          return t;
        }
        return fail(B, n->loc, "operator '%s' is not supported between %s and %s", n->op, kind_name(a), kind_name(b));
      }
      if (n->kind == ND_COMPARE) {
        double x = a->kind == V_FLOAT ? a->f : (double)a->i, y = b->kind == V_FLOAT ? b->f : (double)b->i;
        Val *v = mkval(B, V_BOOL);
        const char *o = n->op;
        v->i = !strcmp(o, "<") ? x < y : !strcmp(o, "<=") ? x <= y : !strcmp(o, ">") ? x > y
             : !strcmp(o, ">=") ? x >= y : !strcmp(o, "==") ? x == y : x != y;
        return v;
      }
      return scalar_binary(B, n->op, a, b, n->loc);
    }
    if (!strcmp(n->op, "@")) return fail(B, n->loc, "matrix multiplication is not in coil's subset");
    if (!strcmp(n->op, "//") || !strcmp(n->op, "%")) /* Tensor.__floordiv__, __mod__ (and their __r*__) */
      return mktensor(B, mod_op(B, n->op[0] == '%' ? MOD_REMAINDER : MOD_FLOOR, a, b, n->loc, n->op[0] == '%' ? "remainder" : "floor_divide"));
    if (!strcmp(n->op, "<<") || !strcmp(n->op, ">>"))
      return mktensor(B, shift_op(B, n->op[0] == '<' ? OP_SHL : OP_SHR, a, b, n->loc, n->op[0] == '<' ? "<<" : ">>"));
    Op op = binary_op(n->op);
    if (op == OP_COUNT) return fail(B, n->loc, "operator '%s' is not supported", n->op);
    GNode *r = arith(B, op, a, b, n->loc);
    return r ? mktensor(B, r) : NULL;
  }
  }
  coil_unreachable("unknown node kind");
}

/* ------------------------------------------------------------ statements */

/* A function body is run when compiling: control flow is on values known
 * then, loops are unrolled and every call of the file's functions is
 * inlined.  These bound the unrolling and the inlining, so that a loop
 * that never ends or a recursion without a base case is an error. */
#define MAX_ITERATIONS 10000
#define MAX_CALL_DEPTH 64

typedef enum Flow { FLOW_NEXT, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN, FLOW_ERROR } Flow;

/* Bind a target (a name, or a tuple or list of targets) to v. */
static bool unpack(Builder *B, Node *target, Val *v, SrcLoc loc) {
  if (target->kind == ND_NAME) {
    bind(B, target->name, v);
    return true;
  }
  if (v->kind != V_TUPLE || v->n != target->nitems) {
    if (v->kind == V_TUPLE)
      fail(B, loc, "cannot unpack %s of %d items into %d names", kind_name(v), v->n, target->nitems);
    else
      fail(B, loc, "cannot unpack %s into %d names%s", kind_name(v), target->nitems,
           v->kind == V_TENSOR ? " (unpacking a tensor's rows is not in the subset: index it)" : "");
    return false;
  }
  for (int i = 0; i < v->n; i++)
    if (!unpack(B, target->items[i], v->items[i], target->items[i]->loc)) return false;
  return true;
}

/* x op= v.  On a tensor PyTorch writes the result into x: it keeps x's
 * shape and dtype, and every name that shares x's memory sees the change.
 * coil computes it out of place and binds x to it, which gives the same
 * values exactly when no other name shares x's memory. */
static bool aug_assign(Builder *B, const Stmt *st) {
  Node *bin = st->value;
  const char *name = st->targets[0]->name;
  Val *old = eval(B, bin->lhs);
  if (!old) return false;
  if (old->kind == V_TENSOR) {
    Binding *self = local_slot(B, name);
    for (int i = 0; i < B->nenv; i++)
      if (&B->env[i] != self && shares_memory(B->env[i].val, old))
        return fail(B, bin->loc, "'%s=' on '%s' would change '%s' too in PyTorch (they share memory), and coil computes "
                                 "tensors out of place; write %s = %s %s ... (or clone it first)",
                    bin->op, name, B->env[i].name, name, name, bin->op), false;
  }
  Val *v = eval(B, bin);
  if (!v) return false;
  if (old->kind == V_TENSOR && v->kind == V_TENSOR) {
    GNode *x = old->t, *r = v->t;
    if (r->ndim != x->ndim || memcmp(r->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim))
      return fail(B, bin->loc, "'%s=' keeps the shape of '%s' (%s), as PyTorch does, but the result broadcasts to %s", bin->op,
                  name, shape_fmt(B->a, x->ndim, x->shape), shape_fmt(B->a, r->ndim, r->shape)), false;
    if (r->dtype != x->dtype) {
      if (category(r->dtype) > category(x->dtype))
        return fail(B, bin->loc, "'%s=' keeps the dtype of '%s': result type %s can't be cast to %s (as in PyTorch)", bin->op,
                    name, dtype_name(r->dtype), dtype_name(x->dtype)), false;
      v = mktensor(B, cast(B, r, x->dtype, bin->loc));
    }
  }
  bind(B, name, v);
  return true;
}

static Flow exec_stmts(Builder *B, const Stmt *body, int n);

static Flow exec_loop_body(Builder *B, const Stmt *st, int *iterations) {
  if (++*iterations > MAX_ITERATIONS)
    return fail(B, st->loc, "this loop ran more than %d iterations: coil unrolls loops when compiling%s", MAX_ITERATIONS,
                st->kind == ST_WHILE ? " (does its condition ever become false?)" : ""), FLOW_ERROR;
  return exec_stmts(B, st->body, st->nbody);
}

static Flow exec_stmt(Builder *B, const Stmt *st) {
  switch (st->kind) {
  case ST_EXPR: case ST_PASS: return FLOW_NEXT;
  case ST_BREAK: return FLOW_BREAK;
  case ST_CONTINUE: return FLOW_CONTINUE;
  case ST_ASSIGN: {
    Val *v = eval(B, st->value);
    if (!v) return FLOW_ERROR;
    if (st->ntargets == 1) return unpack(B, st->targets[0], v, st->loc) ? FLOW_NEXT : FLOW_ERROR;
    if (v->kind != V_TUPLE || v->n != st->ntargets)
      return fail(B, st->loc, "cannot unpack %s into %d names", kind_name(v), st->ntargets), FLOW_ERROR;
    for (int k = 0; k < st->ntargets; k++)
      if (!unpack(B, st->targets[k], v->items[k], st->targets[k]->loc)) return FLOW_ERROR;
    return FLOW_NEXT;
  }
  case ST_AUG: return aug_assign(B, st) ? FLOW_NEXT : FLOW_ERROR;
  case ST_RETURN: {
    Val *v = st->value ? eval(B, st->value) : mkval(B, V_NONE);
    if (!v) return FLOW_ERROR;
    B->frame->ret = v;
    B->frame->ret_stmt = st;
    return FLOW_RETURN;
  }
  case ST_IF: {
    Val *c = eval(B, st->value);
    int t = c ? truth(B, c, st->value->loc, "'if'", "") : -1;
    if (t < 0) return FLOW_ERROR;
    return t ? exec_stmts(B, st->body, st->nbody) : exec_stmts(B, st->orelse, st->norelse);
  }
  case ST_WHILE: {
    int iterations = 0;
    for (;;) {
      Val *c = eval(B, st->value);
      int t = c ? truth(B, c, st->value->loc, "'while'", "") : -1;
      if (t < 0) return FLOW_ERROR;
      if (!t) break;
      Flow fl = exec_loop_body(B, st, &iterations);
      if (fl == FLOW_BREAK) return FLOW_NEXT;
      if (fl == FLOW_RETURN || fl == FLOW_ERROR) return fl;
    }
    return exec_stmts(B, st->orelse, st->norelse);
  }
  case ST_FOR: {
    Val *seq = eval(B, st->value);
    if (!seq) return FLOW_ERROR;
    if (seq->kind != V_TUPLE)
      return fail(B, st->value->loc, "a for loop runs over range(), a tuple, a list, zip() or enumerate() in coil's subset, "
                                     "got %s%s", kind_name(seq),
                  seq->kind == V_TENSOR ? " (a loop over a tensor's rows: index x[i] in a loop over range(x.shape[0]))" : ""),
             FLOW_ERROR;
    int iterations = 0;
    for (int i = 0; i < seq->n; i++) {
      if (!unpack(B, st->targets[0], seq->items[i], st->targets[0]->loc)) return FLOW_ERROR;
      Flow fl = exec_loop_body(B, st, &iterations);
      if (fl == FLOW_BREAK) return FLOW_NEXT;
      if (fl == FLOW_RETURN || fl == FLOW_ERROR) return fl;
    }
    return exec_stmts(B, st->orelse, st->norelse);
  }
  case ST_ASSERT: {
    Val *c = eval(B, st->value);
    if (!c) return FLOW_ERROR;
    if (c->kind == V_TENSOR)
      return fail(B, st->value->loc, "an assert on a tensor's values cannot be checked when compiling (coil does not "
                                     "know them); assert on shapes, dtypes and Python numbers"), FLOW_ERROR;
    if (truth(B, c, st->value->loc, "assert", "")) return FLOW_NEXT;
    Val *m = st->msg ? eval(B, st->msg) : NULL;
    if (st->msg && !m) return FLOW_ERROR;
    if (m && m->kind == V_STR) return fail(B, st->loc, "assertion failed: %s", m->name), FLOW_ERROR;
    if (m && (m->kind == V_INT || m->kind == V_BOOL)) return fail(B, st->loc, "assertion failed: %lld", (long long)m->i), FLOW_ERROR;
    if (m && m->kind == V_FLOAT) return fail(B, st->loc, "assertion failed: %g", m->f), FLOW_ERROR;
    return fail(B, st->loc, "assertion failed"), FLOW_ERROR;
  }
  case ST_RAISE: {
    /* raise ValueError("..."): the exception's class is not evaluated (coil
     * knows none); its message is, when it is a string. */
    Node *e = st->value;
    const char *cls = e && e->kind == ND_CALL && e->lhs->kind == ND_NAME ? e->lhs->name
                    : e && e->kind == ND_NAME ? e->name : "an exception";
    if (e && e->kind == ND_CALL && e->nitems == 1) {
      Val *m = eval(B, e->items[0]);
      if (!m) return FLOW_ERROR;
      if (m->kind == V_STR) return fail(B, st->loc, "the function raises %s: %s", cls, m->name), FLOW_ERROR;
    }
    return fail(B, st->loc, "the function raises %s", cls), FLOW_ERROR;
  }
  }
  coil_unreachable("unknown statement kind");
}

static Flow exec_stmts(Builder *B, const Stmt *body, int n) {
  for (int i = 0; i < n; i++) {
    Flow fl = exec_stmt(B, &body[i]);
    if (fl == FLOW_ERROR) return B->err ? FLOW_ERROR : (fail(B, body[i].loc, "invalid statement"), FLOW_ERROR);
    if (B->g->nnodes > GRAPH_MAX_NODES)
      return fail(B, body[i].loc, "function too large: more than %d tensor ops (coil compiles fused kernels, "
                                  "not whole programs)", GRAPH_MAX_NODES), FLOW_ERROR;
    if (fl != FLOW_NEXT) return fl;
  }
  return FLOW_NEXT;
}

/* Run f's body in a new frame whose parameters are bound; the result is
 * what it returns (None when it ends without a return). */
static Val *run_frame(Builder *B, Func *f, Val **args, Frame *fr) {
  *fr = (Frame){.f = f, .base = B->nenv};
  Frame *caller = B->frame;
  B->frame = fr;
  for (int i = 0; i < f->nparams; i++) bind(B, f->params[i].name, args[i]);
  Flow fl = exec_stmts(B, f->body, f->nbody);
  B->frame = caller;
  B->nenv = fr->base;
  if (fl == FLOW_ERROR) return NULL;
  return fl == FLOW_RETURN ? fr->ret : mkval(B, V_NONE);
}

/* A parameter's default: evaluated when called, with the module's
 * constants only in scope (as Python evaluates it at the def). */
static Val *default_value(Builder *B, Node *dflt) {
  Frame fr = {.base = B->nenv}, *caller = B->frame;
  B->frame = &fr;
  Val *v = eval(B, dflt);
  B->frame = caller;
  return v;
}

/* Bind a call's arguments to f's parameters as Python does. */
static bool bind_args(Builder *B, Func *f, Args *A, SrcLoc loc, Val **vals) {
  for (int i = 0; i < f->nparams; i++) vals[i] = NULL;
  int npos = 0;
  while (npos < f->nparams && !f->params[npos].kwonly) npos++;
  if (A->npos > npos)
    return fail(B, arg_loc(A, npos, NULL), "%s() takes %d positional argument%s but %d were given", f->name, npos,
                npos == 1 ? "" : "s", A->npos), false;
  for (int i = 0; i < A->npos; i++) vals[i] = A->pos[i];
  for (int k = 0; k < A->nkw; k++) {
    int i = 0;
    while (i < f->nparams && strcmp(f->params[i].name, A->kwn[k])) i++;
    if (i == f->nparams)
      return fail(B, A->kwlocs[k], "%s() got an unexpected keyword argument '%s'", f->name, A->kwn[k]), false;
    if (vals[i]) return fail(B, A->kwlocs[k], "%s() got multiple values for argument '%s'", f->name, A->kwn[k]), false;
    vals[i] = A->kwv[k];
  }
  for (int i = 0; i < f->nparams; i++)
    if (!vals[i]) {
      if (!f->params[i].dflt) return fail(B, loc, "%s() missing required argument '%s'", f->name, f->params[i].name), false;
      if (!(vals[i] = default_value(B, f->params[i].dflt))) return false;
    }
  return true;
}

/* A call of a function of the file: inlined, its body run with its
 * parameters bound (tensors and Python values alike). */
static Val *call_user(Builder *B, Func *f, Args *A, SrcLoc loc) {
  if (B->depth >= MAX_CALL_DEPTH)
    return fail(B, loc, "calls nested more than %d deep (is '%s' recursive without an end?): coil inlines every call "
                        "of the file's functions when compiling", MAX_CALL_DEPTH, f->name);
  if (!f->body) {
    CoilErr *e = parse_body(B->a, (Module *)B->m, f);
    if (e) {
      B->err = e;
      return NULL;
    }
  }
  Val **vals = ARENA_ARRAY(B->a, Val *, f->nparams + 1);
  if (!bind_args(B, f, A, loc, vals)) return NULL;
  B->depth++;
  Frame fr;
  Val *r = run_frame(B, f, vals, &fr);
  B->depth--;
  return r;
}

/* ------------------------------------------------------------ inputs */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

void contiguous_strides(int ndim, const int64_t *shape, int64_t *stride) {
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    stride[d] = s;
    s *= shape[d];
  }
}

void stride_str(StrBuf *sb, int ndim, const int64_t *stride) {
  sb_puts(sb, "stride(");
  for (int d = 0; d < ndim; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)stride[d]);
  sb_putc(sb, ')');
}

int64_t strided_extent(int ndim, const int64_t *shape, const int64_t *stride) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 0) return 0;
    n += (shape[d] - 1) * stride[d];
  }
  return n;
}

/* The list of an annotation's sizes ("2, 3]") or strides ("1, 2)"):
 * integers >= 0 up to `close`, the first COIL_MAX_DIMS kept in v, with
 * pos[i] where the i-th starts; more than max (if max >= 0) is an error.  Returns how
 * many, or -1 with *at and why set to the first error (noun: "size" or
 * "stride"). */
static int read_ints(const char **pp, char close, const char *noun, int max, int64_t *v, const char **pos,
                     const char **at, char *why, size_t whylen) {
  const char *p = *pp;
  int n = 0;
  while (*p != close) {
    *at = p;
    if (n == max) return snprintf(why, whylen, "at most %d dimensions are supported", COIL_MAX_DIMS), -1;
    if (*p == '-')
      return snprintf(why, whylen, "%ss must not be negative%s", noun,
                      close == ')' ? " (0 repeats an element, as expand does)" : ""), -1;
    if (*p < '0' || *p > '9') return snprintf(why, whylen, "expected a %s", noun), -1;
    int64_t x = 0;
    while (*p >= '0' && *p <= '9') {
      if (x > (INT64_MAX - 9) / 10) return snprintf(why, whylen, "%s is too large", noun), -1;
      x = x * 10 + (*p++ - '0');
    }
    if (n < COIL_MAX_DIMS) v[n] = x, pos[n] = *at;
    n++;
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
    else if (*p != close) return *at = p, snprintf(why, whylen, "expected ',' or '%c'", close), -1;
  }
  *pp = p + 1;
  return n;
}

CoilErr *parse_input_spec(const char *text, SrcLoc loc, InputSpec *spec) {
  const char *p = skip_ws(text);
  /* what the error shows as the form expected: the stride clause's own
   * while reading one */
  const char *like = "bf16[2, 3] uniform(1, 2)";
#define SPEC_FAIL(at, ...)                                                                         \
  do {                                                                                             \
    SrcLoc l = loc;                                                                                \
    if (l.line) l.col += (int)((at) - text) + 1;                                                   \
    char m_[512];                                                                                  \
    snprintf(m_, sizeof m_, __VA_ARGS__);                                                          \
    return coil_err_at(l, "%s: %s (expected a spec like \"%s\")", spec->name, m_, like);          \
  } while (0)
  const char *s = p, *pos[COIL_MAX_DIMS + 1], *at;
  char why[128];
  while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) p++;
  if (!dtype_from_name(s, (size_t)(p - s), &spec->dtype))
    SPEC_FAIL(s, "unknown dtype '%.*s'; the dtypes are f32, f16, bf16, f64, i32, i64 and bool", (int)(p - s), s);
  p = skip_ws(p);
  if (*p != '[') SPEC_FAIL(p, "expected '[' after the dtype");
  p = skip_ws(p + 1);
  if ((spec->ndim = read_ints(&p, ']', "size", COIL_MAX_DIMS, spec->shape, pos, &at, why, sizeof why)) < 0) SPEC_FAIL(at, "%s", why);
  int64_t numel = 1;
  for (int d = 0; d < spec->ndim; d++)
    if (!mul_ok(numel, spec->shape[d], &numel) || numel > ((int64_t)1 << 50))
      SPEC_FAIL(pos[d], "the sizes' product is too large");
  p = skip_ws(p);
  spec->dist = DIST_RANDN;
  spec->strided = false;
  contiguous_strides(spec->ndim, spec->shape, spec->stride);
  /* Then a distribution and a stride(...), each at most once, in either
   * order: both describe the input, neither comes first by nature. */
  bool have_dist = false;
  while (*p) {
    s = p;
    while (*p >= 'a' && *p <= 'z') p++;
    size_t n = (size_t)(p - s);
    if (n == 6 && !memcmp(s, "stride", 6)) {
      like = "f32[4, 8] stride(1, 4)";
      if (spec->strided) SPEC_FAIL(s, "stride(...) given twice");
      spec->strided = true;
      p = skip_ws(p);
      if (*p != '(') SPEC_FAIL(p, "expected stride(s0, s1, ...): one stride per dimension, in elements");
      p = skip_ws(p + 1);
      /* as many as given, for the message when they are not one a dimension */
      int count = read_ints(&p, ')', "stride", -1, spec->stride, pos, &at, why, sizeof why);
      if (count < 0) SPEC_FAIL(at, "%s", why);
      if (count != spec->ndim)
        SPEC_FAIL(s, "stride(...) gives %d stride%s for %d dimension%s", count, count == 1 ? "" : "s", spec->ndim,
                  spec->ndim == 1 ? "" : "s");
      /* The storage's extent must be a size coil can allocate and index,
       * as the shape's product must. */
      int64_t ext = 1;
      for (int d = 0; d < spec->ndim; d++) {
        int64_t span;
        if (!mul_ok(spec->shape[d] ? spec->shape[d] - 1 : 0, spec->stride[d], &span) || span > ((int64_t)1 << 50) ||
            (ext += span) > ((int64_t)1 << 50))
          SPEC_FAIL(s, "the storage these strides span is too large");
      }
      like = "bf16[2, 3] uniform(1, 2)";
    } else if (have_dist) {
      SPEC_FAIL(s, "unexpected text '%s'", s);
    } else {
      have_dist = true;
      if (n == 5 && !memcmp(s, "randn", 5)) spec->dist = DIST_RANDN;
      else if (n == 4 && !memcmp(s, "ones", 4)) spec->dist = DIST_ONES;
      else if (n == 6 && !memcmp(s, "arange", 6)) spec->dist = DIST_ARANGE;
      else if (n == 7 && !memcmp(s, "uniform", 7)) {
        spec->dist = DIST_UNIFORM;
        p = skip_ws(p);
        if (*p != '(') SPEC_FAIL(p, "expected uniform(lo, hi)");
        char *end;
        spec->lo = strtod(p + 1, &end);
        if (end == p + 1) SPEC_FAIL(p + 1, "expected a number");
        p = skip_ws(end);
        if (*p != ',') SPEC_FAIL(p, "expected ','");
        spec->hi = strtod(p + 1, &end);
        if (end == p + 1) SPEC_FAIL(p + 1, "expected a number");
        p = skip_ws(end);
        if (*p != ')') SPEC_FAIL(p, "expected ')'");
        p++;
        if (!(spec->lo <= spec->hi)) SPEC_FAIL(s, "uniform(lo, hi) needs lo <= hi");
      } else {
        SPEC_FAIL(s, "unknown distribution '%.*s'; the choices are randn, uniform(lo, hi), ones and arange", (int)n, s);
      }
    }
    p = skip_ws(p);
  }
  return NULL;
#undef SPEC_FAIL
}

/* Every parameter is a tensor with a shape (annotated), or a Python
 * value with a default (eps=1e-6), and at least one is a tensor. */
static bool is_annotated(const Func *f) {
  int tensors = 0;
  for (int i = 0; i < f->nparams; i++) {
    if (!f->params[i].annot && !f->params[i].dflt) return false;
    tensors += f->params[i].annot != NULL;
  }
  return tensors > 0;
}

static bool covered_by_args(const Func *f, const ArgOverride *args, int nargs) {
  int tensors = 0;
  for (int i = 0; i < f->nparams; i++) {
    bool found = f->params[i].annot != NULL;
    for (int k = 0; k < nargs && !found; k++) found = !strcmp(args[k].name, f->params[i].name);
    if (!found && !f->params[i].dflt) return false;
    tensors += found;
  }
  return tensors > 0;
}

/* Keep a failed module constant's error for its names: it is reported
 * where a function uses one of them. */
static void bind_undefined(Builder *B, Node *target, const char *msg, SrcLoc at) {
  if (target->kind == ND_NAME) {
    Val *v = mkval(B, V_UNDEF);
    v->name = msg;
    v->at = at;
    bind(B, target->name, v);
    return;
  }
  for (int i = 0; i < target->nitems; i++) bind_undefined(B, target->items[i], msg, at);
}

/* The module's constants, in file order, as Python runs the module before
 * any call: compile-time values (EPS = 1e-6, SCALE = 1 / math.sqrt(64)).
 * One that is not (a model, a device) is an error only where it is used. */
static void eval_globals(Builder *B) {
  for (int i = 0; i < B->m->nglobals; i++) {
    const Global *gl = &B->m->globals[i];
    if (gl->err) {
      Node name = {.kind = ND_NAME, .name = gl->name};
      bind_undefined(B, &name, gl->err, gl->err_loc);
    } else if (exec_stmt(B, &gl->st) == FLOW_ERROR) {
      const char *msg = B->err ? strstr(B->err->msg, "error: ") : NULL;
      msg = msg ? msg + 7 : "invalid module constant";
      msg = arena_printf(B->a, "module constant '%s' cannot be computed when compiling: %.*s", gl->name,
                         (int)strcspn(msg, "\n"), msg);
      coil_err_free(B->err);
      B->err = NULL;
      for (int k = 0; k < gl->st.ntargets; k++) bind_undefined(B, gl->st.targets[k], msg, B->err_loc);
    }
    B->nglobals = B->nenv;
  }
}

static CoilErr *select_func(Module *m, const char *fn_name, const ArgOverride *args, int nargs, Func **out) {
  if (fn_name) {
    for (int i = 0; i < m->nfuncs; i++)
      if (!strcmp(m->funcs[i].name, fn_name)) { *out = &m->funcs[i]; return NULL; }
    StrBuf sb = {0};
    for (int i = 0; i < m->nfuncs; i++) sb_printf(&sb, "%s%s", i ? ", " : "", m->funcs[i].name);
    CoilErr *e = coil_err("%s: no function named '%s' (functions: %s)", m->file, fn_name, sb.data ? sb.data : "none");
    sb_free(&sb);
    return e;
  }
  Func *found = NULL;
  int count = 0;
  StrBuf sb = {0};
  for (int pass = 0; pass < 2 && !count; pass++)
    for (int i = 0; i < m->nfuncs; i++) {
      bool ok = pass == 0 ? is_annotated(&m->funcs[i]) : covered_by_args(&m->funcs[i], args, nargs);
      if (ok) {
        found = &m->funcs[i];
        sb_printf(&sb, "%s%s", count++ ? ", " : "", m->funcs[i].name);
      }
    }
  if (count == 1) { sb_free(&sb); *out = found; return NULL; }
  CoilErr *e;
  if (count > 1) {
    e = coil_err("%s: several functions could be compiled (%s); pick one with --fn NAME", m->file, sb.data);
  } else {
    StrBuf all = {0};
    for (int i = 0; i < m->nfuncs; i++) sb_printf(&all, "%s%s", i ? ", " : "", m->funcs[i].name);
    e = coil_err("%s: no function has all its parameters annotated with shapes like x: \"f32[4, 8]\" "
                   "(functions: %s); annotate one, or give --fn NAME and --arg NAME=DTYPE[d0,...]",
                   m->file, all.data ? all.data : "none");
    sb_free(&all);
  }
  sb_free(&sb);
  return e;
}

CoilErr *graph_build(Arena *a, Module *m, const char *fn_name, const ArgOverride *args, int nargs, Graph *g) {
  Func *f = NULL;
  CoilErr *e = select_func(m, fn_name, args, nargs, &f);
  if (e) return e;
  for (int k = 0; k < nargs; k++) {
    bool found = false;
    for (int i = 0; i < f->nparams; i++) found |= !strcmp(f->params[i].name, args[k].name);
    if (!found) {
      StrBuf sb = {0};
      for (int i = 0; i < f->nparams; i++) sb_printf(&sb, "%s%s", i ? ", " : "", f->params[i].name);
      e = coil_err("--arg %s: %s has no parameter named '%s' (its parameters: %s)", args[k].name, f->name,
                     args[k].name, sb.data ? sb.data : "none");
      sb_free(&sb);
      return e;
    }
  }
  if ((e = parse_body(a, m, f))) return e;
  *g = (Graph){.fn_name = f->name};
  Frame top = {0};
  Builder B = {.a = a, .m = m, .g = g, .frame = &top};
  eval_globals(&B);
  g->inputs = ARENA_ARRAY(a, InputSpec, f->nparams + 1);
  Val **vals = ARENA_ARRAY(a, Val *, f->nparams + 1);
  for (int i = 0; i < f->nparams; i++) {
    Param *p = &f->params[i];
    InputSpec *s = &g->inputs[g->ninputs];
    s->name = p->name;
    s->loc = p->loc;
    const char *over = NULL;
    for (int k = 0; k < nargs; k++)
      if (!strcmp(args[k].name, p->name)) over = args[k].spec;
    if (over) {
      if ((e = parse_input_spec(over, (SrcLoc){0}, s))) {
        char *msg = e->msg;
        e->msg = NULL;
        coil_err_free(e);
        e = coil_err("--arg %s=%s: %s", p->name, over, strncmp(msg, "error: ", 7) ? msg : msg + 7);
        free(msg);
        return e;
      }
    } else if (p->annot) {
      SrcLoc al = p->annot_loc;
      if ((e = parse_input_spec(p->annot, al, s))) return e;
    } else if (p->dflt) {
      /* A Python value with a default (eps=1e-6) takes it. */
      if (!(vals[i] = default_value(&B, p->dflt))) return B.err;
      continue;
    } else {
      return coil_err_at(p->loc, "parameter '%s' has no shape: annotate it like %s: \"f32[4, 8]\" or give --arg %s=f32[4,8]",
                           p->name, p->name, p->name);
    }
    GNode *n = new_node(&B, OP_INPUT, s->dtype, s->ndim, s->shape, p->loc);
    n->input = g->ninputs++;
    n->label = p->name;
    vals[i] = mktensor(&B, n);
  }
  Frame fr;
  B.depth = 1;
  Val *v = run_frame(&B, f, vals, &fr);
  if (!v) return B.err;
  const Stmt *st = fr.ret_stmt;
  if (!st) {
    if (!f->has_return) return coil_err_at(f->loc, "function '%s' has no return statement", f->name);
    return coil_err_at(f->loc, "function '%s' reaches its end without a return (on the path its branches took)", f->name);
  }
  Val **outs = v->kind == V_TUPLE ? v->items : &v;
  int nout = v->kind == V_TUPLE ? v->n : 1;
  if (nout == 0) return coil_err_at(st->loc, "the function must return at least one tensor");
  g->outputs = ARENA_ARRAY(a, GNode *, nout);
  for (int k = 0; k < nout; k++) {
    if (outs[k]->kind != V_TENSOR) {
      /* An element's own place when the return is a tuple written out; a
       * tuple value from elsewhere (return x.shape) has only the statement's. */
      const Node *rv = st->value;
      SrcLoc l = !rv ? st->loc : rv->kind == ND_TUPLE && k < rv->nitems ? rv->items[k]->loc : rv->loc;
      return coil_err_at(l, "the function must return tensors, but output %d is %s", k, kind_name(outs[k]));
    }
    g->outputs[k] = outs[k]->t;
  }
  g->noutputs = nout;
  return graph_verify(g);
}

/* ------------------------------------------------------------ verify, dump */

CoilErr *graph_verify(const Graph *g) {
  for (int i = 0; i < g->nnodes; i++) {
    const GNode *n = g->nodes[i];
    if (n->id != i) return coil_err("graph verifier: node %%%d has id %d", i, n->id);
    if (n->nin != op_info[n->op].arity) return coil_err("graph verifier: %%%d (%s) has %d inputs", i, op_info[n->op].name, n->nin);
    for (int k = 0; k < n->nin; k++)
      if (!n->in[k] || n->in[k]->id >= n->id) return coil_err("graph verifier: %%%d uses a later node", i);
    switch (op_info[n->op].kind) {
    case OK_REDUCE: {
      const GNode *x = n->in[0];
      int nd = 0;
      for (int d = 0; d < x->ndim; d++)
        if (!(n->rmask >> d & 1) && x->shape[d] != n->shape[nd++]) return coil_err("graph verifier: %%%d bad reduce shape", i);
      if (nd != n->ndim) return coil_err("graph verifier: %%%d bad reduce rank", i);
      if (op_is_argred(n->op) && (n->cdtype != x->dtype || n->dtype != (n->argval ? x->dtype : DT_I64)))
        return coil_err("graph verifier: %%%d: an arg-reduction gives its input's values or int64 indices", i);
      if (!op_is_argred(n->op) && n->argval) return coil_err("graph verifier: %%%d: only an arg-reduction has values", i);
      if (n->nan_quiet && !((n->op == OP_AMAX || n->op == OP_AMIN) && dtype_is_float(n->dtype)))
        return coil_err("graph verifier: %%%d: only a float amax or amin is nan-quiet", i);
      break;
    }
    case OK_LEAF:
      if (n->op == OP_IOTA && (n->dtype != DT_I64 || n->ndim < 1 || n->dim < 0 || n->dim >= n->ndim))
        return coil_err("graph verifier: %%%d: an iota is int64 and indexes one of its dims", i);
      break;
    case OK_VIEW:
      if (n->op == OP_PAD) {
        if (n->in[0]->ndim != n->ndim) return coil_err("graph verifier: %%%d pad changes rank", i);
        if (n->dtype != n->in[0]->dtype) return coil_err("graph verifier: %%%d pad changes dtype", i);
        if (n->dtype == DT_BOOL && (uint64_t)n->ival > 1) return coil_err("graph verifier: %%%d pad's fill is no bool", i);
      }
      if (n->op == OP_SLICE) {
        const GNode *x = n->in[0];
        if (x->ndim != n->ndim) return coil_err("graph verifier: %%%d slice changes rank", i);
        for (int d = 0; d < n->ndim; d++) {
          if (n->sstep[d] == 0) return coil_err("graph verifier: %%%d slice has step 0 in dim %d", i, d);
          if (n->shape[d] < 0) return coil_err("graph verifier: %%%d slice has a negative size", i);
          if (n->shape[d] == 0) continue;
          /* the first and the last point read, both inside x */
          int64_t last = n->start[d] + n->sstep[d] * (n->shape[d] - 1);
          if (n->start[d] < 0 || n->start[d] >= x->shape[d] || last < 0 || last >= x->shape[d])
            return coil_err("graph verifier: %%%d slice leaves its input in dim %d", i, d);
        }
      }
      if (n->op == OP_RESHAPE && shape_numel(n->ndim, n->shape) != shape_numel(n->in[0]->ndim, n->in[0]->shape))
        return coil_err("graph verifier: %%%d reshape changes numel", i);
      break;
    case OK_GATHER: {
      const GNode *x = n->in[0], *ix = n->in[1];
      if (n->dtype != x->dtype || !(ix->dtype == DT_I64 || ix->dtype == DT_I32)) return coil_err("graph verifier: %%%d gather's dtypes", i);
      if (ix->ndim != n->ndim || memcmp(ix->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim))
        return coil_err("graph verifier: %%%d gather's index is not of its shape", i);
      if (n->dim < 0 || n->dim >= x->ndim || x->shape[n->dim] < 1) return coil_err("graph verifier: %%%d gathers along a bad dim", i);
      for (int d = 0; d < x->ndim; d++) {
        int f = n->perm[d];
        if (d == n->dim) continue;
        if (f < 0 ? x->shape[d] != 1 : f >= n->ndim || n->shape[f] > x->shape[d])
          return coil_err("graph verifier: %%%d gather reads dim %d outside its input", i, d);
      }
      break;
    }
    case OK_SCATTER: {
      const GNode *x = n->in[0], *ix = n->in[1], *v = n->in[2];
      if (n->dtype != x->dtype || v->dtype != x->dtype || n->dtype == DT_BOOL || !(ix->dtype == DT_I64 || ix->dtype == DT_I32))
        return coil_err("graph verifier: %%%d scatter's dtypes", i);
      if (x->ndim != n->ndim || memcmp(x->shape, n->shape, sizeof(int64_t) * (size_t)n->ndim))
        return coil_err("graph verifier: %%%d scatter's base is not of its shape", i);
      if (ix->ndim != n->ndim || v->ndim != n->ndim || memcmp(ix->shape, v->shape, sizeof(int64_t) * (size_t)n->ndim))
        return coil_err("graph verifier: %%%d scatter's index is not of its values' shape", i);
      if (n->dim < 0 || n->dim >= n->ndim || n->shape[n->dim] < 1) return coil_err("graph verifier: %%%d scatters along a bad dim", i);
      for (int d = 0; d < n->ndim; d++)
        if (d != n->dim && v->shape[d] > n->shape[d]) return coil_err("graph verifier: %%%d scatter writes dim %d outside its result", i, d);
      break;
    }
    case OK_UNARY: case OK_BINARY: case OK_COMPARE: case OK_WHERE:
      for (int k = 0; k < n->nin; k++) {
        const GNode *x = n->in[k];
        if (x->ndim > n->ndim) return coil_err("graph verifier: %%%d operand has higher rank", i);
        for (int d = 0; d < x->ndim; d++) {
          int64_t o = n->shape[d + n->ndim - x->ndim];
          if (x->shape[d] != o && x->shape[d] != 1) return coil_err("graph verifier: %%%d operand does not broadcast", i);
        }
      }
      if (op_info[n->op].kind == OK_COMPARE && n->dtype != DT_BOOL) return coil_err("graph verifier: %%%d comparison not bool", i);
      break;
    default: break;
    }
  }
  for (int k = 0; k < g->noutputs; k++)
    if (!g->outputs[k]) return coil_err("graph verifier: output %d missing", k);
  return NULL;
}

void graph_dump(StrBuf *sb, const Graph *g) {
  sb_printf(sb, "graph %s\n", g->fn_name);
  for (int i = 0; i < g->nnodes; i++) {
    const GNode *n = g->nodes[i];
    sb_printf(sb, "  %%%d = %s", n->id, op_info[n->op].name);
    for (char *c = sb->data + sb->len - strlen(op_info[n->op].name); *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    switch (n->op) {
    case OP_INPUT: {
      const InputSpec *s = &g->inputs[n->input];
      static const char *dists[] = {"randn", "uniform", "ones", "arange"};
      sb_printf(sb, " %s (%s", s->name, dists[s->dist]);
      if (s->dist == DIST_UNIFORM) sb_printf(sb, " %g..%g", s->lo, s->hi);
      if (s->strided) {
        sb_puts(sb, ", ");
        stride_str(sb, s->ndim, s->stride);
      }
      sb_puts(sb, ")");
      break;
    }
    case OP_CONST:
      if (dtype_is_float(n->dtype)) sb_printf(sb, " %.17g", n->fval);
      else sb_printf(sb, " %lld", (long long)n->ival);
      break;
    case OP_IOTA: break;
    default:
      for (int k = 0; k < n->nin; k++) sb_printf(sb, " %%%d", n->in[k]->id);
    }
    if (n->op == OP_PERMUTE) {
      sb_puts(sb, " (");
      for (int d = 0; d < n->ndim; d++) sb_printf(sb, "%s%d", d ? "," : "", n->perm[d]);
      sb_puts(sb, ")");
    }
    if (n->op == OP_IOTA) sb_printf(sb, " dim=%d start=%lld step=%lld", n->dim, (long long)n->ival, (long long)n->step);
    if (n->op == OP_PAD) {
      if (dtype_is_float(n->dtype)) sb_printf(sb, " fill=%.17g", n->fval);
      else sb_printf(sb, " fill=%lld", (long long)n->ival);
    }
    if (n->op == OP_SLICE || n->op == OP_PAD) {
      sb_puts(sb, " start=(");
      for (int d = 0; d < n->ndim; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)n->start[d]);
      sb_puts(sb, ")");
      bool stepped = false;
      for (int d = 0; d < n->ndim; d++) stepped |= n->op == OP_SLICE && n->sstep[d] != 1;
      if (stepped) {
        sb_puts(sb, " step=(");
        for (int d = 0; d < n->ndim; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)n->sstep[d]);
        sb_puts(sb, ")");
      }
    }
    if (n->op == OP_GATHER) {
      sb_printf(sb, " dim=%d from=(", n->dim);
      /* each dim of the input: read at the index's value (i), at 0 (_), or at the output's dim k */
      for (int d = 0; d < n->in[0]->ndim; d++) {
        sb_puts(sb, d ? "," : "");
        if (d == n->dim) sb_putc(sb, 'i');
        else if (n->perm[d] < 0) sb_putc(sb, '_');
        else sb_printf(sb, "%d", n->perm[d]);
      }
      sb_puts(sb, n->wraps ? ") wraps" : ")");
    }
    if (n->op == OP_SCATTER_ADD) sb_printf(sb, " dim=%d%s", n->dim, n->wraps ? " wraps" : "");
    if (op_info[n->op].kind == OK_REDUCE) {
      sb_puts(sb, " dims=(");
      for (int d = 0, first = 1; d < n->in[0]->ndim; d++)
        if (n->rmask >> d & 1) { sb_printf(sb, "%s%d", first ? "" : ",", d); first = 0; }
      sb_puts(sb, ")");
      if (op_is_argred(n->op)) sb_puts(sb, n->argval ? " value" : " index");
      if (n->nan_quiet) sb_puts(sb, " nan-quiet");
    }
    sb_printf(sb, " : %s", dtype_name(n->dtype));
    shape_str(sb, n->ndim, n->shape);
    if (n->cdtype != n->dtype && n->op != OP_CAST) sb_printf(sb, " in %s", dtype_name(n->cdtype));
    if (n->label) sb_printf(sb, "  # %s", n->label);
    sb_printf(sb, "  @%d:%d\n", n->loc.line, n->loc.col);
  }
  sb_puts(sb, "  return");
  for (int k = 0; k < g->noutputs; k++) sb_printf(sb, "%s %%%d", k ? "," : "", g->outputs[k]->id);
  sb_puts(sb, "\n");
}
