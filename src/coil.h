/* coil: a compiler for fused multi-axis reductions.
 *
 * One header, in sections, one section per source file (as chibicc does).
 * Exported names carry a module prefix; enum constants carry a kind prefix.
 *
 * Error discipline (two tiers):
 *   - the user's errors are values: a function that can fail returns a
 *     CoilErr* (NULL on success) carrying "file:line:col: error: msg", the
 *     source line and a caret.  Only the commands (src/cmd/) print them and exit (status 2).
 *   - coil's own bugs call coil_unreachable(), which names coil's file:line.
 */
#ifndef COIL_H
#define COIL_H

#include "dtype.h"
#include "lex.h"
#include "ops.h"
#include "util.h"

#define COIL_MAX_DIMS 8


/* --------------------------------------------------------------- parse.c */

typedef enum NodeKind {
  ND_NAME, ND_INT, ND_FLOAT, ND_BOOL, ND_NONE, ND_STR,
  ND_ATTR,      /* lhs.name */
  ND_CALL,      /* lhs(args, kw=...) */
  ND_SUBSCRIPT, /* lhs[index] */
  ND_TUPLE, ND_LIST,
  ND_BINARY,    /* op in .op: + - * / // % ** & | ^ @ */
  ND_UNARY,     /* - + ~ not */
  ND_COMPARE,   /* < <= > >= == != in, not in, is, is not */
  ND_SLICE,     /* lo:hi:step inside a subscript; lhs = lo, rhs = hi, items[0] = step, each optional */
  ND_ELLIPSIS,  /* '...' inside a subscript */
  ND_BOOLOP,    /* lhs and rhs, lhs or rhs (op "and" / "or") */
  ND_COND,      /* lhs if cond else rhs */
} NodeKind;

typedef struct Node Node;
struct Node {
  NodeKind kind;
  SrcLoc loc;
  const char *op;   /* ND_BINARY/UNARY/COMPARE/BOOLOP spelling */
  const char *name; /* ND_NAME, ND_ATTR, ND_STR (contents) */
  int64_t ival;
  double fval;
  Node *lhs, *rhs;
  Node *cond;        /* ND_COND */
  Node **items;      /* ND_CALL args, ND_TUPLE/LIST elements */
  int nitems;
  const char **kwnames; /* ND_CALL keyword arguments */
  Node **kwvals;
  int nkw;
};

/* Statements.  Control flow is real syntax here; graph.c runs it when
 * compiling, on values known then (shapes, dtypes, Python numbers). */
typedef enum StmtKind {
  ST_ASSIGN, ST_RETURN, ST_EXPR, /* ST_EXPR: a docstring */
  ST_AUG,      /* targets[0] op= ...: value is the binary node `target op rhs` */
  ST_IF,       /* value: the condition; body; orelse (an elif is one ST_IF there, with elif set) */
  ST_FOR,      /* for targets[0] in value: body; orelse runs when no break ended the loop */
  ST_WHILE,    /* while value: body; orelse as for for */
  ST_BREAK, ST_CONTINUE, ST_PASS,
  ST_ASSERT,   /* assert value, msg */
  ST_RAISE,    /* raise value (an error when it runs) */
} StmtKind;

typedef struct Stmt Stmt;
struct Stmt {
  StmtKind kind;
  SrcLoc loc;
  Node **targets; /* ST_ASSIGN: names or (nested) tuples of names: `a, (b, c) = ...` gives two */
  int ntargets;
  Node *value;    /* may be NULL: a bare return or raise */
  Node *msg;      /* ST_ASSERT's message, or NULL */
  Stmt *body, *orelse;
  int nbody, norelse;
  SrcLoc else_loc;
  bool elif;
};

typedef struct Param {
  const char *name;
  SrcLoc loc;
  const char *annot; /* string annotation or NULL */
  SrcLoc annot_loc;
  Node *dflt;        /* default value or NULL: evaluated when called (coil knows no mutation) */
  bool kwonly;       /* after a bare `*` */
} Param;

typedef struct Func {
  const char *name;
  SrcLoc loc;
  Param *params;
  int nparams;
  Stmt *body; /* NULL until parse_body() */
  int nbody;
  int body_start, body_end; /* token range of the indented body */
  const char **locals; /* every name the body assigns (Python's local scope) */
  int nlocals;
  bool has_return;
} Func;

