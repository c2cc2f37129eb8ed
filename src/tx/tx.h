/* tx: the Triton executor.  Runs kernels written in the Python-embedded
 * Triton language on the CPU, one tile at a time: every value is a whole
 * block, and every operation is a loop over arrays, never one interpreter
 * step per element.
 *
 * The public part (first section) is what coil's Triton backends and the
 * `coil triton-run` command (src/cmd/triton_run.c) use.  The rest is
 * shared between the files of src/tx/, one section per file, as coil.h
 * does for the compiler.  The executor calls nothing of the compiler but
 * its lexer (lex.h) and the base (util.h, dtype.h).
 *
 *   parse.c    the Python subset -> AST; names resolved to frame slots
 *              (tokens from the one Python lexer, lex.h, in LEX_STRICT)
 *   tensor.c   blocks: pool, views, the N-d iteration engine, casts
 *   kern.c     typed loops: arithmetic, math, where, reductions, load/store
 *   sem.c      Triton's semantics on values: promotion, broadcasting
 *   builtin.c  tl.*, libdevice.*, tensor methods, Python builtins
 *   eval.c     statements and expressions; programs over the grid
 */
#ifndef COIL_TX_H
#define COIL_TX_H

#include <setjmp.h>

#include "dtype.h"
#include "lex.h"
#include "util.h"

/* ------------------------------------------------------------ public API */

typedef enum TxArgKind { TX_PTR, TX_INT, TX_FLOAT } TxArgKind;

/* One kernel argument.  name: the kernel parameter it binds (NULL: by
 * position).  TX_PTR: data is host memory holding numel elements of dtype,
 * stored as dtype_c_storage() (bf16/f16 as uint16, bool as uint8); tl.load
 * and tl.store read and write it in place.  TX_INT/TX_FLOAT: ival/fval;
 * a tl.constexpr parameter gets a Python number, any other a 0-d tensor
 * typed as Triton types it (int32 if it fits, else int64; fp32). */
typedef struct TxArg {
  const char *name;
  TxArgKind kind;
  DType dtype;
  void *data;
  int64_t numel;
  int64_t ival;
  double fval;
} TxArg;

typedef struct TxOptions {
  int threads; /* programs run in parallel on this many threads; 0: all */
} TxOptions;

/* Parse `src` (named `file` in messages) and run the kernel `kernel_name`
 * (NULL: the only kernel, or the first @triton.jit one) over grid[0] x
 * grid[1] x grid[2] programs.  Returns NULL on success.  On a user error
 * (syntax, shapes, types, out-of-bounds access, int32 overflow) returns the
 * error of the lowest-numbered failing program, "file:line:col: error: ...";
 * programs after it may not have run. */
CoilErr *tx_run_source(const char *file, const char *src,
                       const char *kernel_name, const int64_t grid[3],
                       TxArg *args, int nargs);
CoilErr *tx_run_source_opts(const char *file, const char *src,
                            const char *kernel_name, const int64_t grid[3],
                            TxArg *args, int nargs, const TxOptions *opt);

/* A parsed module, to run several kernels (or one many times) without
 * parsing again.  tx_module_run is tx_run_source on a parsed module. */
typedef struct TxModule TxModule;
CoilErr *tx_module_parse(const char *file, const char *src, TxModule **out);
CoilErr *tx_module_run(TxModule *m, const char *kernel_name,
                       const int64_t grid[3], TxArg *args, int nargs,
                       const TxOptions *opt);
int tx_module_nkernels(const TxModule *m);
const char *tx_module_kernel_name(const TxModule *m, int i);
void tx_module_free(TxModule *m);


/* ------------------------------------------------------ shared internals */

#define TX_MAX_DIMS 8    /* rank of a block */

/* coil's dtypes plus uint32, which a kernel reaches only through casts and
 * Python ints in [2^31, 2^32) (coil's own bf16 rounding helper bitcasts
 * fp32 to uint32 and back).  No kernel argument is ever uint32. */
