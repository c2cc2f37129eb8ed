/* Triton's semantics on values (triton/language/semantic.py, Triton 3.x).
 *
 * Python numbers are constexprs: arithmetic between them is Python's
 * (floor division, float true division, exact ints -- here 64 bits, with
 * overflow an error).  With a tensor on either side, a Python number is a
 * "weak" operand: when its kind (bool < int < float) is not above the
 * tensor's it takes the tensor's dtype, after a range check; otherwise it
 * is typed as Triton types constants (int32 if it fits, else int64; fp32).
 * Then both sides are promoted by Triton's computation_type_impl and
 * broadcast by broadcast_impl_value, whose error messages are reproduced
 * word for word.  f16/bf16 arithmetic is computed in fp32 and rounded back,
 * which is what the GPU does for these ops. */
#include <math.h>
#include <string.h>

#include "tx/tx.h"

const char *tx_dtype_name(DType t) {
  switch (t) {
  case DT_BOOL: return "int1";
  case DT_I32: return "int32";
  case DT_I64: return "int64";
  case DT_F16: return "fp16";
  case DT_BF16: return "bf16";
  case DT_F32: return "fp32";
  case DT_F64: return "fp64";
  default: return t == DT_TX_U32 ? "uint32" : "?";
  }
}

const char *tx_val_kind_name(TxVal v) {
  switch (v.kind) {
  case TV_UNSET: return "unset";
  case TV_NONE: return "None";
  case TV_BOOL: return "bool";
  case TV_INT: return "int";
  case TV_FLOAT: return "float";
  case TV_STR: return "str";
  case TV_TENSOR: return v.t->ptr >= 0 ? "pointer" : "tensor";
  case TV_DTYPE: return "dtype";
  case TV_TUPLE: return "tuple";
  case TV_SLICE: return "slice";
  case TV_MODULE: return "module";
  case TV_BUILTIN: return "builtin function";
  case TV_FUNC: return "function";
  }
  return "?";
}

bool tx_is_pyscalar(TxVal v) {
  return v.kind == TV_BOOL || v.kind == TV_INT || v.kind == TV_FLOAT;
}

static double pyf(TxVal v) { return v.kind == TV_FLOAT ? v.f : (double)v.i; }

void tx_check_block_shape(TxExec *ex, SrcLoc loc, int ndim, const int64_t *shape) {
  if (ndim > TX_MAX_DIMS)
    tx_fail(ex, loc, "blocks of rank %d are not supported (at most %d)", ndim, TX_MAX_DIMS);
  int64_t numel = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] <= 0 || (shape[d] & (shape[d] - 1)))
      tx_fail(ex, loc, "Shape element %d must be a power of 2", d);
    numel *= shape[d];
    if (numel > TX_MAX_NUMEL)
      tx_fail(ex, loc, "numel (%lld) exceeds triton maximum tensor numel (%d)",
              (long long)numel, TX_MAX_NUMEL);
  }
}

void tx_broadcast_shape(TxExec *ex, SrcLoc loc, int na, const int64_t *sa,
                        int nb, const int64_t *sb, int *nout, int64_t *out) {
  int n = na > nb ? na : nb;
  int64_t numel = 1;
  for (int i = 0; i < n; i++) {
    int64_t l = i - (n - na) >= 0 ? sa[i - (n - na)] : 1;
    int64_t r = i - (n - nb) >= 0 ? sb[i - (n - nb)] : 1;
    if (l == 1) out[i] = r;
    else if (r == 1 || r == l) out[i] = l;
    else
      tx_fail(ex, loc,
              "Cannot make_shape_compatible: incompatible dimensions at index %d: "
              "%lld and %lld",
              i, (long long)l, (long long)r);
    numel *= out[i];
  }
  if (numel > TX_MAX_NUMEL)
    tx_fail(ex, loc, "numel (%lld) exceeds triton maximum tensor numel (%d)",
            (long long)numel, TX_MAX_NUMEL);
  *nout = n;
}

/* ------------------------------------------------------- Python numbers */

static TxVal pyint(int64_t i) { return (TxVal){.kind = TV_INT, .i = i}; }
static TxVal pyfloat(double f) { return (TxVal){.kind = TV_FLOAT, .f = f}; }
static TxVal pybool(bool b) { return (TxVal){.kind = TV_BOOL, .i = b}; }