/* A top-level import: `import torch.nn.functional as F` binds alias "F"
 * to module "torch.nn.functional"; `from torch.nn import functional`
 * binds "functional" to "torch.nn.functional". */
typedef struct Import {
  const char *alias, *module;
  SrcLoc loc;
} Import;

/* A top-level assignment (EPS = 1e-6), in file order.  One that is not in
 * coil's subset keeps its parse error (err, at err_loc) for the name it
 * assigns: that error is reported only where a function uses the name. */
typedef struct Global {
  Stmt st;
  const char *name;   /* the first name assigned */
  const char *err;
  SrcLoc err_loc;
} Global;

typedef struct Module {
  const char *file;
  const char *text;
  Token *toks;
  int ntoks;
  Func *funcs;
  int nfuncs;
  Import *imports;
  int nimports;
  Global *globals;
  int nglobals;
} Module;

/* Parse the top level: every `def` header, every import and every
 * assignment.  Everything else at the top level (if __name__ blocks, other
 * statements) is skipped. */
CoilErr *parse_module(Arena *a, const char *file, const char *text, Module *m);
/* Parse one function's body as coil's Python subset (again: it starts
 * over). */
CoilErr *parse_body(Arena *a, Module *m, Func *f);
void parse_dump(StrBuf *sb, const Func *f);

/* --------------------------------------------------------------- graph.c */

/* The tensor graph: one node per tensor op, with shapes, dtypes and
 * PyTorch's promotion already decided.  Views (permute, expand, reshape)
 * are nodes that re-index their input; nothing is ever copied for them.
 * Reductions produce their accumulation dtype (f32 for a bf16 sum); a CAST
 * node after them gives PyTorch's result dtype, so every rounding step is
 * explicit in the graph. */

typedef enum Dist { DIST_RANDN, DIST_UNIFORM, DIST_ONES, DIST_ARANGE } Dist;

typedef struct InputSpec {
  const char *name;
  SrcLoc loc;
  DType dtype;
  int ndim;
  int64_t shape[COIL_MAX_DIMS];
  /* Where element idx lives in the caller's storage: sum(idx[d] * stride[d])
   * elements from the start.  An annotation's stride(...) (a view: a
   * transposed weight, an expanded bias with stride 0, a slice of a larger
   * buffer), else the contiguous strides; coil reads views in place. */
  int64_t stride[COIL_MAX_DIMS];
  bool strided; /* stride(...) was given */
  Dist dist;
  double lo, hi; /* DIST_UNIFORM */
} InputSpec;

typedef struct GNode GNode;
struct GNode {
  int id;
  Op op;
  DType dtype;  /* the result's dtype */
  DType cdtype; /* the dtype the op computes in (operands are converted) */
  int ndim;
  int64_t shape[COIL_MAX_DIMS];
  GNode *in[3];
  int nin;
  int input;     /* OP_INPUT: parameter index */
  double fval;   /* OP_CONST (float dtypes) */
  int64_t ival;  /* OP_CONST (int and bool dtypes) */
  /* OP_PERMUTE: output dim d reads input dim perm[d].  OP_GATHER: input
   * dim d (d != dim) is read at the output's index along dim perm[d]. */
  int perm[COIL_MAX_DIMS];
  /* OP_SLICE and OP_PAD: output index i of dim d reads input index
   * start[d] + i.  A slice stays inside its input; a pad's points outside
   * it (start[d] may be negative, the shape larger) read its fill, fval
   * or ival in its dtype, instead of memory: constant_pad_nd, and the
   * pieces of cat, slice_scatter and select_scatter. */
  int64_t start[COIL_MAX_DIMS];
  /* OP_SLICE: output index i of dim d reads input index start[d] +
   * sstep[d] * i (never 0; negative for a flip, x[::-1]; 1 for a box):
   * x[lo:hi:step], flip, and the pieces of roll and of the reflect and
   * circular pads.  A pad's step is 1. */
  int64_t sstep[COIL_MAX_DIMS];
  /* OP_IOTA (int64): the value at a point is ival + step * (its index
   * along dim): arange, prims.iota, and the index cat compares.
   * OP_GATHER: out[p] = in[0][q], q[dim] = in[1][p] (in[1] has the
   * output's shape), q[d] = p[perm[d]] elsewhere; an index outside
   * [0, in[0]'s size along dim) is a run-time error, and where wraps, a
   * negative one counts from the end first (x[idx] does, gather does not).
   * OP_SCATTER_ADD: out = in[0], then for each point q of in[2] in
   * row-major order out[p] += in[2][q], p[dim] = in[1][q] (in[1] has
   * in[2]'s shape) and p[d] = q[d] elsewhere; the same check and wraps. */
  int dim;
  bool wraps;
  int64_t step;
  uint32_t rmask;          /* reductions: bit d set = input dim d reduced */
  /* OP_ARGMAX, OP_ARGMIN (an arg-reduction over rmask's dims, flattened in
   * row-major order; cdtype: the input's dtype): false, the index of the
   * winning element (int64); true, its value (the input's dtype). */
  bool argval;
  /* OP_AMAX, OP_AMIN of floats: a NaN of the result cannot change an
   * output, so a target may drop it (nanquiet.c) */
  bool nan_quiet;
  SrcLoc loc;
  const char *label;       /* the user's variable name, for dumps */
};

