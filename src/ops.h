/* The op table, written once.  Everything that needs to know about ops (the
 * graph builder, the reference evaluator, the kernel IR, each printer) is
 * generated from this X-macro.
 *
 *   OP(name, kind, arity, C spelling, Triton spelling)
 *
 * Spellings are templates: %0 %1 %2 are the operands, already converted to
 * the op's compute type.  The C helpers (c_exp, c_max...) are defined in the
 * C printer's prelude with _Generic so one spelling serves float, double and
 * the integer types.  Triton's unary minus is 0 - x, which makes -(+0) +0
 * on a GPU (found on the H200 on 2026-12-02: -a % b at a = 0); x * -1 flips
 * the sign of every float, zeros included, and negates ints as - does. */
#ifndef COIL_OPS_H
#define COIL_OPS_H

#define COIL_OPS(OP)                                                           \
  OP(INPUT,   OK_LEAF,    0, "", "")                                           \
  OP(CONST,   OK_LEAF,    0, "", "")                                           \
  OP(IOTA,    OK_LEAF,    0, "", "")                                           \
  OP(NEG,     OK_UNARY,   1, "(-%0)", "(%0 * -1)")                             \
  OP(ABS,     OK_UNARY,   1, "c_abs(%0)", "tl.abs(%0)")                        \
  OP(EXP,     OK_UNARY,   1, "c_exp(%0)", "tl.exp(%0)")                        \
  OP(LOG,     OK_UNARY,   1, "c_log(%0)", "tl.log(%0)")                        \
  OP(SQRT,    OK_UNARY,   1, "c_sqrt(%0)", "tl.sqrt_rn(%0)")                   \
  OP(RSQRT,   OK_UNARY,   1, "c_rsqrt(%0)", "tl.rsqrt(%0)")                    \
  OP(SIGMOID, OK_UNARY,   1, "c_sigmoid(%0)", "tl.sigmoid(%0)")                \
  OP(TANH,    OK_UNARY,   1, "c_tanh(%0)", "coil_tanh(%0)")                    \
  OP(RECIP,   OK_UNARY,   1, "(1 / %0)", "1.0 / %0")                           \
  OP(ERF,     OK_UNARY,   1, "c_erf(%0)", "tl.erf(%0)")                        \
  OP(SIN,     OK_UNARY,   1, "c_sin(%0)", "tl.sin(%0)")                        \
  OP(COS,     OK_UNARY,   1, "c_cos(%0)", "tl.cos(%0)")                        \
  OP(EXP2,    OK_UNARY,   1, "c_exp2(%0)", "tl.exp2(%0)")                      \
  OP(LOG2,    OK_UNARY,   1, "c_log2(%0)", "tl.log2(%0)")                      \
  OP(FLOOR,   OK_UNARY,   1, "c_floor(%0)", "tl.floor(%0)")                    \
  OP(CEIL,    OK_UNARY,   1, "c_ceil(%0)", "tl.ceil(%0)")                      \
  OP(NOT,     OK_UNARY,   1, "(!%0)", "(%0 == 0)")                             \
  /* the rest of model code's math (libdevice in Triton: print.c) */          \
  OP(TAN,     OK_UNARY,   1, "c_tan(%0)", "libdevice.tan(%0)")                 \
  OP(ASIN,    OK_UNARY,   1, "c_asin(%0)", "libdevice.asin(%0)")               \
  OP(ACOS,    OK_UNARY,   1, "c_acos(%0)", "libdevice.acos(%0)")               \
  OP(ATAN,    OK_UNARY,   1, "c_atan(%0)", "libdevice.atan(%0)")               \
  OP(SINH,    OK_UNARY,   1, "c_sinh(%0)", "libdevice.sinh(%0)")               \
  OP(COSH,    OK_UNARY,   1, "c_cosh(%0)", "libdevice.cosh(%0)")               \
  OP(ASINH,   OK_UNARY,   1, "c_asinh(%0)", "libdevice.asinh(%0)")             \
  OP(ACOSH,   OK_UNARY,   1, "c_acosh(%0)", "libdevice.acosh(%0)")             \
  OP(ATANH,   OK_UNARY,   1, "c_atanh(%0)", "libdevice.atanh(%0)")             \
  OP(ERFC,    OK_UNARY,   1, "c_erfc(%0)", "libdevice.erfc(%0)")               \
  OP(ERFINV,  OK_UNARY,   1, "c_erfinv(%0)", "libdevice.erfinv(%0)")           \
  OP(EXPM1,   OK_UNARY,   1, "c_expm1(%0)", "libdevice.expm1(%0)")             \
  OP(LOG10,   OK_UNARY,   1, "c_log10(%0)", "libdevice.log10(%0)")             \
  OP(LOG1P,   OK_UNARY,   1, "c_log1p(%0)", "libdevice.log1p(%0)")             \
  OP(ATAN2,   OK_BINARY,  2, "c_atan2(%0, %1)", "libdevice.atan2(%0, %1)")     \
  OP(HYPOT,   OK_BINARY,  2, "c_hypot(%0, %1)", "libdevice.hypot(%0, %1)")     \
  OP(COPYSIGN, OK_BINARY, 2, "c_copysign(%0, %1)", "libdevice.copysign(%0, %1)") \
  /* fmod: C's fmod of floats, C's % of ints; idiv: C's / of ints.  Of ints, \
   * x % 0 and x / 0 are 0 (PyTorch raises) and MIN / -1 wraps to MIN. */     \
  OP(FMOD,    OK_BINARY,  2, "c_fmod(%0, %1)", "libdevice.fmod(%0, %1)")       \
  OP(IDIV,    OK_BINARY,  2, "c_idiv(%0, %1)", "coil_idiv(%0, %1)")            \
  /* ints: a shift by a negative count or by the width or more gives 0 (<<) \
   * or the sign (>>), as PyTorch's CPU kernels */                            \
  OP(SHL,     OK_BINARY,  2, "c_shl(%0, %1)", "coil_shl(%0, %1)")              \
  OP(SHR,     OK_BINARY,  2, "c_shr(%0, %1)", "coil_shr(%0, %1)")              \
  OP(ADD,     OK_BINARY,  2, "(%0 + %1)", "%0 + %1")                           \
  OP(SUB,     OK_BINARY,  2, "(%0 - %1)", "%0 - %1")                           \
  OP(MUL,     OK_BINARY,  2, "(%0 * %1)", "%0 * %1")                           \
  OP(DIV,     OK_BINARY,  2, "(%0 / %1)", "%0 / %1")                           \
  OP(POW,     OK_BINARY,  2, "c_pow(%0, %1)", "coil_pow(%0, %1)")              \
  OP(MAXIMUM, OK_BINARY,  2, "c_max(%0, %1)", "coil_maximum(%0, %1)")          \
  OP(MINIMUM, OK_BINARY,  2, "c_min(%0, %1)", "coil_minimum(%0, %1)")          \
  OP(AND,     OK_BINARY,  2, "(%0 & %1)", "%0 & %1")                           \
  OP(OR,      OK_BINARY,  2, "(%0 | %1)", "%0 | %1")                           \
  OP(XOR,     OK_BINARY,  2, "(%0 ^ %1)", "%0 ^ %1")                           \
  OP(LT,      OK_COMPARE, 2, "(%0 < %1)", "%0 < %1")                           \
  OP(LE,      OK_COMPARE, 2, "(%0 <= %1)", "%0 <= %1")                         \
  OP(GT,      OK_COMPARE, 2, "(%0 > %1)", "%0 > %1")                           \
  OP(GE,      OK_COMPARE, 2, "(%0 >= %1)", "%0 >= %1")                         \
  OP(EQ,      OK_COMPARE, 2, "(%0 == %1)", "%0 == %1")                         \
  OP(NE,      OK_COMPARE, 2, "(%0 != %1)", "%0 != %1")                         \
  OP(WHERE,   OK_WHERE,   3, "c_where(%0, %1, %2)", "tl.where(%0, %1, %2)")    \
  OP(CAST,    OK_CAST,    1, "", "")                                           \
  OP(PERMUTE, OK_VIEW,    1, "", "")                                           \
  OP(EXPAND,  OK_VIEW,    1, "", "")                                           \
  OP(RESHAPE, OK_VIEW,    1, "", "")                                           \
  OP(SLICE,   OK_VIEW,    1, "", "")                                           \
  OP(PAD,     OK_VIEW,    1, "", "")                                           \
  /* an indexed read: in[0] at a point whose coordinate along one dim is    \
   * the value of in[1] there (gather, index_select, embedding, x[idx]) */  \
  OP(GATHER,  OK_GATHER,  2, "", "")                                           \
  /* an indexed accumulation: in[0] with each value of in[2] added at the   \
   * point whose coordinate along dim is in[1]'s value there (index_add,    \
   * index_put with accumulate, scatter_add, an embedding's backward) */    \
  OP(SCATTER_ADD, OK_SCATTER, 3, "", "")                                       \
  OP(SUM,     OK_REDUCE,  1, "", "tl.sum")                                     \
  OP(PROD,    OK_REDUCE,  1, "", "coil_prod")                                  \
  OP(AMAX,    OK_REDUCE,  1, "", "coil_amax")                                  \
  OP(AMIN,    OK_REDUCE,  1, "", "coil_amin")                                  \
  /* arg-reductions: the accumulator is a pair (value, index of its r point); \
   * the larger (smaller) value wins, NaN above (below) all, ties and NaNs  \
   * to the lowest index (kernel.c: KRed.idx; ref.c) */                      \
  OP(ARGMAX,  OK_REDUCE,  1, "", "coil_argmax")                                \
  OP(ARGMIN,  OK_REDUCE,  1, "", "coil_argmin")