#define DT_TX_U32 ((DType)DT_COUNT)
#define TX_NDTYPES (DT_COUNT + 1)
int tx_dtype_size(DType t);
bool tx_is_int(DType t);      /* int32, int64, uint32 (not int1) */
#define TX_MAX_TUPLE 16  /* items of a tuple or list value */
#define TX_MAX_NUMEL 1048576 /* Triton's TRITON_MAX_TENSOR_NUMEL */

/* ---------------------------------------------------------------- values */

typedef struct TxTensor TxTensor;
typedef struct TxTuple TxTuple;
typedef struct TxBuiltin TxBuiltin;
typedef struct TxFunc TxFunc;

typedef enum TxValKind {
  TV_UNSET,           /* a local not yet assigned; an absent argument */
  TV_NONE,
  TV_BOOL, TV_INT, TV_FLOAT, /* Python scalars (constexpr) */
  TV_STR,
  TV_TENSOR,          /* a block, or a 0-d tensor (a Triton scalar) */
  TV_DTYPE,
  TV_TUPLE,           /* tuples and lists alike */
  TV_SLICE,           /* `:` in a subscript (only the full slice) */
  TV_MODULE,          /* a namespace: tl, libdevice, ...; s: its path */
  TV_BUILTIN,         /* a function of a namespace or a Python builtin */
  TV_FUNC,            /* a def of the module */
} TxValKind;

typedef struct TxVal {
  TxValKind kind;
  union {
    int64_t i;        /* TV_BOOL, TV_INT */
    double f;
    const char *s;
    TxTensor *t;
    TxTuple *tup;
    DType dt;
    const TxBuiltin *fn;
    TxFunc *def;
  };
} TxVal;

struct TxTuple {
  int refs;
  int n;
  TxVal items[TX_MAX_TUPLE];
  TxTuple *next_free;
};

/* ----------------------------------------------------------------- parse.c */

typedef enum TxNodeKind {
  /* expressions */
  TN_CONST,    /* literal or resolved global: val */
  TN_NAME,     /* local: slot; unresolved global: slot < 0 */
  TN_ATTR,     /* lhs.name */
  TN_CALL,     /* lhs(kids...), kwnames[i] names kids[i] or is NULL */
  TN_INDEX,    /* lhs[kids...] */
  TN_SLICE,    /* `:` */
  TN_TUPLE, TN_LIST,
  TN_BINOP,    /* lhs op rhs */
  TN_UNOP,     /* op lhs */
  TN_CMP,      /* kids[0] ops[0] kids[1] ops[1] kids[2] ... */
  TN_AND, TN_OR, TN_NOT,
  TN_IFEXP,    /* lhs if cond else rhs */
  /* statements */
  TN_EXPR, TN_ASSIGN, TN_AUGASSIGN, TN_FOR, TN_WHILE, TN_IF,
  TN_PASS, TN_BREAK, TN_CONTINUE, TN_RETURN, TN_ASSERT,
} TxNodeKind;

/* Operators of TN_BINOP, TN_UNOP, TN_CMP and TN_AUGASSIGN. */
typedef enum TxOp {
  TXO_ADD, TXO_SUB, TXO_MUL, TXO_DIV, TXO_FLOORDIV, TXO_MOD, TXO_POW,
  TXO_AND, TXO_OR, TXO_XOR, TXO_SHL, TXO_SHR,
  TXO_LT, TXO_LE, TXO_GT, TXO_GE, TXO_EQ, TXO_NE, TXO_IS, TXO_ISNOT,
  TXO_NEG, TXO_POS, TXO_INVERT,
  TXO_MIN, TXO_MAX,       /* tl.minimum / tl.maximum */
  TXO_ABS, TXO_LNOT,      /* abs of ints; `not` of a block */
  TXO_COUNT
} TxOp;
const char *tx_op_spelling(TxOp op);