typedef struct Graph {
  const char *fn_name;
  InputSpec *inputs;
  int ninputs;
  GNode **nodes; /* topological order */
  int nnodes, cap;
  GNode **outputs;
  int noutputs;
} Graph;

typedef struct ArgOverride { /* --arg NAME=DTYPE[d0,...] */
  const char *name, *spec;
} ArgOverride;

/* Pick the function (by name, or the file's only annotated one) and
 * evaluate its body into a graph. */
CoilErr *graph_build(Arena *a, Module *m, const char *fn_name,
                     const ArgOverride *args, int nargs, Graph *g);
CoilErr *graph_verify(const Graph *g);
void graph_dump(StrBuf *sb, const Graph *g);
/* Is every element of n <= 0 or NaN?  True of x - amax(x, dims, keepdim)
 * in a float dtype (softmax's and logsumexp's shift). */
bool graph_nonpositive(const GNode *n);
/* nanquiet.c: mark each float amax and amin whose NaN no output needs. */
void graph_quiet_nans(Arena *a, Graph *g);
/* The spellings the builder accepts, one row each (graph.c's table):
 * i-th row into *out, false past the last.  `coil ops` prints them. */
typedef enum SpellingForm { SP_TENSOR = 1, SP_TORCH = 2, SP_F = 4, SP_LINALG = 8, SP_ATEN = 16, SP_PRIMS = 32 } SpellingForm;
typedef struct SpellingInfo {
  const char *name;   /* SP_ATEN and SP_PRIMS: an overload's schema, "NAME.OVERLOAD(ARGS)", as PyTorch
                       * declares it: "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)" */
  unsigned forms;     /* SP_TENSOR: x.NAME(...); SP_TORCH: torch.NAME(x, ...); SP_F: F.NAME(x, ...);
                       * SP_LINALG: torch.linalg.NAME(x, ...); SP_ATEN: aten.NAME.OVERLOAD(...)
                       * (torch.ops.aten); SP_PRIMS: prims.NAME.OVERLOAD(...) (torch.ops.prims) */
  const char *dtypes; /* the input dtypes it takes */
} SpellingInfo;
bool graph_spelling(int i, SpellingInfo *out);
int64_t shape_numel(int ndim, const int64_t *shape);
void shape_str(StrBuf *sb, int ndim, const int64_t *shape); /* [2,3] */
/* Parse "bf16[2, 3] uniform(1, 2)", with an optional "stride(s0, ...)"
 * after the shape (before or after the distribution), into spec (name and
 * loc already set). */
CoilErr *parse_input_spec(const char *text, SrcLoc loc, InputSpec *spec);
/* The elements a strided tensor's storage spans: 1 + sum((shape[d] - 1) *
 * stride[d]), 0 when a dim is empty; shape_numel() for contiguous strides. */