static int64_t floordiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static TxVal py_binary(TxExec *ex, SrcLoc loc, TxOp op, TxVal a, TxVal b) {
  bool ints = a.kind != TV_FLOAT && b.kind != TV_FLOAT;
  int64_t x = a.i, y = b.i, r;
  double fx = pyf(a), fy = pyf(b);
  switch (op) {
  case TXO_ADD:
    if (!ints) return pyfloat(fx + fy);
    if (__builtin_add_overflow(x, y, &r)) goto overflow;
    return pyint(r);
  case TXO_SUB:
    if (!ints) return pyfloat(fx - fy);
    if (__builtin_sub_overflow(x, y, &r)) goto overflow;
    return pyint(r);
  case TXO_MUL:
    if (!ints) return pyfloat(fx * fy);
    if (__builtin_mul_overflow(x, y, &r)) goto overflow;
    return pyint(r);
  case TXO_DIV:
    if (fy == 0) tx_fail(ex, loc, "ZeroDivisionError: division by zero");
    return pyfloat(fx / fy);
  case TXO_FLOORDIV:
    if (ints) {
      if (y == 0) tx_fail(ex, loc, "ZeroDivisionError: integer division or modulo by zero");
      if (x == INT64_MIN && y == -1) goto overflow;
      return pyint(floordiv64(x, y));
    }
    if (fy == 0) tx_fail(ex, loc, "ZeroDivisionError: float floor division by zero");
    return pyfloat(floor(fx / fy));
  case TXO_MOD:
    if (ints) {
      if (y == 0) tx_fail(ex, loc, "ZeroDivisionError: integer division or modulo by zero");
      if (y == -1) return pyint(0);
      return pyint(x - floordiv64(x, y) * y);
    }
    if (fy == 0) tx_fail(ex, loc, "ZeroDivisionError: float modulo");
    {
      double m = fmod(fx, fy);
      if (m != 0 && ((m < 0) != (fy < 0))) m += fy;
      return pyfloat(m);
    }
  case TXO_POW:
    if (ints && y >= 0) {
      int64_t acc = 1;
      for (int64_t i = 0; i < y; i++)
        if (__builtin_mul_overflow(acc, x, &acc)) goto overflow;
      return pyint(acc);
    }
    return pyfloat(pow(fx, fy));
  case TXO_AND: case TXO_OR: case TXO_XOR: case TXO_SHL: case TXO_SHR:
    if (!ints) tx_fail(ex, loc, "unsupported operand type(s) for %s: '%s' and '%s'",
                       tx_op_spelling(op), tx_val_kind_name(a), tx_val_kind_name(b));
    if (op == TXO_AND) r = x & y;
    else if (op == TXO_OR) r = x | y;
    else if (op == TXO_XOR) r = x ^ y;
    else if (op == TXO_SHR) r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
    else {
      if (y < 0) tx_fail(ex, loc, "ValueError: negative shift count");
      if (y >= 63 || (x << y) >> y != x) goto overflow;
      r = x << y;
    }
    if (a.kind == TV_BOOL && b.kind == TV_BOOL && op != TXO_SHL && op != TXO_SHR)
      return pybool(r != 0);
    return pyint(r);
  case TXO_LT: return pybool(ints ? x < y : fx < fy);
  case TXO_LE: return pybool(ints ? x <= y : fx <= fy);
  case TXO_GT: return pybool(ints ? x > y : fx > fy);
  case TXO_GE: return pybool(ints ? x >= y : fx >= fy);
  case TXO_EQ: return pybool(ints ? x == y : fx == fy);
  case TXO_NE: return pybool(ints ? x != y : fx != fy);
  case TXO_MIN: return (ints ? y < x : fy < fx) ? b : a;
  case TXO_MAX: return (ints ? y > x : fy > fx) ? b : a;
  default: coil_unreachable("py_binary");
  }
overflow:
  tx_fail(ex, loc,
          "integer overflow in constexpr arithmetic: %lld %s %lld does not fit in 64 bits",
          (long long)x, tx_op_spelling(op), (long long)y);
}

/* ------------------------------------------------------------ promotion */

