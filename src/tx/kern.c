/* Typed loops over blocks: arithmetic, comparisons, math, where,
 * reductions, load and store.
 *
 * Each operation is one call of the iteration engine with a loop function
 * specialised by dtype; the loop has fast paths for the stride patterns
 * of contiguous and broadcast operands, which the compiler vectorises.
 * Operands arrive with their dtypes already settled by sem.c, and f16
 * and bf16 never reach the arithmetic here: sem.c computes them in
 * fp32.  Checks that must stop the kernel (int32 overflow, division by
 * zero, out-of-bounds access) set a flag in the loop; only when it is set
 * is the block scanned again, in C order, to name the first bad lane. */
#include <math.h>
#include <string.h>

#include "tx/tx.h"

typedef struct KCtx {
  int bad;
} KCtx;


static TxTensor *run2(TxExec *ex, DType out, TxTensor *a, TxTensor *b,
                      int ndim, const int64_t *shape, TxLoopFn fn, KCtx *c) {
  TxTensor *o = tx_tensor_new(ex, out, ndim, shape);
  o->from_mem = a->from_mem || (b && b->from_mem);
  TxIter it;
  tx_iter_init(&it, ndim, shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, a);
  if (b) tx_iter_add(&it, b);
  tx_iter_run(&it, fn, c);
  return o;
}

/* A loop over two operands with fast paths for contiguous and broadcast
 * (stride 0) inputs.  The output is contiguous: a fresh block. */
#define BINLOOP(name, TI, TO, EXPR)                                           \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    TO *o = (TO *)p[0];                                                       \
    const char *pa = p[1], *pb = p[2];                                        \
    int64_t sa = s[1], sb = s[2];                                             \
    int bad = 0;                                                              \
    if (sa == (int64_t)sizeof(TI) && sb == (int64_t)sizeof(TI)) {             \
      const TI *A = (const TI *)pa, *B = (const TI *)pb;                      \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        TI x = A[i], y = B[i];                                                \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    } else if (sa == (int64_t)sizeof(TI) && sb == 0) {                        \
      const TI *A = (const TI *)pa;                                           \
      const TI y = *(const TI *)pb;                                           \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        TI x = A[i];                                                          \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    } else if (sa == 0 && sb == (int64_t)sizeof(TI)) {                        \
      const TI *B = (const TI *)pb;                                           \
      const TI x = *(const TI *)pa;                                           \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        TI y = B[i];                                                          \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        TI x = *(const TI *)(pa + i * sa), y = *(const TI *)(pb + i * sb);    \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    }                                                                         \
    if (bad) ((KCtx *)ctx)->bad = 1;                                          \
  }                                                                           \
  TX_OUTER(name)

/* int32 arithmetic computed in 64 bits; a result that does not fit is an
 * error (Triton wraps; coil's index arithmetic must not). */
#define I32OV(name, E, OV)                                                    \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    int32_t *o = (int32_t *)p[0];                                             \
    const char *pa = p[1], *pb = p[2];                                        \
    int64_t sa = s[1], sb = s[2];                                             \
    int bad = 0;                                                              \
    if (sa == 4 && sb == 4) {                                                 \
      const int32_t *A = (const int32_t *)pa, *B = (const int32_t *)pb;       \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        int32_t x = A[i], y = B[i], r = (E);                                  \
        o[i] = r;                                                             \
        bad |= (OV);                                                          \
      }                                                                       \
    } else if (sa == 4 && sb == 0) {                                          \
      const int32_t *A = (const int32_t *)pa;                                 \
      const int32_t y = *(const int32_t *)pb;                                 \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        int32_t x = A[i], r = (E);                                            \
        o[i] = r;                                                             \
        bad |= (OV);                                                          \
      }                                                                       \
    } else if (sa == 0 && sb == 4) {                                          \
      const int32_t *B = (const int32_t *)pb;                                 \
      const int32_t x = *(const int32_t *)pa;                                 \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        int32_t y = B[i], r = (E);                                            \
        o[i] = r;                                                             \
        bad |= (OV);                                                          \
      }                                                                       \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        int32_t x = *(const int32_t *)(pa + i * sa);                          \
        int32_t y = *(const int32_t *)(pb + i * sb), r = (E);                 \
        o[i] = r;                                                             \
        bad |= (OV);                                                          \
      }                                                                       \
    }                                                                         \
    if (bad) ((KCtx *)ctx)->bad = 1;                                          \
  }                                                                           \
  TX_OUTER(name)

/* Wrapping 32-bit results with the sign tests for overflow (two's
 * complement: a sum overflows when both operands' signs differ from the
 * result's), so the loops stay in 32-bit lanes. */
#define U(v) ((uint32_t)(v))
I32OV(add_i32, (int32_t)(U(x) + U(y)), (int)((U(x) ^ U(r)) & (U(y) ^ U(r))) >> 31 & 1)
I32OV(sub_i32, (int32_t)(U(x) - U(y)), (int)((U(x) ^ U(y)) & (U(x) ^ U(r))) >> 31 & 1)
I32OV(mul_i32, (int32_t)((int64_t)x * y), (int64_t)x * y != r)

/* 64-bit ints wrap, as in Triton (unsigned arithmetic: no UB in C). */
#define W64(op) (int64_t)((uint64_t)x op(uint64_t) y)
BINLOOP(add_i64, int64_t, int64_t, W64(+))
BINLOOP(sub_i64, int64_t, int64_t, W64(-))
BINLOOP(mul_i64, int64_t, int64_t, W64(*))

/* Triton's integer // and % are C's: truncate toward zero.  Division by
 * zero (and INT_MIN / -1) is an error. */
#define IDIV(T, MIN) (y == 0 || (x == MIN && y == -1) ? (bad = 1, (T)0) : (T)(x / y))
#define IMOD(T, MIN) (y == 0 ? (bad = 1, (T)0) : (x == MIN && y == -1) ? (T)0 : (T)(x % y))
BINLOOP(div_i32, int32_t, int32_t, IDIV(int32_t, INT32_MIN))
BINLOOP(div_i64, int64_t, int64_t, IDIV(int64_t, INT64_MIN))
BINLOOP(mod_i32, int32_t, int32_t, IMOD(int32_t, INT32_MIN))
BINLOOP(mod_i64, int64_t, int64_t, IMOD(int64_t, INT64_MIN))