int64_t strided_extent(int ndim, const int64_t *shape, const int64_t *stride);
/* Contiguous (row-major) strides of shape. */
void contiguous_strides(int ndim, const int64_t *shape, int64_t *stride);
void stride_str(StrBuf *sb, int ndim, const int64_t *stride); /* stride(1,4) */

/* --------------------------------------------------------------- iexpr.c */

/* Index expressions: c + sum(coef * atom), atom an axis variable or a
 * floor division / modulo of another expression by a constant.  Kept in a
 * canonical form (terms sorted, merged, no zero coefficients), and
 * simplified with the ranges of the axes, so that the index maps of
 * contiguous reshapes collapse back to affine form:
 *   b*(k // b) + (k % b)  ->  k
 *   (b*i + j) % (a*b)     ->  b*i + j      when 0 <= j < b, 0 <= i < a. */
typedef struct IExpr IExpr;
typedef enum IAtomKind { IA_AXIS, IA_DIV, IA_MOD } IAtomKind;
typedef struct IAtom {
  IAtomKind kind;
  int axis;        /* IA_AXIS */
  const IExpr *e;  /* IA_DIV, IA_MOD */
  int64_t d;
} IAtom;
typedef struct ITerm {
  int64_t coef;
  const IAtom *atom;
} ITerm;
struct IExpr {
  int64_t c;
  int n;
  ITerm *t;
};

/* Ranges come from the sizes of the axes an expression mentions. */
typedef struct IRange {
  const int64_t *axis_size;
} IRange;

/* A range condition on an index: lo <= e < hi (lo INT64_MIN: no lower
 * bound; hi INT64_MAX: no upper bound).  A guarded load's guard. */
typedef struct IRangeCond {
  IExpr *e;
  int64_t lo, hi;
} IRangeCond;

IExpr *ix_const(Arena *a, int64_t c);
IExpr *ix_axis(Arena *a, int axis);
IExpr *ix_add(Arena *a, const IExpr *x, const IExpr *y);
IExpr *ix_scale(Arena *a, const IExpr *x, int64_t k);
IExpr *ix_div(Arena *a, IRange r, const IExpr *x, int64_t d);
IExpr *ix_mod(Arena *a, IRange r, const IExpr *x, int64_t m);
void ix_bounds(IRange r, const IExpr *x, int64_t *lo, int64_t *hi);
/* Bounds of x over the points where every condition holds (a sound
 * over-approximation: axes and atoms a condition pins are narrowed, and a
 * condition's expression found scaled inside x is replaced by its range). */
void ix_bounds_where(IRange r, const IExpr *x, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi);
bool ix_equal(const IExpr *x, const IExpr *y);
uint64_t ix_hash(const IExpr *x);               /* equal expressions hash alike */
bool ix_is_affine(const IExpr *x);              /* no div/mod atoms */
int64_t ix_coef(const IExpr *x, int axis);      /* linear coefficient of axis */
bool ix_mentions(const IExpr *x, int axis);     /* anywhere, atoms included */
bool ix_mentions_nonlinear(const IExpr *x, int axis);
/* Substitute axis -> expression for every axis (sub[axis] NULL: keep). */
IExpr *ix_subst(Arena *a, IRange r, const IExpr *x, IExpr *const *sub);
/* Print with axis names; mult/add spelled for C or Python. */
void ix_print(StrBuf *sb, const IExpr *x, const char *const *axis_names, bool c_syntax);

/* ---------------------------------------------------------------- fuse.c */

/* Fusion decides which graph nodes get a buffer.  Inputs and outputs have
 * one; a reduction gets one when its result feeds another reduction or is
 * broadcast back over a larger domain (softmax's row max), or when kernels
 * would otherwise compute it twice.  Every other node is computed inside a
 * kernel.  Roots (outputs and materialized reductions) are grouped into
 * kernels: roots of one shape that do not depend on each other share one,
 * so `return x.sum(1), x.amax(1)` reads x once. */

typedef enum BufKind { BUF_INPUT, BUF_OUTPUT, BUF_TEMP } BufKind;