/* Triton's to_tensor_type for a Python number. */
static DType scalar_dtype(TxExec *ex, SrcLoc loc, TxVal v) {
  if (v.kind == TV_BOOL) return DT_BOOL;
  if (v.kind == TV_INT) {
    if (v.i >= INT32_MIN && v.i <= INT32_MAX) return DT_I32;
    if (v.i > INT32_MAX && v.i <= (int64_t)UINT32_MAX) return DT_TX_U32;
    return DT_I64;
  }
  double a = fabs(v.f);
  if (isinf(a) || a == 0 || isnan(v.f) ||
      (a >= 0x1p-126 && a <= 0x1.fffffep127))
    return DT_F32;
  (void)ex;
  (void)loc;
  return DT_F64;
}

/* Triton's kinds: bool < uint < int < float. */
static int kind_rank(DType t) {
  return t == DT_BOOL ? 0 : t == DT_TX_U32 ? 1 : tx_is_int(t) ? 2 : 3;
}

static int int_width(DType t) { return t == DT_BOOL ? 1 : t == DT_I64 ? 64 : 32; }

/* integer_promote_impl: the usual arithmetic conversions of C. */
static DType int_promote(DType a, DType b) {
  int ra = int_width(a), rb = int_width(b);
  bool ua = a == DT_TX_U32, ub = b == DT_TX_U32;
  if (ua == ub) return ra > rb ? a : b;
  if (ua) return ra >= rb ? a : b;
  return rb >= ra ? b : a;
}

/* computation_type_impl */
static DType computation_type(TxExec *ex, SrcLoc loc, DType a, bool a_weak,
                              DType b, bool b_weak, bool div_or_mod) {
  if (a_weak != b_weak) {
    DType s = a_weak ? a : b, t = a_weak ? b : a;
    if (kind_rank(s) <= kind_rank(t)) a = b = t;
  }
  if (a == DT_F64 || b == DT_F64) return DT_F64;
  bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (div_or_mod && (fa || fb)) return DT_F32;
  if (a == DT_F32 || b == DT_F32) return DT_F32;
  if (a == DT_F16 || b == DT_F16) return DT_F16;
  if (a == DT_BF16 && b == DT_BF16) return DT_BF16;
  if (a == DT_BF16 || b == DT_BF16) return DT_F32;
  if (fa || fb) tx_fail(ex, loc, "unexpected type %s and %s", tx_dtype_name(a), tx_dtype_name(b));
  if (div_or_mod && (a == DT_TX_U32) != (b == DT_TX_U32))
    tx_fail(ex, loc,
            "Cannot use /, #, or %% with %s and %s because they have different signedness;"
            "this is unlikely to result in a useful answer. Cast them to the same signedness.",
            tx_dtype_name(a), tx_dtype_name(b));
  return int_promote(a, b);
}

/* A Python number as a 0-d tensor of dtype t (_cast_to_computation_type). */
static TxTensor *scalar_as(TxExec *ex, SrcLoc loc, TxVal v, DType t) {
  if (dtype_is_float(t)) return tx_scalar_f64(ex, t, pyf(v));
  if (v.kind == TV_FLOAT) return tx_scalar_f64(ex, DT_F64, v.f); /* unreachable by rules */
  if (t == DT_I32 && (v.i < INT32_MIN || v.i > INT32_MAX))
    tx_fail(ex, loc, "Scalar %lld is out of range for type int32", (long long)v.i);
  if (t == DT_TX_U32 && v.i < 0)
    tx_fail(ex, loc, "Cannot perform a binary operation between an unsigned tensor and a "
                     "negative scalar. Perform a explicit cast on one of them.");
  if (t == DT_TX_U32 && v.i > (int64_t)UINT32_MAX)
    tx_fail(ex, loc, "Scalar %lld is out of range for type uint32", (long long)v.i);
  if (t == DT_BOOL && v.kind != TV_BOOL && v.i != 0 && v.i != 1)
    tx_fail(ex, loc, "Scalar %lld is out of range for type int1", (long long)v.i);
  return tx_scalar_i64(ex, t, v.i);
}

TxTensor *tx_sem_tensor(TxExec *ex, SrcLoc loc, TxVal v) {
  if (v.kind == TV_TENSOR) {
    tx_retain(v.t);
    return v.t;
  }
  if (!tx_is_pyscalar(v))
    tx_fail(ex, loc, "cannot convert %s to a tensor", tx_val_kind_name(v));
  return scalar_as(ex, loc, v, scalar_dtype(ex, loc, v));
}