#define FLOATOPS(T, SUF, FMOD, POW)                                           \
  BINLOOP(add_##SUF, T, T, x + y)                                             \
  BINLOOP(sub_##SUF, T, T, x - y)                                             \
  BINLOOP(mul_##SUF, T, T, x * y)                                             \
  BINLOOP(div_##SUF, T, T, x / y)                                             \
  BINLOOP(mod_##SUF, T, T, FMOD(x, y))                                        \
  BINLOOP(pow_##SUF, T, T, POW(x, y))                                         \
  BINLOOP(min_##SUF, T, T, y != y ? x : (x < y ? x : y))                      \
  BINLOOP(max_##SUF, T, T, y != y ? x : (x > y ? x : y))
FLOATOPS(float, f32, fmodf, powf)
FLOATOPS(double, f64, fmod, pow)

#define INTOPS(T, SUF, BITS)                                                  \
  BINLOOP(and_##SUF, T, T, x & y)                                             \
  BINLOOP(or_##SUF, T, T, x | y)                                              \
  BINLOOP(xor_##SUF, T, T, x ^ y)                                             \
  BINLOOP(shl_##SUF, T, T, (y < 0 || y >= BITS) ? (T)0 : (T)((uint64_t)x << y)) \
  BINLOOP(shr_##SUF, T, T, (y < 0 || y >= BITS) ? (T)(x < 0 ? -1 : 0) : (T)(x >> y)) \
  BINLOOP(min_##SUF, T, T, x < y ? x : y)                                     \
  BINLOOP(max_##SUF, T, T, x > y ? x : y)
INTOPS(int32_t, i32, 32)
INTOPS(int64_t, i64, 64)
/* uint32: wraps (unsigned arithmetic is never index arithmetic here);
 * // and % are unsigned; >> is logical. */
BINLOOP(add_u32, uint32_t, uint32_t, x + y)
BINLOOP(sub_u32, uint32_t, uint32_t, x - y)
BINLOOP(mul_u32, uint32_t, uint32_t, x * y)
BINLOOP(div_u32, uint32_t, uint32_t, y == 0 ? (bad = 1, 0u) : x / y)
BINLOOP(mod_u32, uint32_t, uint32_t, y == 0 ? (bad = 1, 0u) : x % y)
BINLOOP(and_u32, uint32_t, uint32_t, x & y)
BINLOOP(or_u32, uint32_t, uint32_t, x | y)
BINLOOP(xor_u32, uint32_t, uint32_t, x ^ y)
BINLOOP(shl_u32, uint32_t, uint32_t, y >= 32 ? 0u : x << y)
BINLOOP(shr_u32, uint32_t, uint32_t, y >= 32 ? 0u : x >> y)
BINLOOP(min_u32, uint32_t, uint32_t, x < y ? x : y)
BINLOOP(max_u32, uint32_t, uint32_t, x > y ? x : y)
BINLOOP(and_b, uint8_t, uint8_t, x & y)
BINLOOP(or_b, uint8_t, uint8_t, x | y)
BINLOOP(xor_b, uint8_t, uint8_t, x ^ y)
BINLOOP(min_b, uint8_t, uint8_t, x & y)
BINLOOP(max_b, uint8_t, uint8_t, x | y)

#define CMPOPS(T, SUF)                                                        \
  BINLOOP(lt_##SUF, T, uint8_t, x < y)                                        \
  BINLOOP(le_##SUF, T, uint8_t, x <= y)                                       \
  BINLOOP(gt_##SUF, T, uint8_t, x > y)                                        \
  BINLOOP(ge_##SUF, T, uint8_t, x >= y)                                       \
  BINLOOP(eq_##SUF, T, uint8_t, x == y)                                       \
  BINLOOP(ne_##SUF, T, uint8_t, x != y)
CMPOPS(uint8_t, b)
CMPOPS(int32_t, i32)
CMPOPS(int64_t, i64)
CMPOPS(float, f32)
CMPOPS(double, f64)
CMPOPS(uint32_t, u32)

enum { KB, KI32, KI64, KF32, KF64, KU32, KCOUNT };
static int kind_of(DType t) {
  if (t == DT_TX_U32) return KU32;
  switch (t) {
  case DT_BOOL: return KB;
  case DT_I32: return KI32;
  case DT_I64: return KI64;
  case DT_F32: return KF32;
  case DT_F64: return KF64;
  default: return -1;
  }
}

static const TxLoopFn binops[TXO_COUNT][KCOUNT] = {
    [TXO_ADD] = {0, add_i32, add_i64, add_f32, add_f64, add_u32},
    [TXO_SUB] = {0, sub_i32, sub_i64, sub_f32, sub_f64, sub_u32},
    [TXO_MUL] = {0, mul_i32, mul_i64, mul_f32, mul_f64, mul_u32},
    [TXO_DIV] = {0, 0, 0, div_f32, div_f64, 0},
    [TXO_FLOORDIV] = {0, div_i32, div_i64, 0, 0, div_u32},
    [TXO_MOD] = {0, mod_i32, mod_i64, mod_f32, mod_f64, mod_u32},
    [TXO_POW] = {0, 0, 0, pow_f32, pow_f64, 0},
    [TXO_AND] = {and_b, and_i32, and_i64, 0, 0, and_u32},
    [TXO_OR] = {or_b, or_i32, or_i64, 0, 0, or_u32},
    [TXO_XOR] = {xor_b, xor_i32, xor_i64, 0, 0, xor_u32},
    [TXO_SHL] = {0, shl_i32, shl_i64, 0, 0, shl_u32},
    [TXO_SHR] = {0, shr_i32, shr_i64, 0, 0, shr_u32},
    [TXO_LT] = {lt_b, lt_i32, lt_i64, lt_f32, lt_f64, lt_u32},
    [TXO_LE] = {le_b, le_i32, le_i64, le_f32, le_f64, le_u32},
    [TXO_GT] = {gt_b, gt_i32, gt_i64, gt_f32, gt_f64, gt_u32},
    [TXO_GE] = {ge_b, ge_i32, ge_i64, ge_f32, ge_f64, ge_u32},
    [TXO_EQ] = {eq_b, eq_i32, eq_i64, eq_f32, eq_f64, eq_u32},
    [TXO_NE] = {ne_b, ne_i32, ne_i64, ne_f32, ne_f64, ne_u32},
    [TXO_MIN] = {min_b, min_i32, min_i64, min_f32, min_f64, min_u32},
    [TXO_MAX] = {max_b, max_i32, max_i64, max_f32, max_f64, max_u32},
};

static bool is_cmp(TxOp op) { return op >= TXO_LT && op <= TXO_NE; }

/* The first lane, in C order, where an int32 op overflows or an integer
 * division fails; for the error message only. */
static void report_int_error(TxExec *ex, SrcLoc loc, TxOp op, TxTensor *a,
                             TxTensor *b, int ndim, const int64_t *shape) {
  int64_t numel = 1;
  for (int d = 0; d < ndim; d++) numel *= shape[d];
  int64_t idx[TX_MAX_DIMS];
  for (int64_t i = 0; i < numel; i++) {
    tx_unravel(i, ndim, shape, idx);
    char *pa = tx_elem_bcast(a, ndim, idx), *pb = tx_elem_bcast(b, ndim, idx);
    int64_t x = a->dtype == DT_I32 ? *(int32_t *)pa : a->dtype == DT_TX_U32 ? *(uint32_t *)pa : *(int64_t *)pa;
    int64_t y = b->dtype == DT_I32 ? *(int32_t *)pb : b->dtype == DT_TX_U32 ? *(uint32_t *)pb : *(int64_t *)pb;
    char where[128], shp[128];
    tx_fmt_shape(where, sizeof where, ndim, idx);
    tx_fmt_shape(shp, sizeof shp, ndim, shape);
    char at[300] = "";
    if (ndim) snprintf(at, sizeof at, " at index %s of the %s block", where, shp);
    if (op == TXO_FLOORDIV || op == TXO_MOD) {
      if (y == 0)
        tx_fail(ex, loc, "integer division by zero: %lld %s 0%s", (long long)x,
                tx_op_spelling(op), at);
      if (y == -1 && x == (a->dtype == DT_I32 ? INT32_MIN : INT64_MIN) && op == TXO_FLOORDIV)
        tx_fail(ex, loc, "integer overflow: %lld // -1%s", (long long)x, at);
      continue;
    }
    int64_t r = op == TXO_ADD ? x + y : op == TXO_SUB ? x - y : x * y;
    if (r != (int32_t)r)
      tx_fail(ex, loc,
              "int32 overflow in index arithmetic: %lld %s %lld = %lld does not "
              "fit in int32%s (program (%lld, %lld, %lld))",
              (long long)x, tx_op_spelling(op), (long long)y, (long long)r, at,
              (long long)ex->pid[0], (long long)ex->pid[1], (long long)ex->pid[2]);
  }
  coil_unreachable("int error flagged but not found");
}

/* x & splat(true) is x, x & splat(false) is false; | likewise. */
static TxTensor *bool_shortcut(TxExec *ex, TxOp op, TxTensor *a, TxTensor *b, int ndim,
                               const int64_t *shape) {
  if (a->dtype != DT_BOOL || (op != TXO_AND && op != TXO_OR)) return NULL;
  for (int k = 0; k < 2; k++) {
    TxTensor *s = k ? b : a, *other = k ? a : b;
    if (!tx_is_splat(s)) continue;
    bool v = *(const uint8_t *)s->data;
    bool absorbing = op == TXO_AND ? !v : v;
    TxTensor *o = tx_broadcast_view(ex, absorbing ? s : other, ndim, shape);
    o->from_mem = a->from_mem || b->from_mem; /* as the full op's result */
    return o;
  }
  return NULL;
}

TxTensor *tx_k_binary(TxExec *ex, SrcLoc loc, TxOp op, TxTensor *a,
                      TxTensor *b, int ndim, const int64_t *shape) {
  coil_assert(a->dtype == b->dtype);
  TxTensor *sc = bool_shortcut(ex, op, a, b, ndim, shape);
  if (sc) return sc;
  int k = kind_of(a->dtype);
  TxLoopFn fn = k >= 0 ? binops[op][k] : NULL;
  if (!fn)
    tx_fail(ex, loc, "operator '%s' is not supported on %s blocks",
            tx_op_spelling(op), tx_dtype_name(a->dtype));
  KCtx c = {0};
  TxTensor *o = run2(ex, is_cmp(op) ? DT_BOOL : a->dtype, a, b, ndim, shape, fn, &c);
  /* Division by zero is always an error; int32 overflow only in index
   * arithmetic (data arithmetic wraps, as on the GPU). */
  bool div = op == TXO_FLOORDIV || op == TXO_MOD;
  if (c.bad && (div || !o->from_mem)) report_int_error(ex, loc, op, a, b, ndim, shape);
  return tx_bool_uniform(ex, o);
}

/* ------------------------------------------------------------ unary ops */

#define UNLOOP(name, TI, TO, EXPR)                                            \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    TO *o = (TO *)p[0];                                                       \
    const char *pa = p[1];                                                    \
    int64_t sa = s[1];                                                        \
    int bad = 0;                                                              \
    if (sa == (int64_t)sizeof(TI)) {                                          \
      const TI *A = (const TI *)pa;                                           \
      TX_SIMD for (int64_t i = 0; i < n; i++) {                                  \
        TI x = A[i];                                                          \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        TI x = *(const TI *)(pa + i * sa);                                    \
        o[i] = (EXPR);                                                        \
      }                                                                       \
    }                                                                         \
    if (bad) ((KCtx *)ctx)->bad = 1;                                          \
  }                                                                           \
  TX_OUTER(name)

UNLOOP(neg_i32, int32_t, int32_t, x == INT32_MIN ? (bad = 1, x) : -x)
UNLOOP(neg_i64, int64_t, int64_t, (int64_t)(0 - (uint64_t)x))
UNLOOP(neg_f32, float, float, -x)
UNLOOP(neg_f64, double, double, -x)
UNLOOP(inv_b, uint8_t, uint8_t, x ^ 1)
UNLOOP(inv_i32, int32_t, int32_t, ~x)
UNLOOP(inv_i64, int64_t, int64_t, ~x)
UNLOOP(abs_i32, int32_t, int32_t, x == INT32_MIN ? (bad = 1, x) : x < 0 ? -x : x)
UNLOOP(abs_i64, int64_t, int64_t, x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
UNLOOP(abs_f32, float, float, fabsf(x))
UNLOOP(abs_f64, double, double, fabs(x))
UNLOOP(lnot_b, uint8_t, uint8_t, x == 0)
UNLOOP(lnot_i32, int32_t, uint8_t, x == 0)
UNLOOP(lnot_i64, int64_t, uint8_t, x == 0)
UNLOOP(lnot_f32, float, uint8_t, x == 0)
UNLOOP(lnot_f64, double, uint8_t, x == 0)
UNLOOP(neg_u32, uint32_t, uint32_t, 0u - x)
UNLOOP(inv_u32, uint32_t, uint32_t, ~x)
UNLOOP(abs_u32, uint32_t, uint32_t, x)
UNLOOP(lnot_u32, uint32_t, uint8_t, x == 0)

static const TxLoopFn unops[TXO_COUNT][KCOUNT] = {
    [TXO_NEG] = {0, neg_i32, neg_i64, neg_f32, neg_f64, neg_u32},
    [TXO_INVERT] = {inv_b, inv_i32, inv_i64, 0, 0, inv_u32},
    [TXO_ABS] = {0, abs_i32, abs_i64, abs_f32, abs_f64, abs_u32},
    [TXO_LNOT] = {lnot_b, lnot_i32, lnot_i64, lnot_f32, lnot_f64, lnot_u32},
};

TxTensor *tx_k_unary(TxExec *ex, SrcLoc loc, TxOp op, TxTensor *a) {
  int k = kind_of(a->dtype);
  TxLoopFn fn = k >= 0 ? unops[op][k] : NULL;
  if (op == TXO_ABS && a->dtype == DT_BOOL) {
    tx_retain(a);
    return a;
  }
  if (!fn)
    tx_fail(ex, loc, "unary '%s' is not supported on %s blocks",
            tx_op_spelling(op), tx_dtype_name(a->dtype));
  KCtx c = {0};
  TxTensor *o = run2(ex, op == TXO_LNOT ? DT_BOOL : a->dtype, a, NULL, a->ndim,
                     a->shape, fn, &c);
  if (c.bad && !a->from_mem) {
    for (int64_t i = 0; i < a->numel; i++)
      if (tx_get_i64(a, i) == INT32_MIN) {
        char at[300] = "", idx[100], shp[100];
        if (a->ndim) {
          tx_fmt_index(idx, sizeof idx, i, a->ndim, a->shape);
          tx_fmt_shape(shp, sizeof shp, a->ndim, a->shape);
          snprintf(at, sizeof at, " at index %s of the %s block", idx, shp);
        }
        tx_fail(ex, loc, "int32 overflow in index arithmetic: %s(-2147483648) does not fit in int32%s",
                op == TXO_NEG ? "-" : "abs", at);
      }
  }
  return o;
}

/* ---------------------------------------------------------------- where */

#define WHERELOOP(name, T)                                                    \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    (void)ctx;                                                                \
    T *o = (T *)p[0];                                                         \
    const char *pc = p[1], *px = p[2], *py = p[3];                            \
    int64_t sc = s[1], sx = s[2], sy = s[3];                                  \
    if (sc == 1 && sx == sizeof(T) && sy == sizeof(T)) {                      \
      const uint8_t *C = (const uint8_t *)pc;                                 \
      const T *X = (const T *)px, *Y = (const T *)py;                         \
      TX_SIMD0 for (int64_t i = 0; i < n; i++) o[i] = C[i] ? X[i] : Y[i];        \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++)                                         \
        o[i] = *(const uint8_t *)(pc + i * sc) ? *(const T *)(px + i * sx)    \
                                               : *(const T *)(py + i * sy);   \
    }                                                                         \
  }                                                                           \
  TX_OUTER(name)
WHERELOOP(where1, uint8_t)
WHERELOOP(where2, uint16_t)
WHERELOOP(where4, uint32_t)
WHERELOOP(where8, uint64_t)

TxTensor *tx_k_where(TxExec *ex, TxTensor *c, TxTensor *x, TxTensor *y,
                     int ndim, const int64_t *shape) {
  coil_assert(c->dtype == DT_BOOL && x->dtype == y->dtype);
  if (tx_is_splat(c)) {
    /* The branch taken depends on the condition: data if the condition is
     * (coil_minimum(v, 3) is a constant only where v is at least 3). */
    TxTensor *o = tx_broadcast_view(ex, *(const uint8_t *)c->data ? x : y, ndim, shape);
    o->from_mem = o->from_mem || c->from_mem;
    return o;
  }
  TxTensor *o = tx_tensor_new(ex, x->dtype, ndim, shape);
  o->from_mem = c->from_mem || x->from_mem || y->from_mem;
  TxIter it;
  tx_iter_init(&it, ndim, shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, c);
  tx_iter_add(&it, x);
  tx_iter_add(&it, y);
  int es = tx_dtype_size(x->dtype);
  tx_iter_run(&it, es == 1 ? where1 : es == 2 ? where2 : es == 4 ? where4 : where8, NULL);
  return o;
}

/* ----------------------------------------------------------------- math */

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static float rcpf(float x) { return 1.0f / x; }
static double rcp(double x) { return 1.0 / x; }
static float rsqrtf_(float x) { return 1.0f / sqrtf(x); }
static double rsqrt_(double x) { return 1.0 / sqrt(x); }

/* libdevice's erfinv: in double (libm has none; dtype.c's), rounded once */
static float erfinvf_(float x) { return (float)coil_erfinv((double)x); }

static float (*const mathf[M_UNARY_COUNT])(float) = {
    [M_EXP] = expf, [M_EXP2] = exp2f, [M_LOG] = logf, [M_LOG2] = log2f,
    [M_LOG10] = log10f, [M_LOG1P] = log1pf, [M_EXPM1] = expm1f,
    [M_SQRT] = sqrtf, [M_RSQRT] = rsqrtf_, [M_ABS] = fabsf, [M_SIN] = sinf,
    [M_COS] = cosf, [M_TAN] = tanf, [M_TANH] = tanhf, [M_SINH] = sinhf,
    [M_COSH] = coshf, [M_ASIN] = asinf, [M_ACOS] = acosf, [M_ATAN] = atanf,
    [M_ASINH] = asinhf, [M_ACOSH] = acoshf, [M_ATANH] = atanhf, [M_ERF] = erff,
    [M_ERFC] = erfcf, [M_FLOOR] = floorf, [M_CEIL] = ceilf, [M_TRUNC] = truncf,
    [M_RINT] = rintf, [M_ROUND] = roundf, [M_SIGMOID] = sigmoidf, [M_RCP] = rcpf,
    [M_CBRT] = cbrtf, [M_LGAMMA] = lgammaf, [M_ERFINV] = erfinvf_};
static double (*const mathd[M_UNARY_COUNT])(double) = {
    [M_EXP] = exp, [M_EXP2] = exp2, [M_LOG] = log, [M_LOG2] = log2,
    [M_LOG10] = log10, [M_LOG1P] = log1p, [M_EXPM1] = expm1, [M_SQRT] = sqrt,
    [M_RSQRT] = rsqrt_, [M_ABS] = fabs, [M_SIN] = sin, [M_COS] = cos,
    [M_TAN] = tan, [M_TANH] = tanh, [M_SINH] = sinh, [M_COSH] = cosh,
    [M_ASIN] = asin, [M_ACOS] = acos, [M_ATAN] = atan, [M_ASINH] = asinh,
    [M_ACOSH] = acosh, [M_ATANH] = atanh, [M_ERF] = erf, [M_ERFC] = erfc,
    [M_FLOOR] = floor, [M_CEIL] = ceil, [M_TRUNC] = trunc, [M_RINT] = rint,
    [M_ROUND] = round, [M_SIGMOID] = sigmoid, [M_RCP] = rcp, [M_CBRT] = cbrt,
    [M_LGAMMA] = lgamma, [M_ERFINV] = coil_erfinv};

typedef struct MathCtx {
  TxMath fn;
} MathCtx;

/* The common cheap functions get loops of their own (vectorisable); the
 * rest call libm through the table. */
static inline void math_f32_row(int64_t n, char **p, const int64_t *s, void *ctx) {
  TxMath fn = ((MathCtx *)ctx)->fn;
  float *o = (float *)p[0];
  const char *a = p[1];
  int64_t sa = s[1];
#define AT(i) (*(const float *)(a + (i) * sa))
  switch (fn) {
  case M_SQRT: for (int64_t i = 0; i < n; i++) o[i] = sqrtf(AT(i)); return;
  case M_RSQRT: for (int64_t i = 0; i < n; i++) o[i] = 1.0f / sqrtf(AT(i)); return;
  case M_ABS: for (int64_t i = 0; i < n; i++) o[i] = fabsf(AT(i)); return;
  default: {
    float (*f)(float) = mathf[fn];
    for (int64_t i = 0; i < n; i++) o[i] = f(AT(i));
  }
  }
#undef AT
}

static inline void math_f64_row(int64_t n, char **p, const int64_t *s, void *ctx) {
  double (*f)(double) = mathd[((MathCtx *)ctx)->fn];
  double *o = (double *)p[0];
  for (int64_t i = 0; i < n; i++) o[i] = f(*(const double *)(p[1] + i * s[1]));
}
TX_OUTER(math_f32)
TX_OUTER(math_f64)

TxTensor *tx_k_math(TxExec *ex, TxMath fn, TxTensor *a) {
  coil_assert(a->dtype == DT_F32 || a->dtype == DT_F64);
  MathCtx c = {fn};
  TxTensor *o = tx_tensor_new(ex, a->dtype, a->ndim, a->shape);
  o->from_mem = a->from_mem;
  TxIter it;
  tx_iter_init(&it, a->ndim, a->shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, a);
  tx_iter_run(&it, a->dtype == DT_F32 ? math_f32 : math_f64, &c);
  return o;
}

BINLOOP(atan2_f32, float, float, atan2f(x, y))
BINLOOP(atan2_f64, double, double, atan2(x, y))
BINLOOP(hypot_f32, float, float, hypotf(x, y))
BINLOOP(hypot_f64, double, double, hypot(x, y))
BINLOOP(copysign_f32, float, float, copysignf(x, y))
BINLOOP(copysign_f64, double, double, copysign(x, y))

TxTensor *tx_k_math2(TxExec *ex, TxMath fn, TxTensor *a, TxTensor *b,
                     int ndim, const int64_t *shape) {
  coil_assert(a->dtype == b->dtype && (a->dtype == DT_F32 || a->dtype == DT_F64));
  bool f = a->dtype == DT_F32;
  TxLoopFn loop;
  switch (fn) {
  case M_POW: loop = f ? pow_f32 : pow_f64; break;
  case M_ATAN2: loop = f ? atan2_f32 : atan2_f64; break;
  case M_FMOD: loop = f ? mod_f32 : mod_f64; break;
  case M_HYPOT: loop = f ? hypot_f32 : hypot_f64; break;
  case M_COPYSIGN: loop = f ? copysign_f32 : copysign_f64; break;
  default: coil_unreachable("tx_k_math2");
  }
  KCtx c = {0};
  return run2(ex, a->dtype, a, b, ndim, shape, loop, &c);
}

/* isnan / isinf / isfinite: rare, so one plain loop over a contiguous copy. */
TxTensor *tx_k_isclass(TxExec *ex, int which, TxTensor *a) {
  coil_assert(a->dtype == DT_F32 || a->dtype == DT_F64);
  TxTensor *c = tx_cast(ex, a, DT_F64);
  TxTensor *d = tx_contiguous(ex, c);
  tx_release(ex, c);
  TxTensor *o = tx_tensor_new(ex, DT_BOOL, a->ndim, a->shape);
  o->from_mem = a->from_mem;
  const double *x = (const double *)d->data;
  for (int64_t i = 0; i < a->numel; i++)
    ((uint8_t *)o->data)[i] = which == 0 ? isnan(x[i]) : which == 1 ? isinf(x[i]) : isfinite(x[i]);
  tx_release(ex, d);
  return o;
}

#define FMALOOP(name, T, FMA)                                                 \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    (void)ctx;                                                                \
    T *o = (T *)p[0];                                                         \
    for (int64_t i = 0; i < n; i++)                                           \
      o[i] = FMA(*(const T *)(p[1] + i * s[1]), *(const T *)(p[2] + i * s[2]), \
                 *(const T *)(p[3] + i * s[3]));                              \
  }                                                                           \
  TX_OUTER(name)
FMALOOP(fma_f32, float, fmaf)
FMALOOP(fma_f64, double, fma)

TxTensor *tx_k_fma(TxExec *ex, TxTensor *a, TxTensor *b, TxTensor *c,
                   int ndim, const int64_t *shape) {
  coil_assert(a->dtype == b->dtype && b->dtype == c->dtype);
  TxTensor *o = tx_tensor_new(ex, a->dtype, ndim, shape);
  o->from_mem = a->from_mem || b->from_mem || c->from_mem;
  TxIter it;
  tx_iter_init(&it, ndim, shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, a);
  tx_iter_add(&it, b);
  tx_iter_add(&it, c);
  tx_iter_run(&it, a->dtype == DT_F32 ? fma_f32 : fma_f64, NULL);
  return o;
}

/* ----------------------------------------------------------- reductions */

/* The accumulator is operand 0 with stride 0 along the reduced axis, so
 * the engine walks the input in C order and each lane folds into its
 * output element; when the reduced axis is innermost the fold is a plain
 * running sum in a register. */
#define REDLOOP(name, T, FOLD)                                   \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    (void)ctx;                                                                \
    char *po = p[0];                                                          \
    const char *pa = p[1];                                                    \
    int64_t so = s[0], sa = s[1];                                             \
    if (so == 0) {                                                            \
      T acc = *(T *)po;                                                       \
      for (int64_t i = 0; i < n; i++) {                                       \
        T x = *(const T *)(pa + i * sa);                                      \
        acc = FOLD(acc, x);                                                   \
      }                                                                       \
      *(T *)po = acc;                                                         \
    } else if (so == sizeof(T) && sa == sizeof(T)) {                          \
      T *O = (T *)po;                                                         \
      const T *A = (const T *)pa;                                             \
      TX_SIMD0 for (int64_t i = 0; i < n; i++) O[i] = FOLD(O[i], A[i]);          \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        T *o = (T *)(po + i * so);                                            \
        *o = FOLD(*o, *(const T *)(pa + i * sa));                             \
      }                                                                       \
    }                                                                         \
  }                                                                           \
  TX_OUTER(name)
#define ADD(a, x) ((a) + (x))
#define ADDW32(a, x) ((int32_t)((uint32_t)(a) + (uint32_t)(x)))
#define ADDW64(a, x) ((int64_t)((uint64_t)(a) + (uint64_t)(x)))
#define FMAXN(a, x) ((x) > (a) || (a) != (a) ? (x) : (a))
#define FMINN(a, x) ((x) < (a) || (a) != (a) ? (x) : (a))
#define IMAX(a, x) ((x) > (a) ? (x) : (a))
#define IMIN(a, x) ((x) < (a) ? (x) : (a))
REDLOOP(rsum_f32, float, ADD)
REDLOOP(rsum_f64, double, ADD)
REDLOOP(rsum_i32, int32_t, ADDW32)
REDLOOP(rsum_i64, int64_t, ADDW64)
REDLOOP(rmax_f32, float, FMAXN)
REDLOOP(rmax_f64, double, FMAXN)
REDLOOP(rmax_i32, int32_t, IMAX)
REDLOOP(rmax_i64, int64_t, IMAX)
REDLOOP(rmin_f32, float, FMINN)
REDLOOP(rmin_f64, double, FMINN)
REDLOOP(rmin_i32, int32_t, IMIN)
REDLOOP(rmin_i64, int64_t, IMIN)
REDLOOP(rsum_u32, uint32_t, ADD)
REDLOOP(rmax_u32, uint32_t, IMAX)
REDLOOP(rmin_u32, uint32_t, IMIN)

/* argmax/argmin: operands are the index output, the running best value
 * (both stride 0 along the axis), the input, and the position along the
 * axis (an arange broadcast over the other dims).  Ties keep the first. */
#define ARGLOOP(name, T, BETTER)                                              \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *ctx) {        \
    (void)ctx;                                                                \
    for (int64_t i = 0; i < n; i++) {                                         \
      int32_t *oi = (int32_t *)(p[0] + i * s[0]);                             \
      T *best = (T *)(p[1] + i * s[1]);                                       \
      T x = *(const T *)(p[2] + i * s[2]);                                    \
      int32_t pos = *(const int32_t *)(p[3] + i * s[3]);                      \
      if (*oi < 0 || BETTER(x, *best)) {                                      \
        *best = x;                                                            \
        *oi = pos;                                                            \
      }                                                                       \
    }                                                                         \
  }                                                                           \
  TX_OUTER(name)
#define GT(x, b) ((x) > (b) || ((x) != (x) && (b) == (b)))
#define LT(x, b) ((x) < (b) || ((x) != (x) && (b) == (b)))
ARGLOOP(amax_f32, float, GT)
ARGLOOP(amax_f64, double, GT)
ARGLOOP(amax_i32, int32_t, GT)
ARGLOOP(amax_i64, int64_t, GT)
ARGLOOP(amin_f32, float, LT)
ARGLOOP(amin_f64, double, LT)
ARGLOOP(amin_i32, int32_t, LT)
ARGLOOP(amin_i64, int64_t, LT)
ARGLOOP(amax_u32, uint32_t, GT)
ARGLOOP(amin_u32, uint32_t, LT)

static void fill(TxTensor *o, TxRed r) {
  int64_t n = o->numel;
  switch (o->dtype) {
  case DT_F32: {
    float v = r == R_SUM ? 0.0f : r == R_MAX ? -INFINITY : INFINITY;
    for (int64_t i = 0; i < n; i++) ((float *)o->data)[i] = v;
    break;
  }
  case DT_F64: {
    double v = r == R_SUM ? 0.0 : r == R_MAX ? -INFINITY : INFINITY;
    for (int64_t i = 0; i < n; i++) ((double *)o->data)[i] = v;
    break;
  }
  case DT_I32: {
    int32_t v = r == R_SUM ? 0 : r == R_MAX ? INT32_MIN : INT32_MAX;
    for (int64_t i = 0; i < n; i++) ((int32_t *)o->data)[i] = v;
    break;
  }
  case DT_I64: {
    int64_t v = r == R_SUM ? 0 : r == R_MAX ? INT64_MIN : INT64_MAX;
    for (int64_t i = 0; i < n; i++) ((int64_t *)o->data)[i] = v;
    break;
  }
  case DT_TX_U32: {
    uint32_t v = r == R_SUM ? 0 : r == R_MAX ? 0 : UINT32_MAX;
    for (int64_t i = 0; i < n; i++) ((uint32_t *)o->data)[i] = v;
    break;
  }
  default: coil_unreachable("fill");
  }
}

TxTensor *tx_k_reduce(TxExec *ex, TxRed r, TxTensor *a, int axis,
                      bool keep_dims) {
  /* An f32 sum is taken in f64 and rounded once: a GPU sums a block in a
   * tree and Triton's interpreter pairwise (numpy), while a running f32
   * sum along the axis drifted several times further from the exact sum
   * (fuzz seed 9200 case 1440: 156 terms near -4, 5.6e-6 relative, past
   * the check's tolerance).  The executor checks the emitted code, so it
   * should add no error of its own that a real target does not. */
  if (r == R_SUM && a->dtype == DT_F32) {
    TxTensor *wide = tx_cast(ex, a, DT_F64);
    TxTensor *sum = tx_k_reduce(ex, r, wide, axis, keep_dims);
    TxTensor *o = tx_cast(ex, sum, DT_F32);
    tx_release(ex, wide);
    tx_release(ex, sum);
    return o;
  }
  int k = kind_of(a->dtype);
  coil_assert(k >= KI32);
  /* Output shape: the reduced axes become 1 (kept) or disappear. */
  int64_t kshape[TX_MAX_DIMS], oshape[TX_MAX_DIMS];
  int ond = 0;
  for (int d = 0; d < a->ndim; d++) {
    bool red = axis < 0 || d == axis;
    kshape[d] = red ? 1 : a->shape[d];
    if (!red) oshape[ond++] = a->shape[d];
  }
  bool arg = r == R_ARGMAX || r == R_ARGMIN;
  TxTensor *acc = tx_tensor_new(ex, arg ? DT_I32 : a->dtype, a->ndim, kshape);
  acc->from_mem = a->from_mem;
  TxIter it;
  tx_iter_init(&it, a->ndim, a->shape);
  tx_iter_add(&it, acc);
  if (!arg) {
    fill(acc, r);
    tx_iter_add(&it, a);
    static const TxLoopFn fns[3][KCOUNT] = {
        {0, rsum_i32, rsum_i64, rsum_f32, rsum_f64, rsum_u32},
        {0, rmax_i32, rmax_i64, rmax_f32, rmax_f64, rmax_u32},
        {0, rmin_i32, rmin_i64, rmin_f32, rmin_f64, rmin_u32}};
    tx_iter_run(&it, fns[r][k], NULL);
  } else {
    coil_assert(axis >= 0);
    for (int64_t i = 0; i < acc->numel; i++) ((int32_t *)acc->data)[i] = -1;
    TxTensor *best = tx_tensor_new(ex, a->dtype, a->ndim, kshape);
    tx_iter_add(&it, best);
    tx_iter_add(&it, a);
    TxTensor *pos = tx_tensor_new(ex, DT_I32, 1, &a->shape[axis]);
    for (int64_t i = 0; i < a->shape[axis]; i++) ((int32_t *)pos->data)[i] = (int32_t)i;
    int64_t ps[TX_MAX_DIMS] = {0};
    ps[axis] = 4;
    tx_iter_add_raw(&it, pos->data, ps);
    static const TxLoopFn fns[2][KCOUNT] = {
        {0, amax_i32, amax_i64, amax_f32, amax_f64, amax_u32},
        {0, amin_i32, amin_i64, amin_f32, amin_f64, amin_u32}};
    tx_iter_run(&it, fns[r - R_ARGMAX][k], NULL);
    tx_release(ex, best);
    tx_release(ex, pos);
  }
  if (keep_dims) return acc;
  int64_t ostride[TX_MAX_DIMS], st = 1;
  for (int d = ond - 1; d >= 0; d--) {
    ostride[d] = st;
    st *= oshape[d];
  }
  TxTensor *o = tx_view(ex, acc, ond, oshape, ostride);
  tx_release(ex, acc);
  return o;
}

/* ---------------------------------------------------------- load, store */

typedef struct MemCtx {
  char *base;
  uint64_t numel;
  int bad;
} MemCtx;

static int64_t zero8; /* what a masked-off lane of an empty buffer reads */

/* Operands: out, offsets, mask, other.  A lane reads base[off] only when
 * it is masked on and in bounds; otherwise it takes `other`.
 *
 * A block's lanes usually come in short contiguous runs scattered over
 * memory (a tile of a larger tensor), so without help the loop waits for
 * one cache miss at a time.  Prefetching the lane PF ahead keeps many
 * misses in flight; a prefetch never faults, so masked-off or
 * out-of-bounds lanes may be prefetched harmlessly. */
#ifndef TX_PF
#define TX_PF 256 /* lanes ahead */
#endif
#ifndef TX_PF_EVERY
#define TX_PF_EVERY 8 /* one prefetch per this many lanes (a power of 2) */
#endif
#define PF TX_PF
#ifdef __GNUC__
#define PREFETCH(base, off, T)                                                \
  __builtin_prefetch((const void *)((uintptr_t)(base) + (uintptr_t)(off) * sizeof(T)))
#else
#define PREFETCH(base, off, T) ((void)0)
#endif
#define LOADLOOP(name, T, OT)                                                 \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *vctx) {       \
    MemCtx *c = vctx;                                                         \
    const T *base = (const T *)c->base;                                       \
    uint64_t lim = c->numel;                                                  \
    T *o = (T *)p[0];                                                         \
    const char *po = p[1], *pm = p[2], *pv = p[3];                            \
    int64_t so = s[1], sm = s[2], sv = s[3];                                  \
    int bad = 0;                                                              \
    if (so == sizeof(OT) && sm == 0 && *pm) {                                 \
      /* unmasked: every lane reads */                                        \
      const OT *O = (const OT *)po;                                           \
      for (int64_t i = 0; i < n; i++) {                                       \
        if ((i & (TX_PF_EVERY - 1)) == 0 && i + PF < n) PREFETCH(base, O[i + PF], T);         \
        int64_t off = O[i];                                                   \
        int inb = (uint64_t)off < lim;                                        \
        bad |= !inb;                                                          \
        o[i] = base[inb ? off : 0];                                           \
      }                                                                       \
    } else if (so == sizeof(OT) && sm == 1) {                                 \
      const OT *O = (const OT *)po;                                           \
      const uint8_t *M = (const uint8_t *)pm;                                 \
      for (int64_t i = 0; i < n; i++) {                                       \
        if (i + PF < n) PREFETCH(base, O[i + PF], T);                         \
        int64_t off = O[i];                                                   \
        int m = M[i], inb = (uint64_t)off < lim;                              \
        bad |= m & !inb;                                                      \
        T v = base[(m & inb) ? off : 0];                                      \
        o[i] = m ? v : *(const T *)(pv + i * sv);                             \
      }                                                                       \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) {                                       \
        if (i + PF < n) PREFETCH(base, *(const OT *)(po + (i + PF) * so), T); \
        int64_t off = *(const OT *)(po + i * so);                             \
        int m = *(const uint8_t *)(pm + i * sm), inb = (uint64_t)off < lim;   \
        bad |= m & !inb;                                                      \
        T v = base[(m & inb) ? off : 0];                                      \
        o[i] = m ? v : *(const T *)(pv + i * sv);                             \
      }                                                                       \
    }                                                                         \
    if (bad) c->bad = 1;                                                      \
  }                                                                           \
  TX_OUTER(name)
LOADLOOP(load1_32, uint8_t, int32_t)
LOADLOOP(load2_32, uint16_t, int32_t)
LOADLOOP(load4_32, uint32_t, int32_t)
LOADLOOP(load8_32, uint64_t, int32_t)
LOADLOOP(load1_64, uint8_t, int64_t)
LOADLOOP(load2_64, uint16_t, int64_t)
LOADLOOP(load4_64, uint32_t, int64_t)
LOADLOOP(load8_64, uint64_t, int64_t)

/* Operands: offsets, value, mask. */
#define STORELOOP(name, T, OT)                                                \
  static inline void name##_row(int64_t n, char **p, const int64_t *s, void *vctx) {       \
    MemCtx *c = vctx;                                                         \
    T *base = (T *)c->base;                                                   \
    uint64_t lim = c->numel;                                                  \
    int bad = 0;                                                              \
    for (int64_t i = 0; i < n; i++) {                                         \
      int64_t off = *(const OT *)(p[0] + i * s[0]);                           \
      int m = *(const uint8_t *)(p[2] + i * s[2]), inb = (uint64_t)off < lim; \
      bad |= m & !inb;                                                        \
      if (m & inb) base[off] = *(const T *)(p[1] + i * s[1]);                 \
    }                                                                         \
    if (bad) c->bad = 1;                                                      \
  }                                                                           \
  TX_OUTER(name)
STORELOOP(store1_32, uint8_t, int32_t)
STORELOOP(store2_32, uint16_t, int32_t)
STORELOOP(store4_32, uint32_t, int32_t)
STORELOOP(store8_32, uint64_t, int32_t)
STORELOOP(store1_64, uint8_t, int64_t)
STORELOOP(store2_64, uint16_t, int64_t)
STORELOOP(store4_64, uint32_t, int64_t)
STORELOOP(store8_64, uint64_t, int64_t)

static int size_index(int es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3; }

static _Noreturn void report_oob(TxExec *ex, SrcLoc loc, const char *what,
                                 TxTensor *ptr, TxTensor *mask, int ndim,
                                 const int64_t *shape) {
  const TxArg *arg = &ex->args[ptr->ptr];
  int64_t numel = 1, idx[TX_MAX_DIMS];
  for (int d = 0; d < ndim; d++) numel *= shape[d];
  for (int64_t i = 0; i < numel; i++) {
    tx_unravel(i, ndim, shape, idx);
    char *po = tx_elem_bcast(ptr, ndim, idx);
    int64_t off = ptr->dtype == DT_I32 ? *(int32_t *)po : *(int64_t *)po;
    int m = mask ? *(uint8_t *)tx_elem_bcast(mask, ndim, idx) : 1;
    if (m && (off < 0 || off >= arg->numel)) {
      char at[300] = "", ix[120], shp[120];
      if (ndim) {
        tx_fmt_shape(ix, sizeof ix, ndim, idx);
        tx_fmt_shape(shp, sizeof shp, ndim, shape);
        snprintf(at, sizeof at, " at index %s of the %s block", ix, shp);
      }
      tx_fail(ex, loc,
              "out-of-bounds %s: %s[%lld] is outside its %lld elements (%s)%s%s "
              "(program (%lld, %lld, %lld))",
              what, ex->argnames[ptr->ptr], (long long)off, (long long)arg->numel,
              tx_dtype_name(arg->dtype), at, mask ? ", with the mask on" : ", unmasked",
              (long long)ex->pid[0], (long long)ex->pid[1], (long long)ex->pid[2]);
    }
  }
  coil_unreachable("out-of-bounds access flagged but not found");
}

TxTensor *tx_k_load(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *mask,
                    TxTensor *other, int ndim, const int64_t *shape) {
  const TxArg *arg = &ex->args[ptr->ptr];
  int es = tx_dtype_size(arg->dtype);
  if (mask && tx_is_splat(mask)) {
    if (!*(const uint8_t *)mask->data) {
      /* Nothing is read: the block is `other` (or zeros). */
      if (other) return tx_broadcast_view(ex, other, ndim, shape);
      TxTensor *z = tx_tensor_new(ex, arg->dtype, 0, NULL);
      memset(z->data, 0, (size_t)es);
      TxTensor *v = tx_broadcast_view(ex, z, ndim, shape);
      tx_release(ex, z);
      return v;
    }
    mask = NULL;
  }
  TxTensor *o = tx_tensor_new(ex, arg->dtype, ndim, shape);
  o->from_mem = true;
  static const uint8_t one = 1;
  int64_t zs[TX_MAX_DIMS] = {0};
  TxIter it;
  tx_iter_init(&it, ndim, shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, ptr);
  if (mask) tx_iter_add(&it, mask);
  else tx_iter_add_raw(&it, (char *)&one, zs);
  if (other) tx_iter_add(&it, other);
  else tx_iter_add_raw(&it, (char *)&zero8, zs);
  MemCtx c = {arg->numel ? arg->data : (char *)&zero8, (uint64_t)arg->numel, 0};
  static const TxLoopFn fns[2][4] = {
      {load1_32, load2_32, load4_32, load8_32},
      {load1_64, load2_64, load4_64, load8_64}};
  tx_iter_run(&it, fns[ptr->dtype == DT_I64][size_index(es)], &c);
  if (c.bad) report_oob(ex, loc, "tl.load", ptr, mask, ndim, shape);
  return o;
}

void tx_k_store(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *val,
                TxTensor *mask) {
  const TxArg *arg = &ex->args[ptr->ptr];
  int es = tx_dtype_size(arg->dtype);
  coil_assert(val->dtype == arg->dtype);
  if (mask && tx_is_splat(mask)) {
    if (!*(const uint8_t *)mask->data) return;
    mask = NULL;
  }
  static const uint8_t one = 1;
  int64_t zs[TX_MAX_DIMS] = {0};
  TxIter it;
  tx_iter_init(&it, ptr->ndim, ptr->shape);
  tx_iter_add(&it, ptr);
  tx_iter_add(&it, val);
  if (mask) tx_iter_add(&it, mask);
  else tx_iter_add_raw(&it, (char *)&one, zs);
  MemCtx c = {arg->data, (uint64_t)arg->numel, 0};
  static const TxLoopFn fns[2][4] = {
      {store1_32, store2_32, store4_32, store8_32},
      {store1_64, store2_64, store4_64, store8_64}};
  tx_iter_run(&it, fns[ptr->dtype == DT_I64][size_index(es)], &c);
  if (c.bad) report_oob(ex, loc, "tl.store", ptr, mask, ptr->ndim, ptr->shape);
}

/* tl.atomic_add: each lane the mask keeps, in row-major order, adds its
 * value into the element at its offset, the sum rounded to the element's
 * dtype (computed in f32 for 16-bit floats, as a GPU's atomic add; ints
 * wrap); lanes at one element add one after another.  Returns the elements'
 * values before the lanes' adds. */
TxTensor *tx_k_atomic_add(TxExec *ex, SrcLoc loc, TxTensor *ptr, TxTensor *val, TxTensor *mask) {
  const TxArg *arg = &ex->args[ptr->ptr];
  coil_assert(val->dtype == arg->dtype);
  int nd = ptr->ndim;
  TxTensor *o = tx_tensor_new(ex, arg->dtype, nd, ptr->shape);
  int es = tx_dtype_size(arg->dtype);
  int64_t numel = 1, idx[TX_MAX_DIMS];
  for (int d = 0; d < nd; d++) numel *= ptr->shape[d];
  for (int64_t i = 0; i < numel; i++) {
    tx_unravel(i, nd, ptr->shape, idx);
    char *po = tx_elem_bcast(ptr, nd, idx), *pv = tx_elem_bcast(val, nd, idx);
    int64_t off = ptr->dtype == DT_I32 ? *(int32_t *)po : *(int64_t *)po;
    char *out = (char *)o->data + i * es;
    memset(out, 0, (size_t)es);
    if (mask && !*(uint8_t *)tx_elem_bcast(mask, nd, idx)) continue;
    if (off < 0 || off >= arg->numel) report_oob(ex, loc, "tl.atomic_add", ptr, mask, nd, ptr->shape);
    char *at = (char *)arg->data + off * es;
    /* programs run on several threads (eval.c): each add is one critical
     * section, so adds from two programs never lose one another */
#pragma omp critical(tx_atomic_add)
    {
    memcpy(out, at, (size_t)es);
    switch (arg->dtype) {
    case DT_F32: *(float *)at = *(float *)at + *(float *)pv; break;
    case DT_F64: *(double *)at = *(double *)at + *(double *)pv; break;
    case DT_BF16: *(uint16_t *)at = f32_to_bf16(bf16_to_f32(*(uint16_t *)at) + bf16_to_f32(*(uint16_t *)pv)); break;
    case DT_F16: *(uint16_t *)at = f32_to_f16(f16_to_f32(*(uint16_t *)at) + f16_to_f32(*(uint16_t *)pv)); break;
    case DT_I32: *(int32_t *)at = (int32_t)((uint32_t) * (int32_t *)at + (uint32_t) * (int32_t *)pv); break;
    case DT_I64: *(int64_t *)at = (int64_t)((uint64_t) * (int64_t *)at + (uint64_t) * (int64_t *)pv); break;
    default: break; /* the printers add only these dtypes (bi_atomic_add refuses others) */
    }
    }
  }
  return o;
}