typedef struct TxNode TxNode;
struct TxNode {
  TxNodeKind kind;
  SrcLoc loc;
  TxOp op;
  TxNode *lhs, *rhs, *cond;
  TxNode **kids;        /* call args, tuple items, subscripts, targets */
  int nkids;
  const char **kwnames; /* TN_CALL */
  TxOp *ops;            /* TN_CMP */
  TxNode **body, **orelse;
  int nbody, norelse;
  const char *name;     /* TN_NAME, TN_ATTR */
  int slot;             /* TN_NAME */
  bool static_loop;     /* TN_FOR over tl.static_range */
  TxVal val;            /* TN_CONST */
};

typedef struct TxParam {
  const char *name;
  bool constexpr_;
  TxNode *dflt;
  SrcLoc loc;
} TxParam;

struct TxFunc {
  const char *name;
  SrcLoc loc;
  bool jit;          /* decorated with @triton.jit (or any decorator) */
  bool called;       /* another def of the module calls it: a helper */
  TxParam *params;
  int nparams;
  TxNode **body;
  int nbody;
  int nslots;        /* params first, then the other locals */
  const char **slotnames;
  CoilErr *err;      /* a parse or name error, reported if it is run */
};

typedef struct TxAlias {
  const char *name, *path; /* `import triton.language as tl`: tl -> path */
} TxAlias;

typedef struct TxGlobal {
  const char *name;  /* NAME = 128, or NAME = tl.constexpr(128), at top level */
  TxVal val;
} TxGlobal;

struct TxModule {
  Arena arena;
  const char *file, *src;
  TxFunc **funcs;
  int nfuncs;
  TxAlias *aliases;
  int naliases;
  TxGlobal *globals;
  int nglobals;
};

/* Parse a module: its defs (with or without decorators), imports and
 * numeric constants (kernels read them as constexpr globals); any other
 * top-level statement is skipped.  A def that fails to parse keeps
 * its error in TxFunc.err, so one bad helper does not stop another kernel. */
CoilErr *tx_parse_module(TxModule *m);
TxFunc *tx_module_find(const TxModule *m, const char *name);

/* ---------------------------------------------------------------- eval.c */

typedef struct TxPool TxPool;

/* The state of one worker thread: its memory pool, the program it runs,
 * and the protected boundary an error jumps to. */
typedef struct TxExec {
  TxPool *pool;
  TxModule *mod;
  TxArg *args;        /* pointer arguments, by TxTensor.ptr */
  int nargs;
  const char **argnames;
  int64_t pid[3], grid[3];
  jmp_buf *jb;
  CoilErr *err;
  int depth;          /* helper call depth */
  TxVal *stack;       /* frames: the kernel's first, then helpers' */
  int sp, stack_cap;
} TxExec;