/* Operand v (tensor or Python number) as a tensor of dtype t. */
static TxTensor *operand_as(TxExec *ex, SrcLoc loc, TxVal v, DType t) {
  if (v.kind == TV_TENSOR) return tx_cast(ex, v.t, t);
  return scalar_as(ex, loc, v, t);
}

static const char *type_str(TxExec *ex, TxVal v, char *buf, size_t n) {
  if (v.kind == TV_TENSOR) {
    if (v.t->ptr >= 0)
      snprintf(buf, n, "pointer<%s>", tx_dtype_name(ex->args[v.t->ptr].dtype));
    else
      snprintf(buf, n, "%s", tx_dtype_name(v.t->dtype));
    return buf;
  }
  return tx_val_kind_name(v);
}

/* ptr + int, int + ptr, ptr - int.  The offsets of a pointer block count
 * elements of the pointed-to argument. */
static TxVal ptr_arith(TxExec *ex, SrcLoc loc, TxOp op, TxVal a, TxVal b) {
  bool ap = a.kind == TV_TENSOR && a.t->ptr >= 0;
  bool bp = b.kind == TV_TENSOR && b.t->ptr >= 0;
  if (op == TXO_ADD && bp && !ap) {
    TxVal t = a;
    a = b;
    b = t;
    ap = true;
    bp = false;
  }
  char b1[64], b2[64];
  if (!ap || bp || (op != TXO_ADD && op != TXO_SUB) ||
      (b.kind == TV_TENSOR && dtype_is_float(b.t->dtype)) || b.kind == TV_FLOAT ||
      (b.kind != TV_TENSOR && !tx_is_pyscalar(b)))
    tx_fail(ex, loc, "invalid operands of type %s and %s for '%s'",
            type_str(ex, a, b1, sizeof b1), type_str(ex, b, b2, sizeof b2),
            tx_op_spelling(op));
  TxTensor *off = tx_sem_tensor(ex, loc, b);
  if (off->dtype == DT_BOOL) {
    TxTensor *c = tx_cast(ex, off, DT_I32);
    tx_release(ex, off);
    off = c;
  }
  if (op == TXO_SUB) {
    TxTensor *w = tx_cast(ex, off, DT_I64);
    TxTensor *n = tx_k_unary(ex, loc, TXO_NEG, w);
    tx_release(ex, w);
    tx_release(ex, off);
    off = n;
  }
  TxTensor *p = a.t;
  int nd;
  int64_t shape[TX_MAX_DIMS];
  tx_broadcast_shape(ex, loc, p->ndim, p->shape, off->ndim, off->shape, &nd, shape);
  TxTensor *r;
  if (p->ndim == 0 && tx_get_i64(p, 0) == 0) {
    /* The kernel's own pointer argument: the offsets are the pointers. */
    r = tx_view(ex, off, off->ndim, off->shape, off->stride);
  } else {
    TxTensor *x = tx_cast(ex, p, DT_I64), *y = tx_cast(ex, off, DT_I64);
    r = tx_k_binary(ex, loc, TXO_ADD, x, y, nd, shape);
    tx_release(ex, x);
    tx_release(ex, y);
  }
  tx_release(ex, off);
  r->ptr = p->ptr;
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

static bool is_div_or_mod(TxOp op) {
  return op == TXO_DIV || op == TXO_FLOORDIV || op == TXO_MOD;
}

TxVal tx_sem_binary(TxExec *ex, SrcLoc loc, TxOp op, TxVal a, TxVal b) {
  if (op == TXO_IS || op == TXO_ISNOT) {
    bool same = a.kind == b.kind;
    if (same && a.kind == TV_TENSOR) same = a.t == b.t;
    else if (same && (a.kind == TV_BOOL || a.kind == TV_INT)) same = a.i == b.i;
    else if (same && a.kind == TV_DTYPE) same = a.dt == b.dt;
    else if (same && a.kind != TV_NONE) same = false;
    return pybool(op == TXO_IS ? same : !same);
  }
  if (tx_is_pyscalar(a) && tx_is_pyscalar(b)) return py_binary(ex, loc, op, a, b);
  if (a.kind == TV_DTYPE && b.kind == TV_DTYPE && (op == TXO_EQ || op == TXO_NE))
    return pybool((a.dt == b.dt) == (op == TXO_EQ));
  char b1[64], b2[64];
  bool ta = a.kind == TV_TENSOR, tb = b.kind == TV_TENSOR;
  if ((!ta && !tx_is_pyscalar(a)) || (!tb && !tx_is_pyscalar(b)))
    tx_fail(ex, loc, "unsupported operand type(s) for %s: '%s' and '%s'",
            tx_op_spelling(op), type_str(ex, a, b1, sizeof b1), type_str(ex, b, b2, sizeof b2));
  if ((ta && a.t->ptr >= 0) || (tb && b.t->ptr >= 0)) {
    if (op == TXO_ADD || op == TXO_SUB) return ptr_arith(ex, loc, op, a, b);
    tx_fail(ex, loc, "operator '%s' is not supported on pointers", tx_op_spelling(op));
  }
  DType da = ta ? a.t->dtype : scalar_dtype(ex, loc, a);
  DType db = tb ? b.t->dtype : scalar_dtype(ex, loc, b);
  DType ct;
  switch (op) {
  case TXO_AND: case TXO_OR: case TXO_XOR: case TXO_SHL: case TXO_SHR:
    /* bitwise_op_type_checking_impl: ints only, then integer promotion */
    if (dtype_is_float(da) || dtype_is_float(db))
      tx_fail(ex, loc, "unexpected type %s and %s for '%s' (bitwise operators need integers)",
              tx_dtype_name(da), tx_dtype_name(db), tx_op_spelling(op));
    ct = computation_type(ex, loc, da, !ta, db, !tb, false);
    break;
  case TXO_POW:
    /* Triton tensors have no **; coil accepts block ** number as pow. */
    if (tb) tx_fail(ex, loc, "'**' needs a Python number as exponent; use libdevice.pow for blocks");
    ct = da == DT_F64 ? DT_F64 : DT_F32;
    break;
  case TXO_DIV:
    ct = computation_type(ex, loc, da, !ta, db, !tb, true);
    if (!dtype_is_float(ct)) ct = DT_F32;
    break;
  case TXO_FLOORDIV:
    ct = computation_type(ex, loc, da, !ta, db, !tb, true);
    if (dtype_is_float(ct))
      tx_fail(ex, loc, "unexpected type %s: '//' is only defined on integers in Triton",
              tx_dtype_name(ct));
    break;
  default:
    ct = computation_type(ex, loc, da, !ta, db, !tb, is_div_or_mod(op));
    break;
  }
  /* Arithmetic on integer 1-bit values is not what kernels mean. */
  if (ct == DT_BOOL && !(op == TXO_AND || op == TXO_OR || op == TXO_XOR ||
                         (op >= TXO_LT && op <= TXO_NE) || op == TXO_MIN || op == TXO_MAX))
    ct = DT_I32;
  TxTensor *x = operand_as(ex, loc, a, ct), *y = operand_as(ex, loc, b, ct);
  int nd;
  int64_t shape[TX_MAX_DIMS];
  tx_broadcast_shape(ex, loc, x->ndim, x->shape, y->ndim, y->shape, &nd, shape);
  TxTensor *r;
  if (ct == DT_F16 || ct == DT_BF16) {
    TxTensor *x32 = tx_cast(ex, x, DT_F32), *y32 = tx_cast(ex, y, DT_F32);
    TxTensor *r32 = tx_k_binary(ex, loc, op, x32, y32, nd, shape);
    r = r32->dtype == DT_F32 ? tx_cast(ex, r32, ct) : (tx_retain(r32), r32);
    tx_release(ex, x32);
    tx_release(ex, y32);
    tx_release(ex, r32);
  } else {
    r = tx_k_binary(ex, loc, op, x, y, nd, shape);
  }
  tx_release(ex, x);
  tx_release(ex, y);
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

TxVal tx_sem_unary(TxExec *ex, SrcLoc loc, TxOp op, TxVal a) {
  if (tx_is_pyscalar(a)) {
    switch (op) {
    case TXO_POS: return a.kind == TV_BOOL ? pyint(a.i) : a;
    case TXO_NEG:
      if (a.kind == TV_FLOAT) return pyfloat(-a.f);
      if (a.i == INT64_MIN) tx_fail(ex, loc, "integer overflow in constexpr arithmetic");
      return pyint(-a.i);
    case TXO_INVERT:
      if (a.kind == TV_FLOAT) tx_fail(ex, loc, "bad operand type for unary ~: 'float'");
      return pyint(~a.i);
    case TXO_LNOT: return pybool(a.kind == TV_FLOAT ? a.f == 0 : a.i == 0);
    case TXO_ABS:
      if (a.kind == TV_FLOAT) return pyfloat(fabs(a.f));
      if (a.i == INT64_MIN) tx_fail(ex, loc, "integer overflow in constexpr arithmetic");
      return pyint(a.i < 0 ? -a.i : a.i);
    default: coil_unreachable("tx_sem_unary");
    }
  }
  if (a.kind != TV_TENSOR)
    tx_fail(ex, loc, "bad operand type for unary %s: '%s'", tx_op_spelling(op),
            tx_val_kind_name(a));
  if (a.t->ptr >= 0) tx_fail(ex, loc, "unary '%s' is not supported on pointers", tx_op_spelling(op));
  if (op == TXO_POS) return tx_val_retain(a);
  DType dt = a.t->dtype;
  if (op == TXO_INVERT && dtype_is_float(dt))
    tx_fail(ex, loc, "unexpected type %s for '~' (bitwise operators need integers)",
            tx_dtype_name(dt));
  TxTensor *r;
  if (dt == DT_F16 || dt == DT_BF16) {
    TxTensor *x = tx_cast(ex, a.t, DT_F32);
    TxTensor *r32 = tx_k_unary(ex, loc, op, x);
    r = r32->dtype == DT_F32 ? tx_cast(ex, r32, dt) : (tx_retain(r32), r32);
    tx_release(ex, x);
    tx_release(ex, r32);
  } else if (dt == DT_BOOL && op == TXO_NEG) {
    TxTensor *x = tx_cast(ex, a.t, DT_I32);
    r = tx_k_unary(ex, loc, op, x);
    tx_release(ex, x);
  } else {
    r = tx_k_unary(ex, loc, op, a.t);
  }
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

/* tl.where(c, x, y): c becomes int1; x and y are promoted together. */
TxVal tx_sem_where(TxExec *ex, SrcLoc loc, TxVal c, TxVal x, TxVal y) {
  TxTensor *ct = tx_sem_tensor(ex, loc, c);
  TxTensor *cb = tx_cast(ex, ct, DT_BOOL);
  tx_release(ex, ct);
  bool xp = x.kind == TV_TENSOR && x.t->ptr >= 0, yp = y.kind == TV_TENSOR && y.t->ptr >= 0;
  TxTensor *xt, *yt;
  int ptr = -1;
  if (xp || yp) {
    if (!xp || !yp || x.t->ptr != y.t->ptr)
      tx_fail(ex, loc, "tl.where over pointers needs two pointers into the same argument");
    ptr = x.t->ptr;
    xt = tx_cast(ex, x.t, DT_I64);
    yt = tx_cast(ex, y.t, DT_I64);
  } else {
    if ((x.kind != TV_TENSOR && !tx_is_pyscalar(x)) || (y.kind != TV_TENSOR && !tx_is_pyscalar(y)))
      tx_fail(ex, loc, "tl.where needs tensors or numbers, got %s and %s",
              tx_val_kind_name(x), tx_val_kind_name(y));
    DType dx = x.kind == TV_TENSOR ? x.t->dtype : scalar_dtype(ex, loc, x);
    DType dy = y.kind == TV_TENSOR ? y.t->dtype : scalar_dtype(ex, loc, y);
    DType dt = computation_type(ex, loc, dx, x.kind != TV_TENSOR, dy, y.kind != TV_TENSOR, false);
    xt = operand_as(ex, loc, x, dt);
    yt = operand_as(ex, loc, y, dt);
  }
  int n1, n2;
  int64_t s1[TX_MAX_DIMS], s2[TX_MAX_DIMS];
  tx_broadcast_shape(ex, loc, cb->ndim, cb->shape, xt->ndim, xt->shape, &n1, s1);
  tx_broadcast_shape(ex, loc, n1, s1, yt->ndim, yt->shape, &n2, s2);
  TxTensor *r = tx_k_where(ex, cb, xt, yt, n2, s2);
  r->ptr = ptr;
  tx_release(ex, cb);
  tx_release(ex, xt);
  tx_release(ex, yt);
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

/* Float math: fp32/fp64 directly; f16/bf16 computed in fp32 and rounded
 * back; integers are rejected with Triton's message. */
static TxTensor *math_input(TxExec *ex, SrcLoc loc, const char *name, TxVal a,
                            DType *orig) {
  TxTensor *t = tx_sem_tensor(ex, loc, a);
  if (t->ptr >= 0) tx_fail(ex, loc, "%s: expected a float tensor, got a pointer", name);
  *orig = t->dtype;
  if (!dtype_is_float(t->dtype))
    tx_fail(ex, loc, "%s: Expected dtype ['fp32', 'fp64'] but got %s", name,
            tx_dtype_name(t->dtype));
  if (t->dtype == DT_F16 || t->dtype == DT_BF16) {
    TxTensor *c = tx_cast(ex, t, DT_F32);
    tx_release(ex, t);
    t = c;
  }
  return t;
}

static TxVal math_result(TxExec *ex, TxTensor *r, DType orig) {
  if (orig == DT_F16 || orig == DT_BF16) {
    TxTensor *c = tx_cast(ex, r, orig);
    tx_release(ex, r);
    r = c;
  }
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

TxVal tx_sem_math(TxExec *ex, SrcLoc loc, const char *name, TxMath fn, TxVal a) {
  if (fn == M_ABS) {
    /* abs is defined on every dtype */
    if (tx_is_pyscalar(a) || (a.kind == TV_TENSOR && !dtype_is_float(a.t->dtype)))
      return tx_sem_unary(ex, loc, TXO_ABS, a);
  }
  DType orig;
  TxTensor *t = math_input(ex, loc, name, a, &orig);
  TxTensor *r = tx_k_math(ex, fn, t);
  tx_release(ex, t);
  return math_result(ex, r, orig);
}

TxVal tx_sem_math2(TxExec *ex, SrcLoc loc, const char *name, TxMath fn, TxVal a,
                   TxVal b) {
  DType oa, ob;
  TxTensor *x = math_input(ex, loc, name, a, &oa);
  TxTensor *y = math_input(ex, loc, name, b, &ob);
  DType ct = x->dtype == DT_F64 || y->dtype == DT_F64 ? DT_F64 : DT_F32;
  TxTensor *xc = tx_cast(ex, x, ct), *yc = tx_cast(ex, y, ct);
  int nd;
  int64_t shape[TX_MAX_DIMS];
  tx_broadcast_shape(ex, loc, xc->ndim, xc->shape, yc->ndim, yc->shape, &nd, shape);
  TxTensor *r = tx_k_math2(ex, fn, xc, yc, nd, shape);
  tx_release(ex, x);
  tx_release(ex, y);
  tx_release(ex, xc);
  tx_release(ex, yc);
  return math_result(ex, r, oa == ob ? oa : ct);
}

TxVal tx_sem_cast(TxExec *ex, SrcLoc loc, TxVal a, DType to, bool bitcast) {
  TxTensor *t = tx_sem_tensor(ex, loc, a);
  if (t->ptr >= 0) tx_fail(ex, loc, "casting a pointer block is not supported");
  TxTensor *r = bitcast ? tx_bitcast(ex, loc, t, to) : tx_cast(ex, t, to);
  tx_release(ex, t);
  return (TxVal){.kind = TV_TENSOR, .t = r};
}

bool tx_sem_truth(TxExec *ex, SrcLoc loc, TxVal v) {
  switch (v.kind) {
  case TV_NONE: return false;
  case TV_BOOL: case TV_INT: return v.i != 0;
  case TV_FLOAT: return v.f != 0;
  case TV_TUPLE: return v.tup->n != 0;
  case TV_STR: return v.s[0] != 0;
  case TV_TENSOR:
    if (v.t->ndim != 0 && v.t->numel != 1)
      tx_fail(ex, loc, "the truth value of a block with more than one element is ambiguous "
                       "(a condition must be a scalar)");
    return tx_get_f64(v.t, 0) != 0;
  default: return true;
  }
}

int64_t tx_sem_int(TxExec *ex, SrcLoc loc, TxVal v, const char *what) {
  if (v.kind == TV_INT || v.kind == TV_BOOL) return v.i;
  if (v.kind == TV_TENSOR && v.t->ndim == 0 && v.t->ptr < 0 &&
      (tx_is_int(v.t->dtype) || v.t->dtype == DT_BOOL))
    return tx_get_i64(v.t, 0);
  tx_fail(ex, loc, "%s must be an integer, got %s", what, tx_val_kind_name(v));
}