typedef enum OpKind {
  OK_LEAF, OK_UNARY, OK_BINARY, OK_COMPARE, OK_WHERE, OK_CAST, OK_VIEW, OK_GATHER, OK_SCATTER, OK_REDUCE
} OpKind;

typedef enum Op {
#define OP(name, kind, arity, c, tr) OP_##name,
  COIL_OPS(OP)
#undef OP
  OP_COUNT
} Op;

typedef struct OpInfo {
  const char *name; /* lower case, as dumps spell it */
  OpKind kind;
  int arity;
  const char *c;      /* C printer's spelling */
  const char *triton; /* Triton printers' spelling */
} OpInfo;

extern const OpInfo op_info[OP_COUNT];

/* An op that computes its value from its operands, element by element
 * (not a leaf, a view or a reduction). */
static inline bool op_is_pointwise(Op op) {
  OpKind k = op_info[op].kind;
  return k == OK_UNARY || k == OK_BINARY || k == OK_COMPARE || k == OK_WHERE || k == OK_CAST;
}

/* A kernel value that reads a buffer: a load, or an indexed load. */
static inline bool op_is_load(Op op) { return op == OP_INPUT || op == OP_GATHER; }
/* An arg-reduction: argmax/argmin, and max/min along a dim (values and
 * indices). */
static inline bool op_is_argred(Op op) { return op == OP_ARGMAX || op == OP_ARGMIN; }

/* The relative cost of an op per element (exp: 16, add: 1): what the
 * pipeline weighs recomputation with, and the CPU schedule its loops. */
static inline int op_cost(Op op) {
  switch (op) {
  case OP_EXP: case OP_LOG: case OP_TANH: case OP_SIGMOID: case OP_POW: case OP_EXP2: case OP_LOG2: return 16;
  case OP_ERF: case OP_SIN: case OP_COS: return 24;
  case OP_TAN: case OP_ASIN: case OP_ACOS: case OP_ATAN: case OP_SINH: case OP_COSH: case OP_ASINH: case OP_ACOSH:
  case OP_ATANH: case OP_ERFC: case OP_EXPM1: case OP_LOG10: case OP_LOG1P: case OP_ATAN2: case OP_HYPOT: return 24;
  case OP_ERFINV: return 64;
  case OP_FMOD: case OP_IDIV: return 8;
  case OP_DIV: case OP_SQRT: case OP_RSQRT: case OP_RECIP: return 4;
  case OP_INPUT: case OP_CONST: case OP_IOTA: return 0;
  default: return 1;
  }
}

#endif