typedef struct Buffer {
  BufKind kind;
  int index; /* BUF_INPUT: parameter; BUF_OUTPUT: output number */
  const char *name;
  DType dtype;
  int ndim;
  int64_t shape[COIL_MAX_DIMS];
  /* Element idx is at sum(idx[d] * stride[d]): an input's strides as the
   * caller lays it out (InputSpec.stride), contiguous for every other. */
  int64_t stride[COIL_MAX_DIMS];
  /* Elements of its storage: the strides' extent, which for a strided
   * input is not the shape's product (a slice skips elements, stride 0
   * repeats them); what is allocated, bounds-checked and filled. */
  int64_t numel;
  const GNode *node;
} Buffer;

typedef struct FusedKernel {
  GNode **roots; /* all of one shape */
  int nroots;
  int *root_buf;
  /* Its roots are one sum at indices (OP_SCATTER_ADD), whose base the
   * kernel before wrote: this one runs over the values' points and adds
   * each into the root's buffers at its index. */
  bool scatter;
} FusedKernel;

typedef struct Fusion {
  const Graph *g;
  Buffer *bufs;
  int nbufs;
  int *node_buf; /* per node id: its buffer, or -1 */
  FusedKernel *kernels;
  int nkernels;
  const bool *kept; /* per node id: given a buffer so kernels stop recomputing it (recompute.c), or NULL */
  /* per node id: returned, pointwise over buffers: the kernel that stores
   * it computes it for its other roots too, never reading it back (fuse.c) */
  const bool *shared;
} Fusion;

/* kept: pointwise nodes that get buffers too (NULL: none). */
CoilErr *fuse_graph(Arena *a, const Graph *g, const bool *kept, Fusion *f);
void fuse_dump(StrBuf *sb, const Fusion *f);

/* ---------------------------------------------------------------- kernel.c */

/* Kernel IR.  A kernel iterates over its x axes (the output tile: the
 * roots' shape) and, for each point, over the r axes of each reduction
 * group.  Values form a DAG in topological order; each value has a scope
 * derived from what it reads:
 *   SCOPE_X     depends on x axes only (can be computed anywhere);
 *   g >= 0      inside group g's reduction loops (reads its r axes);
 *   SCOPE_POST  after the reductions (reads a reduction's result).
 * Accumulators belong to the x tile: a group's accumulators are created
 * before its first r loop and finished after its last, for any number of r
 * axes.  That is a property of this structure, not of any printer. */

enum { SCOPE_X = -1, SCOPE_POST = -2 };

typedef enum AxisKind { AX_X, AX_R } AxisKind;

typedef struct KAxis {
  AxisKind kind;
  int64_t size;
  int group; /* AX_R */
  const char *name;
} KAxis;

/* A value's op: OP_INPUT a load of buf at index; OP_GATHER an indexed
 * load (its index has a value's term, below); OP_CONST a constant
 * (fval or ival); OP_IOTA an index value, int64: the value of the
 * expression index at the point (printers spell it from the axis
 * variables, as they spell a load's index); reductions' ops a reduction
 * result; every other op computes from its arguments.
 *
 * A guarded load (nguard > 0) reads memory only at the points where every
 * range of guard holds, and elsewhere gives its fill (fval or ival, in its
 * dtype): a padded read.  Printers never read outside the guard (C:
 * cond ? load : fill; Triton: the guard joins the load's mask, other=fill);
 * the verifier checks the index inside the buffer where the guard holds. */
typedef struct KVal {
  Op op;
  DType dtype, cdtype;
  int arg[3];
  int narg;
  int buf;     /* loads */
  IExpr *index; /* loads: the element; OP_IOTA: the value */
  IRangeCond *guard; /* loads: NULL, or nguard ranges */
  int nguard;
  double fval; /* OP_CONST; a guarded load's fill */
  int64_t ival;
  int red;     /* a reduction result: its index in reds */
  /* OP_GATHER, an indexed load: buf at index + gstride * i, i the value of
   * arg 0 (an integer), which must lie in [0, gsize) (where gwrap, after a
   * negative i is wrapped by gsize); an index outside is never read: the
   * kernel reports graph node gnode's check as failed instead. */
  int64_t gstride, gsize;
  bool gwrap;
  int gnode;
  bool argval; /* an arg-reduction's result: its value (true) or its index (false, int64) */
  int scope;
  bool nonpos; /* known <= 0 or NaN (graph_nonpositive): exp's cheaper range key */
} KVal;