_Noreturn void tx_fail(TxExec *ex, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Call a def of the module or a builtin with positional args (borrowed);
 * the result is owned.  For tl.reduce's combine functions. */
TxVal tx_call(TxExec *ex, SrcLoc loc, TxVal fn, TxVal *args, int nargs);

/* -------------------------------------------------------------- tensor.c */

/* A block.  Views (permute, broadcast, expand_dims, indexing with None,
 * reshape of a contiguous block) share the data of `base` through strides;
 * every operation writes a fresh contiguous block.  A pointer block holds
 * element offsets (I32 or I64) into kernel argument `ptr`. */
struct TxTensor {
  int refs;
  DType dtype;
  int ptr;            /* -1, or the index of the pointed-to argument */
  int ndim;
  int64_t numel;
  int64_t shape[TX_MAX_DIMS];
  int64_t stride[TX_MAX_DIMS]; /* in elements; 0 along broadcast dims */
  char *data;
  bool from_mem;      /* computed from loaded values: integer arithmetic on
                         it is data arithmetic and wraps as in Triton; on
                         the rest (program ids, aranges, constants, scalar
                         arguments) it is index arithmetic, and int32
                         overflow is an error */
  TxTensor *base;     /* a view keeps its owner alive */
  void *chunk;        /* an owner's pooled storage; NULL: inline */
  TxTensor *next_free;
  _Alignas(16) unsigned char inl[16]; /* storage of small blocks */
};

TxPool *tx_pool_new(void);
void tx_pool_free(TxPool *p);
TxTuple *tx_tuple_new(TxExec *ex, int n);
void tx_val_release(TxExec *ex, TxVal v);
TxVal tx_val_retain(TxVal v);

/* A fresh contiguous block; its contents are undefined. */
TxTensor *tx_tensor_new(TxExec *ex, DType dt, int ndim, const int64_t *shape);
TxTensor *tx_scalar_i64(TxExec *ex, DType dt, int64_t v); /* 0-d, int/bool */
TxTensor *tx_scalar_f64(TxExec *ex, DType dt, double v);  /* 0-d, float */
void tx_retain(TxTensor *t);
void tx_release(TxExec *ex, TxTensor *t);
TxTensor *tx_view(TxExec *ex, TxTensor *t, int ndim, const int64_t *shape,
                  const int64_t *stride);
bool tx_is_contiguous(const TxTensor *t);
/* A splat: one value viewed over a block (every stride 0).  Masks that are
 * all true or all false become splats, and &, |, tl.where, reshape and the
 * masks of tl.load/tl.store then skip the per-lane work. */
bool tx_is_splat(const TxTensor *t);
TxTensor *tx_broadcast_view(TxExec *ex, TxTensor *t, int ndim, const int64_t *shape);
TxTensor *tx_bool_uniform(TxExec *ex, TxTensor *t); /* t (owned) or its splat */
TxTensor *tx_contiguous(TxExec *ex, TxTensor *t); /* retained t, or a copy */

/* Element i (C order) of t, read as a double or an int64: for messages,
 * scalars and tests, never in a loop over a block. */
double tx_get_f64(const TxTensor *t, int64_t i);
int64_t tx_get_i64(const TxTensor *t, int64_t i);
char *tx_elem_ptr(const TxTensor *t, int64_t i);
/* The element of t broadcast to a block of rank ndim, at index idx. */
char *tx_elem_bcast(const TxTensor *t, int ndim, const int64_t *idx);
void tx_fmt_shape(char *buf, size_t n, int ndim, const int64_t *shape);
void tx_unravel(int64_t i, int ndim, const int64_t *shape, int64_t *idx);
void tx_fmt_index(char *buf, size_t n, int64_t i, int ndim,
                  const int64_t *shape);

/* The iteration engine.  Operand 0 is usually the output; every operand is
 * broadcast to `shape`.  Dims of size 1 are dropped and dims contiguous in
 * every operand are merged, so a loop sees the longest inner runs it can.
 * A loop function covers m rows of n lanes: byte strides s within a row,
 * t from one row to the next.  Rows are often 16 lanes, so a call per row
 * would cost more than the row; TX_OUTER(name) builds the function from
 * `name##_row`, which does one row. */
#define TX_MAX_OPS 5
typedef void (*TxLoopFn)(int64_t n, int64_t m, char **p, const int64_t *s,
                         const int64_t *t, void *ctx);
#define TX_OUTER(name)                                                        \
  static void name(int64_t n, int64_t m, char **pp, const int64_t *s,         \
                   const int64_t *t, void *ctx) {                             \
    char *p[TX_MAX_OPS];                                                      \
    for (int k = 0; k < TX_MAX_OPS; k++) p[k] = pp[k];                        \
    for (int64_t j = 0; j < m; j++) {                                         \
      name##_row(n, p, s, ctx);                                               \
      for (int k = 0; k < TX_MAX_OPS; k++) p[k] += t[k];                      \
    }                                                                         \
  }
/* Loops are marked `omp simd`: at -O2 GCC vectorizes only loops whose trip
 * count it knows, and these loops are the executor's whole cost.
 * TX_NO_SIMD drops the request, for the sanitized fuzz build (Makefile):
 * UBSan's checks on every load and store branch to a handler that does not
 * return, so no loop could be vectorized there, and clang would warn about
 * each one (-Wpass-failed). */
#if defined(_OPENMP) && !defined(TX_NO_SIMD)
#define TX_SIMD _Pragma("omp simd reduction(|:bad)")
#define TX_SIMD0 _Pragma("omp simd")
#else
#define TX_SIMD
#define TX_SIMD0
#endif
typedef struct TxIter {
  int ndim, nop;
  int64_t shape[TX_MAX_DIMS];
  char *base[TX_MAX_OPS];
  int64_t stride[TX_MAX_OPS][TX_MAX_DIMS]; /* bytes */
} TxIter;
void tx_iter_init(TxIter *it, int ndim, const int64_t *shape);
void tx_iter_add(TxIter *it, const TxTensor *t); /* broadcast to it->shape */
void tx_iter_add_raw(TxIter *it, char *base, const int64_t *byte_stride);
void tx_iter_run(TxIter *it, TxLoopFn fn, void *ctx);

/* Casts (round to nearest even; float -> int truncates and saturates;
 * anything -> bool is != 0).  Same dtype: t retained. */
TxTensor *tx_cast(TxExec *ex, TxTensor *t, DType to);
TxTensor *tx_bitcast(TxExec *ex, SrcLoc loc, TxTensor *t, DType to);

/* ---------------------------------------------------------------- kern.c */

/* a and b have one dtype and broadcast to (ndim, shape); the result is a
 * fresh block.  Int32 add/sub/mul/neg that overflow are errors at loc. */
TxTensor *tx_k_binary(TxExec *ex, SrcLoc loc, TxOp op, TxTensor *a,
                      TxTensor *b, int ndim, const int64_t *shape);
TxTensor *tx_k_unary(TxExec *ex, SrcLoc loc, TxOp op, TxTensor *a);
TxTensor *tx_k_where(TxExec *ex, TxTensor *c, TxTensor *x, TxTensor *y,
                     int ndim, const int64_t *shape);

typedef enum TxMath {
  M_EXP, M_EXP2, M_LOG, M_LOG2, M_LOG10, M_LOG1P, M_EXPM1, M_SQRT, M_RSQRT,
  M_ABS, M_SIN, M_COS, M_TAN, M_TANH, M_SINH, M_COSH, M_ASIN, M_ACOS,
  M_ATAN, M_ASINH, M_ACOSH, M_ATANH, M_ERF, M_ERFC, M_FLOOR, M_CEIL,
  M_TRUNC, M_RINT, M_ROUND, M_SIGMOID, M_RCP, M_CBRT, M_LGAMMA, M_ERFINV,
  M_UNARY_COUNT,
  /* two operands */
  M_POW = M_UNARY_COUNT, M_ATAN2, M_FMOD, M_HYPOT, M_COPYSIGN,
  M_COUNT
} TxMath;
/* Float math on an F32 or F64 block (the caller upcasts f16/bf16). */
TxTensor *tx_k_math(TxExec *ex, TxMath fn, TxTensor *a);
TxTensor *tx_k_math2(TxExec *ex, TxMath fn, TxTensor *a, TxTensor *b,
                     int ndim, const int64_t *shape);
TxTensor *tx_k_isclass(TxExec *ex, int which /* 0 nan 1 inf 2 finite */,
                       TxTensor *a);
TxTensor *tx_k_fma(TxExec *ex, TxTensor *a, TxTensor *b, TxTensor *c,
                   int ndim, const int64_t *shape);

typedef enum TxRed { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN } TxRed;
/* Reduce `a` (I32, I64, F32 or F64) along axis (-1: all axes). */
TxTensor *tx_k_reduce(TxExec *ex, TxRed r, TxTensor *a, int axis,
                      bool keep_dims);

/* ptr: a pointer block; mask (BOOL) and other (the pointee's dtype) may be
 * NULL; all broadcast to (ndim, shape).  Lanes that are masked on and fall
 * outside the argument's buffer are errors at loc. */
TxTensor *tx_k_load(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *mask,
                    TxTensor *other, int ndim, const int64_t *shape);
TxTensor *tx_k_atomic_add(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *val, TxTensor *mask);
void tx_k_store(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *val,
                TxTensor *mask);

/* ----------------------------------------------------------------- sem.c */

const char *tx_dtype_name(DType t);  /* Triton's: "fp32", "bf16", "int1" */
const char *tx_val_kind_name(TxVal v);
bool tx_is_pyscalar(TxVal v);       /* TV_BOOL, TV_INT, TV_FLOAT */

/* Broadcast two shapes as Triton does (errors in Triton's words). */
void tx_broadcast_shape(TxExec *ex, SrcLoc loc, int na, const int64_t *sa,
                        int nb, const int64_t *sb, int *nout, int64_t *out);
/* Triton's shape check for a new block: powers of two, numel limit. */
void tx_check_block_shape(TxExec *ex, SrcLoc loc, int ndim,
                          const int64_t *shape);

/* Arithmetic, comparison, bitwise: Python semantics on Python scalars,
 * Triton's on tensors (promotion, broadcasting, pointer arithmetic). */
TxVal tx_sem_binary(TxExec *ex, SrcLoc loc, TxOp op, TxVal a, TxVal b);
TxVal tx_sem_unary(TxExec *ex, SrcLoc loc, TxOp op, TxVal a);
TxVal tx_sem_where(TxExec *ex, SrcLoc loc, TxVal c, TxVal x, TxVal y);
TxVal tx_sem_math(TxExec *ex, SrcLoc loc, const char *name, TxMath fn,
                  TxVal a);
TxVal tx_sem_math2(TxExec *ex, SrcLoc loc, const char *name, TxMath fn,
                   TxVal a, TxVal b);
TxVal tx_sem_cast(TxExec *ex, SrcLoc loc, TxVal a, DType to, bool bitcast);
bool tx_sem_truth(TxExec *ex, SrcLoc loc, TxVal v); /* if/while condition */
/* A Python scalar or 0-d tensor as an int (for range, shapes, axes). */
int64_t tx_sem_int(TxExec *ex, SrcLoc loc, TxVal v, const char *what);
/* Make v a tensor (Python scalars as Triton types them); owned result. */
TxTensor *tx_sem_tensor(TxExec *ex, SrcLoc loc, TxVal v);

/* ------------------------------------------------------------- builtin.c */

typedef enum TxNs {
  NS_NONE = 0,
  NS_PY = 1,       /* Python builtins: range, min, max, ... */
  NS_TL = 2,       /* triton.language */
  NS_MATH = 4,     /* tl.math, libdevice, Inductor's tl_math */
  NS_HELPERS = 8,  /* Inductor's triton_helpers */
  NS_TRITON = 16,  /* triton: jit, cdiv, next_power_of_2 */
  NS_METHOD = 32,  /* a method of a tensor */
  NS_EXTRA = 64,   /* triton.language.extra[.cuda]: only sub-namespaces */
  NS_PROPNAN = 128, /* tl.PropagateNan: ALL and NONE */
} TxNs;

typedef TxVal (*TxBuiltinFn)(TxExec *ex, SrcLoc loc, const TxBuiltin *b,
                             TxVal *args);
struct TxBuiltin {
  const char *name;
  int ns;             /* TxNs bits */
  const char *params; /* "input,axis=,keep_dims=" ("=": optional,
                         "*name": the rest of the positionals as a tuple) */
  TxBuiltinFn fn;
  int arg;            /* TxMath or TxOp the function applies */
};

/* Resolve `name` in namespace kind ns (a TxNs bit): a builtin, a dtype, or
 * a nested namespace.  False when the namespace has no such member. */
bool tx_ns_lookup(int ns, const char *name, TxVal *out);
int tx_ns_of_path(const char *path); /* "triton.language" -> NS_TL */
const TxBuiltin *tx_method_lookup(const char *name);
/* Call b with positional args and keyword args bound to its parameters. */
TxVal tx_builtin_call(TxExec *ex, SrcLoc loc, const TxBuiltin *b,
                      TxVal *args, int nargs, const char **kwnames);

#endif