typedef struct KRed {
  Op op;       /* OP_SUM, OP_PROD, OP_AMAX, OP_AMIN, OP_ARGMAX, OP_ARGMIN */
  DType dtype; /* accumulation dtype (an arg-reduction's: its values') */
  int src;     /* value reduced */
  int group;
  /* OP_ARGMAX, OP_ARGMIN: the index value (OP_IOTA, int64) giving each r
   * point of the group its position in PyTorch's order (the reduced dims
   * flattened row-major), whatever order the loops run in.  The
   * accumulator is the pair (value, position); the combine takes the
   * larger (smaller) value, a NaN above (below) every number, and between
   * equal values or two NaNs the lower position, so it is associative and
   * commutative: any loop order, tiling, split or tree gives PyTorch's
   * answer.  Identity: (-inf or the type's lowest, INT64_MAX). */
  int idx;
  bool nan_quiet; /* OP_AMAX, OP_AMIN: its NaN may be dropped (GNode.nan_quiet) */
} KRed;

typedef struct KGroup {
  int naxes;
  int axes[COIL_MAX_DIMS]; /* outer to inner */
} KGroup;

/* A store of value val at buf's element index.  An indexed store
 * (indexed) adds val into buf at index + gstride * i instead, i the value
 * of ival, checked as an indexed load's index is (gsize, gwrap, gnode): an
 * index outside adds nothing outside the buffer (C adds at element 0 of
 * the add's range, Triton masks the add) and reports the check as failed.  Points of
 * the kernel that differ only along axes index does not mention (its
 * collision axes) may add into one element: a target adds them one after
 * another in the order of those axes (the C target: PyTorch's CPU sums) or
 * atomically (the Triton targets: the order is unspecified, as on CUDA). */
typedef struct KStore {
  int buf;
  IExpr *index;
  int val;
  bool indexed;
  int ival;
  int64_t gstride, gsize;
  bool gwrap;
  int gnode;
} KStore;

typedef struct Kernel {
  const char *name;
  KAxis *axes;
  int naxes;
  int x[COIL_MAX_DIMS]; /* the x axes, outer to inner */
  int nx;
  KGroup *groups;
  int ngroups;
  KVal *vals;
  int nvals, capvals;
  KRed *reds;
  int nreds;
  KStore *stores;
  int nstores;
} Kernel;

typedef struct Program {
  const Graph *g;
  Buffer *bufs;
  int nbufs;
  Kernel *kernels;
  int nkernels;
} Program;

/* Every index expression of k, for passes that rewrite axes: loads'
 * indices and guards, index values' expressions, stores' indices.  n set
 * to their number; the pointers may be written through. */
IExpr **const *kernel_indices(Arena *a, Kernel *k, int *n);
/* Substitute axis -> expression (sub[axis] NULL: keep) in every index of k
 * (guards copied first: a schedule's copy of a kernel shares them). */
void kernel_subst(Arena *a, Kernel *k, IExpr *const *sub);
/* Whether value i of k reads memory or axes (a load or an index value),
 * and whether that access mentions axis ax (index or guard). */
bool kval_mentions(const KVal *v, int ax);
/* Do loads or index values u and v agree on where they read (v's axes
 * mapped onto u's by sub, ranges rv of v's kernel)? Guards and fills too. */
bool kval_same_access(Arena *a, IRange rv, const KVal *u, const KVal *v, IExpr *const *sub);
/* A guarded load's condition: GUARD_DUMP "0 <= x1 - 3 < 5 and ...",
 * GUARD_C "(x1 - 3 >= 0 && x1 - 3 < 5 && ...)", GUARD_PY "((x1 - 3) >= 0)
 * & ((x1 - 3) < 5) & ..." (a Triton mask). */
typedef enum GuardStyle { GUARD_DUMP, GUARD_C, GUARD_PY } GuardStyle;
void kval_print_guard(StrBuf *sb, const KVal *v, const char *const *names, GuardStyle style);

/* An index expression that mentions every axis the access of value i
 * (a load, an indexed load or an index value) depends on: its index's and
 * guard's axes, and an indexed load's index value's (printers mask the
 * lanes outside the tile by it). */
IExpr *kval_access_span(Arena *a, const Kernel *k, int i);

/* Lower the fused graph into kernel IR (lower.c). */
CoilErr *lower_program(Arena *a, const Fusion *f, Program *p);
/* Recompute scopes; check the invariants above (kernel.c). */
void kernel_set_scopes(Kernel *k);
CoilErr *kernel_verify(const Program *p, const Kernel *k);
void kernel_dump(StrBuf *sb, const Program *p, const Kernel *k);
void program_dump(StrBuf *sb, const Program *p);
IRange kernel_range(Arena *a, const Kernel *k);
const char *const *kernel_axis_names(Arena *a, const Kernel *k);
/* Set mark[i] for every value root reads, root included; a value with
 * stop[i] >= 0 is marked but not followed (stop may be NULL). */
void kernel_mark_from(const Kernel *k, int root, bool *mark, const int *stop);
/* mark = exactly the values k's reductions and stores need, a value with
 * stop[i] >= 0 being read, not computed (a chain's row buffers). */
void kernel_mark_needed(const Kernel *k, bool *mark, const int *stop);
/* mark = exactly the values group g's reductions read. */
void kernel_mark_group(const Kernel *k, int g, bool *mark, const int *stop);
/* varies[i]: value i changes along axis ax (-1: none does but reductions). */
void kernel_varies_along(const Kernel *k, int ax, bool *varies);
/* Whether indexed store st may add twice into one element along axis ax
 * (a collision axis: KStore). */
bool kstore_collides_along(const KStore *st, int ax);
/* Whether any store of k is indexed. */
bool kernel_has_indexed_store(const Kernel *k);
/* The value store st converts to its buffer's dtype: the store's value, or
 * the f32 operand of its cast to a 16-bit float buffer type (a plain
 * store's: an indexed store adds the rounded value, as PyTorch does). */
int kernel_stored_value(const Program *p, const Kernel *k, const KStore *st);

/* --------------------------------------------------------------- simplify.c */

/* Drop size-1 axes; merge adjacent axes of one kind (and group) that are
 * contiguous in every access, so the seed's q_square_sum index stays
 * affine and loops are as long as possible. */
void simplify_kernel(Arena *a, Kernel *k);



/* ---------------------------------------------------------------- order.c */

/* Reorder each group's r axes so that its lead load (the one moving the
 * most bytes per r point) walks memory outer to inner, then simplify
 * again (axes that became adjacent may merge).  Every target reads the
 * lead load in this order: the CPU streams it, the Triton tiles follow it. */
void order_kernel(Arena *a, Kernel *k);
/* The load of group g that moves the most bytes per r point (the first of
 * equals), as a value index, or -1. */
int kernel_group_lead(const Kernel *k, int g);

/* ------------------------------------------------------------ recompute.c */

/* How many times the work of the graph the planned kernels do: each
 * value once per kernel that needs it, weighted by the points it is
 * computed at.  reuse (NULL, or per kernel NULL or per value >= 0) marks
 * the values a target reads from a buffer it keeps between kernels (the
 * CPU's row buffers) instead of computing them. */
double recompute_factor(const Graph *g, const Program *p, const int *const *reuse);
/* Kernels may do this many times the graph's work before nodes are kept
 * (each must save KEEP_MIN_WORK per element), for at most RECOMPUTE_ROUNDS
 * rounds of planning. */
#define RECOMPUTE_MAX 1.5
enum { KEEP_MIN_WORK = 32, RECOMPUTE_ROUNDS = 32 };
/* The pointwise node whose buffer would save the most recomputation, or -1. */
int recompute_pick(Arena *a, const Graph *g, const Fusion *f);

/* ------------------------------------------------------------------ ref.c */

/* The eager reference: runs the graph op by op with PyTorch's dtype
 * semantics (bf16/f16 ops compute in f32 and round each result; f32 ops
 * are correctly rounded; reductions accumulate in double and round once),
 * or, in f64 mode, everything floating in double with no rounding.
 * It streams: values are computed a line at a time and only reduction
 * results are kept, so its memory is the outputs plus the reductions. */
typedef union RV {
  double f;
  int64_t i;
} RV;

/* How a float NaN or out of range becomes an integer: as x86 does (the C
 * target; INT_MIN) or as a GPU does (the Triton targets; 0 for NaN, else
 * saturated). */
typedef enum RefCasts { REF_CASTS_CPU, REF_CASTS_GPU } RefCasts;

/* inputs[k]: parameter k's storage, in its dtype's C type, its elements
 * where InputSpec.stride places them.
 * outs[k]: numel of output k, as doubles (floats) or int64 (ints, bool). */
CoilErr *ref_run(const Graph *g, void *const *inputs, bool f64, RefCasts casts, RV **outs);
/* The error of indexed read `node` given an index out of range, at its
 * position: what every target reports when a kernel's check fails. */
CoilErr *ref_index_error(const Graph *g, int node);
const char *ref_index_message(Arena *a, const Graph *g, int node); /* its message, one line */

/* ------------------------------------------------------------------ compile.c */

/* The pipeline, compile_source(): parse, graph, fuse, lower, simplify and
 * order are the same for every target; the target then plans the kernels
 * (its schedule), says how much work its kernels do (so the pipeline can
 * keep values in buffers when they compute too much again), and prints
 * its code.  A target is a row of functions (QBE's Target): a new one is a
 * folder that defines a Target, and a row in the commands' table. */
typedef struct Compiled Compiled;
typedef struct Target {
  const char *name;       /* "c", "triton-npu", "triton-gpu"; its code's dump stage */
  const char *plan_stage; /* the dump stage of its plan: "schedule", "triton" */
  RefCasts casts;         /* how its float -> int casts treat NaN and overflow (ref.c) */
  /* Plan c->program into c->plan (allocated in c->arena); options are the
   * target's own (NULL: its defaults).  Sets c->planned to the kernels as
   * it runs them, and c->reuse where it reads values from buffers of its
   * own instead of computing them. */
  CoilErr *(*plan)(Compiled *c, const void *options);
  void (*dump)(StrBuf *sb, const Compiled *c);
  /* One line of what the plan runs, for `coil run`'s summary: where the
   * kernels run and how (the C target's threads, the Triton targets'
   * launches), so that an option which changes a plan shows in what ran. */
  void (*describe)(StrBuf *sb, const Compiled *c);
  CoilErr *(*emit)(StrBuf *out, const Compiled *c);
  /* Run the kernels on bufs (every Program buffer, inputs filled);
   * *ms, when not NULL, gets the kernels' time. */
  CoilErr *(*run)(Compiled *c, void *const *bufs, double *ms);
  /* Build n programs' code (those of this target not built yet) ahead of
   * their first runs, together where the target can (NULL: nothing to
   * build; run does all). */
  CoilErr *(*build)(Compiled *const *cs, int n);
  void (*release)(Compiled *c); /* what plan and run hold outside the arena */
} Target;

/* Everything one compilation produces, from source to the target's code. */
struct Compiled {
  Arena arena;
  Module module;
  Graph graph;
  Fusion fusion;
  Program program;   /* the target-independent kernels */
  const Target *target;
  void *plan;        /* the target's plan of program */
  const Program *planned;  /* the kernels as the target runs them: its copy, or &program */
  const int *const *reuse; /* per planned kernel (recompute_factor); NULL: none */
  StrBuf code;       /* the target's code (C source, a Python module) */
  const char *built; /* after a run: how the code was built ("cc", "cached", "no cc") */
  double build_ms;   /* and how long that took */
  double recompute;  /* the kernels' work over the graph's (recompute.c) */
  double compile_ms; /* parse .. emitted code */
};

typedef struct CompileOptions {
  const char *file;
  const char *text;   /* the source itself (file then only names it), or NULL: read file */
  const char *fn;
  ArgOverride *args;
  int nargs;
  const Target *target;
  const void *target_options; /* the target's own; NULL: its defaults */
  const char *dump;   /* comma-separated stage names, or NULL */
  StrBuf *dump_out;   /* where dumps go */
} CompileOptions;

CoilErr *compile_source(const CompileOptions *o, Compiled *c);
void compiled_free(Compiled *c);

#endif
