/* The functions a kernel can call: tl.*, tl.math / libdevice, Inductor's
 * triton_helpers, tensor methods and a few Python builtins.
 *
 * One table says where each function lives (namespace bits), its
 * parameters in Python's notation, and the C function that implements it.
 * Arguments are bound to parameters here, by position and keyword, with
 * Python's error messages, so the implementations see one argument per
 * parameter (TV_UNSET where an optional one was not given). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tx/tx.h"

#define A(i) (args[i])
#define GIVEN(i) (args[i].kind != TV_UNSET && args[i].kind != TV_NONE)

static TxVal tensor_val(TxTensor *t) { return (TxVal){.kind = TV_TENSOR, .t = t}; }
static TxVal none_val(void) { return (TxVal){.kind = TV_NONE}; }

static TxTensor *need_tensor(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal v,
                             const char *what) {
  if (v.kind == TV_TENSOR) {
    tx_retain(v.t);
    return v.t;
  }
  if (tx_is_pyscalar(v)) return tx_sem_tensor(ex, loc, v);
  tx_fail(ex, loc, "%s(): %s must be a tensor, got %s", b->name, what, tx_val_kind_name(v));
}

static int64_t need_int(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal v,
                        const char *what) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s(): %s", b->name, what);
  return tx_sem_int(ex, loc, v, buf);
}

static bool need_bool(TxExec *ex, SrcLoc loc, TxVal v) {
  if (v.kind == TV_UNSET || v.kind == TV_NONE) return false;
  return tx_sem_truth(ex, loc, v);
}

/* A shape or a list of dims: a tuple of ints, or varargs collected into a
 * tuple whose single item is itself a tuple (tl.reshape(x, [a, b]) and
 * x.reshape(a, b) alike). */
static int int_list(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal v,
                    int64_t *out, const char *what) {
  if (v.kind == TV_TUPLE && v.tup->n == 1 && v.tup->items[0].kind == TV_TUPLE)
    v = v.tup->items[0];
  if (v.kind != TV_TUPLE) {
    out[0] = need_int(ex, loc, b, v, what);
    return 1;
  }
  if (v.tup->n > TX_MAX_DIMS)
    tx_fail(ex, loc, "%s(): %s has %d entries; blocks of rank above %d are not supported",
            b->name, what, v.tup->n, TX_MAX_DIMS);
  for (int i = 0; i < v.tup->n; i++) out[i] = need_int(ex, loc, b, v.tup->items[i], what);
  return v.tup->n;
}

static int norm_axis(TxExec *ex, SrcLoc loc, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim || (ndim == 0 && axis != 0))
    tx_fail(ex, loc, "invalid axis %lld. Expected %d <= axis < %d", (long long)axis, -ndim,
            ndim);
  return (int)(axis < 0 ? axis + ndim : axis);
}

/* ------------------------------------------------------------- programs */

static TxVal bi_program_id(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  int64_t axis = need_int(ex, loc, b, A(0), "axis");
  if (axis < 0 || axis > 2)
    tx_fail(ex, loc, "program_id axis must be 0, 1, or 2 but got %lld", (long long)axis);
  int64_t v = !strcmp(b->name, "program_id") ? ex->pid[axis] : ex->grid[axis];
  return tensor_val(tx_scalar_i64(ex, DT_I32, v));
}

/* ------------------------------------------------------------- creation */

static TxVal bi_arange(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  if (A(0).kind != TV_INT || A(1).kind != TV_INT)
    tx_fail(ex, loc, "arange's arguments must be of type tl.constexpr");
  int64_t s = A(0).i, e = A(1).i;
  if ((s >> 32) || (e >> 32)) tx_fail(ex, loc, "arange must fit in int32");
  if (e <= s) tx_fail(ex, loc, "arange's end argument must be greater than the start argument");
  int64_t n = e - s;
  if (n & (n - 1)) tx_fail(ex, loc, "arange's range must be a power of 2");
  tx_check_block_shape(ex, loc, 1, &n);
  TxTensor *t = tx_tensor_new(ex, DT_I32, 1, &n);
  for (int64_t i = 0; i < n; i++) ((int32_t *)t->data)[i] = (int32_t)(s + i);
  return tensor_val(t);
}

/* A block of one value: a 0-d tensor viewed with stride 0, so creating an
 * accumulator costs nothing and reading it is a broadcast. */
static TxVal splat(TxExec *ex, SrcLoc loc, TxTensor *scalar, int nd, const int64_t *shape) {
  tx_check_block_shape(ex, loc, nd, shape);
  int64_t st[TX_MAX_DIMS] = {0};
  TxTensor *v = tx_view(ex, scalar, nd, shape, st);
  return tensor_val(v);
}

static TxVal bi_full(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  bool zeros = !strcmp(b->name, "zeros");
  int64_t shape[TX_MAX_DIMS];
  int nd = int_list(ex, loc, b, A(0), shape, "shape");
  TxVal dtv = zeros ? A(1) : A(2);
  if (dtv.kind != TV_DTYPE) tx_fail(ex, loc, "%s(): dtype must be a tl dtype", b->name);
  TxVal value = zeros ? (TxVal){.kind = TV_INT, .i = 0} : A(1);
  if (!tx_is_pyscalar(value) && !(value.kind == TV_TENSOR && value.t->ndim == 0))
    tx_fail(ex, loc, "%s(): value must be a scalar", b->name);
  /* A Python number becomes the constant directly in dtype (no detour
   * through fp32); a float into an int dtype truncates. */
  TxTensor *s;
  if (tx_is_pyscalar(value) && dtype_is_float(dtv.dt)) {
    s = tx_scalar_f64(ex, dtv.dt, value.kind == TV_FLOAT ? value.f : (double)value.i);
  } else if (tx_is_pyscalar(value) && value.kind != TV_FLOAT) {
    s = tx_scalar_i64(ex, dtv.dt, value.i);
  } else {
    TxTensor *v0 = value.kind == TV_FLOAT ? tx_scalar_f64(ex, DT_F64, value.f)
                                          : tx_sem_tensor(ex, loc, value);
    s = tx_cast(ex, v0, dtv.dt);
    tx_release(ex, v0);
  }
  TxVal r = splat(ex, loc, s, nd, shape);
  tx_release(ex, s);
  return r;
}

static TxVal bi_zeros_like(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  TxTensor *s = dtype_is_float(t->dtype) ? tx_scalar_f64(ex, t->dtype, 0)
                                         : tx_scalar_i64(ex, t->dtype, 0);
  TxVal r = splat(ex, loc, s, t->ndim, t->shape);
  tx_release(ex, s);
  tx_release(ex, t);
  return r;
}

/* ----------------------------------------------------------- load/store */

static TxTensor *need_ptr(TxExec *ex, SrcLoc loc, TxVal v, const char *fn) {
  char buf[64];
  if (v.kind != TV_TENSOR || v.t->ptr < 0) {
    if (v.kind == TV_TENSOR) snprintf(buf, sizeof buf, "%s", tx_dtype_name(v.t->dtype));
    else snprintf(buf, sizeof buf, "%s", tx_val_kind_name(v));
    tx_fail(ex, loc, "Unsupported ptr type %s in `%s`", buf, fn);
  }
  return v.t;
}

static TxTensor *need_mask(TxExec *ex, SrcLoc loc, TxVal v) {
  TxTensor *m = tx_sem_tensor(ex, loc, v);
  if (m->dtype != DT_BOOL || m->ptr >= 0)
    tx_fail(ex, loc, "Mask must have boolean scalar type, got %s",
            m->ptr >= 0 ? "a pointer" : tx_dtype_name(m->dtype));
  return m;
}

static TxVal bi_load(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  TxTensor *ptr = need_ptr(ex, loc, A(0), "tl.load");
  if (GIVEN(3)) tx_fail(ex, loc, "tl.load with boundary_check (block pointers) is not supported");
  if (!GIVEN(1) && GIVEN(2)) tx_fail(ex, loc, "`other` cannot be provided without `mask`");
  TxTensor *mask = GIVEN(1) ? need_mask(ex, loc, A(1)) : NULL;
  TxTensor *other = NULL;
  DType elt = ex->args[ptr->ptr].dtype;
  if (GIVEN(2)) {
    TxTensor *o = tx_sem_tensor(ex, loc, A(2));
    other = tx_cast(ex, o, elt);
    tx_release(ex, o);
  }
  if (ptr->ndim == 0 && ((mask && mask->ndim) || (other && other->ndim)))
    tx_fail(ex, loc, "%s argument cannot be block type if pointer argument is not a block",
            mask && mask->ndim ? "Mask" : "Other");
  int nd = ptr->ndim;
  int64_t shape[TX_MAX_DIMS];
  memcpy(shape, ptr->shape, sizeof(int64_t) * (size_t)nd);
  if (mask) tx_broadcast_shape(ex, loc, nd, shape, mask->ndim, mask->shape, &nd, shape);
  if (other) tx_broadcast_shape(ex, loc, nd, shape, other->ndim, other->shape, &nd, shape);
  TxTensor *r = tx_k_load(ex, loc, ptr, mask, other, nd, shape);
  if (mask) tx_release(ex, mask);
  if (other) tx_release(ex, other);
  return tensor_val(r);
}

/* broadcast_tensors(ptr, val, mask) of a store or an atomic, whose pointer
 * must not grow: true where it would; *nd and shape get the broadcast
 * shape. */
static bool pointer_grows(TxExec *ex, SrcLoc loc, const TxTensor *ptr, const TxTensor *val, const TxTensor *mask,
                          int *nd, int64_t *shape) {
  *nd = ptr->ndim;
  memcpy(shape, ptr->shape, sizeof(int64_t) * (size_t)*nd);
  tx_broadcast_shape(ex, loc, *nd, shape, val->ndim, val->shape, nd, shape);
  if (mask) tx_broadcast_shape(ex, loc, *nd, shape, mask->ndim, mask->shape, nd, shape);
  bool grew = *nd != ptr->ndim;
  for (int d = 0; d < *nd && !grew; d++) grew = shape[d] != ptr->shape[d];
  return grew;
}

static TxVal bi_store(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  TxTensor *ptr = need_ptr(ex, loc, A(0), "tl.store");
  if (GIVEN(3)) tx_fail(ex, loc, "tl.store with boundary_check (block pointers) is not supported");
  TxTensor *val = tx_sem_tensor(ex, loc, A(1));
  if (val->ptr >= 0) tx_fail(ex, loc, "storing pointers is not supported");
  TxTensor *mask = GIVEN(2) ? need_mask(ex, loc, A(2)) : NULL;
  if (ptr->ndim == 0 && val->ndim)
    tx_fail(ex, loc, "Value argument cannot be block type if pointer argument is not a block");
  if (ptr->ndim == 0 && mask && mask->ndim)
    tx_fail(ex, loc, "Mask argument cannot be block type if pointer argument is not a block");
  int nd;
  int64_t shape[TX_MAX_DIMS];
  if (pointer_grows(ex, loc, ptr, val, mask, &nd, shape)) {
    char s1[128], s2[128];
    tx_fmt_shape(s1, sizeof s1, nd, shape);
    tx_fmt_shape(s2, sizeof s2, ptr->ndim, ptr->shape);
    tx_fail(ex, loc, "Expected pointer argument to have shape %s but got %s", s1, s2);
  }
  TxTensor *v = tx_cast(ex, val, ex->args[ptr->ptr].dtype);
  tx_k_store(ex, loc, ptr, v, mask);
  tx_release(ex, v);
  tx_release(ex, val);
  if (mask) tx_release(ex, mask);
  return none_val();
}

/* tl.atomic_add(pointer, val, mask=, sem=, scope=): the pointer's shape
 * (val and mask broadcast to it); every memory order is this executor's
 * one order, lanes in turn. */
static TxVal bi_atomic_add(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  TxTensor *ptr = need_ptr(ex, loc, A(0), "tl.atomic_add");
  TxTensor *val = tx_sem_tensor(ex, loc, A(1));
  if (val->ptr >= 0) tx_fail(ex, loc, "tl.atomic_add of pointers is not supported");
  TxTensor *mask = GIVEN(2) ? need_mask(ex, loc, A(2)) : NULL;
  int nd;
  int64_t shape[TX_MAX_DIMS];
  if (pointer_grows(ex, loc, ptr, val, mask, &nd, shape))
    tx_fail(ex, loc, "tl.atomic_add: the value and mask must broadcast to the pointer's shape");
  DType dt = ex->args[ptr->ptr].dtype;
  if (!(dt == DT_F32 || dt == DT_F64 || dt == DT_BF16 || dt == DT_F16 || dt == DT_I32 || dt == DT_I64))
    tx_fail(ex, loc, "tl.atomic_add of %s is not supported", tx_dtype_name(dt));
  TxTensor *v = tx_cast(ex, val, dt);
  TxTensor *r = tx_k_atomic_add(ex, loc, ptr, v, mask);
  tx_release(ex, v);
  tx_release(ex, val);
  if (mask) tx_release(ex, mask);
  return tensor_val(r);
}

/* ------------------------------------------------------------- elementwise */

static TxVal bi_where(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  return tx_sem_where(ex, loc, A(0), A(1), A(2));
}

/* tl.PropagateNan's members, Triton's values. */
enum { PROPAGATE_NAN_NONE = 0, PROPAGATE_NAN_ALL = 0xffff };

/* tl.maximum and tl.minimum: NaNs dropped (Triton's default, maxnum), or
 * with propagate_nan=tl.PropagateNan.ALL a NaN in either operand gives NaN
 * (the GPU dialect's amax, coil_max_nan): then where(x != x | y != y, x + y,
 * max(x, y)), x + y being that NaN. */
static TxVal bi_minmax2(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxVal m = tx_sem_binary(ex, loc, (TxOp)b->arg, A(0), A(1));
  if (!GIVEN(2)) return m;
  int64_t mode = need_int(ex, loc, b, A(2), "propagate_nan must be a tl.PropagateNan");
  if (mode == PROPAGATE_NAN_NONE) return m;
  if (mode != PROPAGATE_NAN_ALL) tx_fail(ex, loc, "%s(): propagate_nan=%lld is not a tl.PropagateNan", b->name, (long long)mode);
  if (m.kind != TV_FLOAT && !(m.kind == TV_TENSOR && dtype_is_float(m.t->dtype))) return m; /* integers have no NaN */
  TxVal xn = tx_sem_binary(ex, loc, TXO_NE, A(0), A(0)), yn = tx_sem_binary(ex, loc, TXO_NE, A(1), A(1));
  TxVal nan = tx_sem_binary(ex, loc, TXO_OR, xn, yn), sum = tx_sem_binary(ex, loc, TXO_ADD, A(0), A(1));
  TxVal r = tx_sem_where(ex, loc, nan, sum, m);
  tx_val_release(ex, xn);
  tx_val_release(ex, yn);
  tx_val_release(ex, nan);
  tx_val_release(ex, sum);
  tx_val_release(ex, m);
  return r;
}

/* Python's min/max: over Python numbers, Python's; with a tensor among
 * them, tl.minimum/tl.maximum folded left to right. */
static TxVal bi_pyminmax(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxVal items = A(0);
  if (items.tup->n == 1 && items.tup->items[0].kind == TV_TUPLE) items = items.tup->items[0];
  if (items.tup->n == 0) tx_fail(ex, loc, "%s expected at least 1 argument, got 0", b->name);
  TxVal acc = tx_val_retain(items.tup->items[0]);
  for (int i = 1; i < items.tup->n; i++) {
    TxVal r = tx_sem_binary(ex, loc, (TxOp)b->arg, acc, items.tup->items[i]);
    tx_val_release(ex, acc);
    acc = r;
  }
  return acc;
}

static TxVal bi_clamp(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  TxVal lo = tx_sem_binary(ex, loc, TXO_MAX, A(0), A(1));
  TxVal r = tx_sem_binary(ex, loc, TXO_MIN, lo, A(2));
  tx_val_release(ex, lo);
  return r;
}

static TxVal bi_fdiv(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  bool fa = A(0).kind == TV_FLOAT || (A(0).kind == TV_TENSOR && dtype_is_float(A(0).t->dtype));
  bool fb = A(1).kind == TV_FLOAT || (A(1).kind == TV_TENSOR && dtype_is_float(A(1).t->dtype));
  if (!fa && !fb) tx_fail(ex, loc, "%s requires floating-point operands after type promotion", b->name);
  return tx_sem_binary(ex, loc, TXO_DIV, A(0), A(1));
}

static TxVal bi_cdiv(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  TxVal s = tx_sem_binary(ex, loc, TXO_ADD, A(0), A(1));
  TxVal one = {.kind = TV_INT, .i = 1};
  TxVal s1 = tx_sem_binary(ex, loc, TXO_SUB, s, one);
  TxVal r = tx_sem_binary(ex, loc, TXO_FLOORDIV, s1, A(1));
  tx_val_release(ex, s);
  tx_val_release(ex, s1);
  return r;
}

static TxVal bi_math(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  return tx_sem_math(ex, loc, b->name, (TxMath)b->arg, A(0));
}

static TxVal bi_math2(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  return tx_sem_math2(ex, loc, b->name, (TxMath)b->arg, A(0), A(1));
}

static TxVal bi_isclass(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "x");
  if (!dtype_is_float(t->dtype))
    tx_fail(ex, loc, "%s: Expected a float tensor but got %s", b->name, tx_dtype_name(t->dtype));
  TxTensor *f = tx_cast(ex, t, t->dtype == DT_F64 ? DT_F64 : DT_F32);
  TxTensor *r = tx_k_isclass(ex, b->arg, f);
  /* libdevice's isnan/isinf/isfinited return int32 */
  TxTensor *i = tx_cast(ex, r, DT_I32);
  tx_release(ex, t);
  tx_release(ex, f);
  tx_release(ex, r);
  return tensor_val(i);
}

static TxVal bi_fma(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t[3];
  DType ct = DT_F32;
  for (int i = 0; i < 3; i++) {
    t[i] = need_tensor(ex, loc, b, A(i), "operand");
    if (!dtype_is_float(t[i]->dtype))
      tx_fail(ex, loc, "fma: Expected dtype ['fp32', 'fp64'] but got %s", tx_dtype_name(t[i]->dtype));
    if (t[i]->dtype == DT_F64) ct = DT_F64;
  }
  int nd = 0;
  int64_t shape[TX_MAX_DIMS];
  TxTensor *c[3];
  for (int i = 0; i < 3; i++) {
    tx_broadcast_shape(ex, loc, nd, shape, t[i]->ndim, t[i]->shape, &nd, shape);
    c[i] = tx_cast(ex, t[i], ct);
  }
  TxTensor *r = tx_k_fma(ex, c[0], c[1], c[2], nd, shape);
  for (int i = 0; i < 3; i++) {
    tx_release(ex, t[i]);
    tx_release(ex, c[i]);
  }
  return tensor_val(r);
}

static TxVal bi_cast(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  if (A(1).kind != TV_DTYPE) tx_fail(ex, loc, "%s(): dtype must be a tl dtype, got %s", b->name,
                                     tx_val_kind_name(A(1)));
  return tx_sem_cast(ex, loc, A(0), A(1).dt, need_bool(ex, loc, A(3)));
}

/* ------------------------------------------------------------ reductions */

static TxVal bi_reduce(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxRed r = (TxRed)b->arg;
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  if (t->ptr >= 0) tx_fail(ex, loc, "%s(): cannot reduce a block of pointers", b->name);
  bool arg = r == R_ARGMAX || r == R_ARGMIN;
  int axis = -1;
  if (GIVEN(1)) axis = norm_axis(ex, loc, need_int(ex, loc, b, A(1), "axis"), t->ndim);
  else if (arg) tx_fail(ex, loc, "%s(): axis is required", b->name);
  /* keep_dims is parameter 4 of max/min, 3 of argmax/argmin, 2 of sum. */
  int kd = r == R_SUM ? 2 : arg ? 3 : 4;
  bool keep = need_bool(ex, loc, A(kd));
  bool want_idx = (r == R_MAX || r == R_MIN) && need_bool(ex, loc, A(2));
  DType in = t->dtype, acc;
  if (r == R_SUM) {
    if (GIVEN(3)) {
      if (A(3).kind != TV_DTYPE) tx_fail(ex, loc, "sum(): dtype must be a tl dtype");
      in = A(3).dt;
    }
    /* Sums of small ints go to int32 (Triton); f16/bf16 accumulate and
     * return in fp32. */
    acc = in == DT_BOOL ? DT_I32 : (in == DT_F16 || in == DT_BF16) ? DT_F32 : in;
  } else {
    acc = in == DT_BOOL ? DT_I32 : (in == DT_F16 || in == DT_BF16) ? DT_F32 : in;
  }
  if (t->ndim == 0) {
    /* A 0-d input: the reduction is the value itself. */
    TxTensor *c = tx_cast(ex, t, r == R_SUM ? acc : (arg ? DT_I32 : in));
    if (arg) {
      tx_release(ex, c);
      c = tx_scalar_i64(ex, DT_I32, 0);
    }
    tx_release(ex, t);
    return tensor_val(c);
  }
  TxTensor *c = tx_cast(ex, t, acc);
  if (want_idx) {
    TxTensor *v = tx_k_reduce(ex, r, c, axis < 0 ? 0 : axis, keep);
    TxTensor *ix = tx_k_reduce(ex, r == R_MAX ? R_ARGMAX : R_ARGMIN, c, axis < 0 ? 0 : axis, keep);
    TxTensor *vo = tx_cast(ex, v, in);
    tx_release(ex, v);
    tx_release(ex, c);
    tx_release(ex, t);
    TxTuple *tup = tx_tuple_new(ex, 2);
    tup->items[0] = tensor_val(vo);
    tup->items[1] = tensor_val(ix);
    return (TxVal){.kind = TV_TUPLE, .tup = tup};
  }
  TxTensor *red = tx_k_reduce(ex, r, c, axis, keep);
  TxTensor *out = (r == R_SUM || arg) ? (tx_retain(red), red) : tx_cast(ex, red, in);
  tx_release(ex, red);
  tx_release(ex, c);
  tx_release(ex, t);
  return tensor_val(out);
}

/* tl.reduce(input, axis, combine_fn, keep_dims): input is a block or a
 * tuple of blocks of one shape; combine_fn takes two sets of values and
 * returns one.  Tile at a time, as a tree: the combine function gets the
 * lower and the upper halves of the reduced axis (lane j with lane
 * j + n/2), so a reduction over n lanes is log2(n) calls on blocks.  This
 * is the pairing of a GPU's butterfly reduction; like Triton, it assumes
 * the combine function is associative and commutative. */
static TxTensor *half(TxExec *ex, TxTensor *t, int axis, bool upper) {
  int64_t shape[TX_MAX_DIMS];
  memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
  int64_t h = shape[axis] / 2;
  shape[axis] = h;
  TxTensor *v = tx_view(ex, t, t->ndim, shape, t->stride);
  if (upper) v->data += h * t->stride[axis] * tx_dtype_size(t->dtype);
  return v;
}

static TxVal bi_user_reduce(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *cur[TX_MAX_TUPLE / 2];
  int k;
  bool tuple = A(0).kind == TV_TUPLE;
  if (tuple) {
    k = A(0).tup->n;
    if (k == 0 || k > TX_MAX_TUPLE / 2) tx_fail(ex, loc, "reduce: 1 to %d inputs", TX_MAX_TUPLE / 2);
    for (int i = 0; i < k; i++) cur[i] = need_tensor(ex, loc, b, A(0).tup->items[i], "input");
  } else {
    k = 1;
    cur[0] = need_tensor(ex, loc, b, A(0), "input");
  }
  for (int i = 1; i < k; i++)
    if (cur[i]->ndim != cur[0]->ndim ||
        memcmp(cur[i]->shape, cur[0]->shape, sizeof(int64_t) * (size_t)cur[0]->ndim))
      tx_fail(ex, loc, "reduce: all inputs must have the same shape");
  if (A(2).kind != TV_FUNC && A(2).kind != TV_BUILTIN)
    tx_fail(ex, loc, "reduce: combine_fn must be a function, got %s", tx_val_kind_name(A(2)));
  int axis;
  if (!GIVEN(1)) {
    /* axis None: over every element */
    for (int i = 0; i < k; i++) {
      TxTensor *c = tx_contiguous(ex, cur[i]);
      int64_t n = c->numel, st = 1;
      TxTensor *flat = tx_view(ex, c, 1, &n, &st);
      tx_release(ex, c);
      tx_release(ex, cur[i]);
      cur[i] = flat;
    }
    axis = 0;
  } else {
    axis = norm_axis(ex, loc, need_int(ex, loc, b, A(1), "axis"), cur[0]->ndim);
  }
  if (cur[0]->ndim == 0) tx_fail(ex, loc, "reduce: cannot reduce a scalar");
  while (cur[0]->shape[axis] > 1) {
    TxVal cargs[TX_MAX_TUPLE];
    for (int i = 0; i < k; i++) {
      cargs[i] = tensor_val(half(ex, cur[i], axis, false));
      cargs[k + i] = tensor_val(half(ex, cur[i], axis, true));
    }
    TxVal r = tx_call(ex, loc, A(2), cargs, 2 * k);
    for (int i = 0; i < 2 * k; i++) tx_val_release(ex, cargs[i]);
    int64_t want = cur[0]->shape[axis] / 2;
    for (int i = 0; i < k; i++) {
      TxVal ri = tuple ? (r.kind == TV_TUPLE && r.tup->n == k ? r.tup->items[i] : (TxVal){0}) : r;
      if (tuple && r.kind != TV_TUPLE)
        tx_fail(ex, loc, "reduce: combine_fn must return a tuple of %d values", k);
      TxTensor *t = need_tensor(ex, loc, b, ri, "the combined value");
      if (t->ndim != cur[i]->ndim || t->shape[axis] != want) {
        /* A combine function may return a scalar: broadcast it. */
        int64_t shape[TX_MAX_DIMS];
        memcpy(shape, cur[i]->shape, sizeof(int64_t) * (size_t)cur[i]->ndim);
        shape[axis] = want;
        int nd;
        int64_t bs[TX_MAX_DIMS];
        tx_broadcast_shape(ex, loc, cur[i]->ndim, shape, t->ndim, t->shape, &nd, bs);
        TxTensor *v = tx_broadcast_view(ex, t, cur[i]->ndim, shape);
        tx_release(ex, t);
        t = v;
      }
      tx_release(ex, cur[i]);
      cur[i] = t;
    }
    tx_val_release(ex, r);
  }
  bool keep = need_bool(ex, loc, A(3));
  for (int i = 0; i < k && !keep; i++) {
    int64_t shape[TX_MAX_DIMS], st[TX_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < cur[i]->ndim; d++)
      if (d != axis) {
        shape[nd] = cur[i]->shape[d];
        st[nd++] = cur[i]->stride[d];
      }
    TxTensor *v = tx_view(ex, cur[i], nd, shape, st);
    tx_release(ex, cur[i]);
    cur[i] = v;
  }
  if (!tuple) return tensor_val(cur[0]);
  TxTuple *tup = tx_tuple_new(ex, k);
  for (int i = 0; i < k; i++) tup->items[i] = tensor_val(cur[i]);
  return (TxVal){.kind = TV_TUPLE, .tup = tup};
}

/* ----------------------------------------------------------------- shapes */

static TxVal bi_reshape(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  int64_t shape[TX_MAX_DIMS];
  int nd;
  if (!strcmp(b->name, "ravel")) {
    nd = 1;
    shape[0] = t->numel;
  } else {
    nd = int_list(ex, loc, b, A(1), shape, "shape");
  }
  int64_t numel = 1;
  for (int d = 0; d < nd; d++) numel *= shape[d];
  if (numel != t->numel)
    tx_fail(ex, loc, "reshape() cannot change total number of elements in tensor");
  tx_check_block_shape(ex, loc, nd, shape);
  if (tx_is_splat(t)) {
    /* One value over any shape: no copy. */
    TxTensor *r = tx_view(ex, t, 0, NULL, NULL);
    TxTensor *v = tx_broadcast_view(ex, r, nd, shape);
    tx_release(ex, r);
    tx_release(ex, t);
    return tensor_val(v);
  }
  TxTensor *c = tx_contiguous(ex, t);
  int64_t st[TX_MAX_DIMS], s = 1;
  for (int d = nd - 1; d >= 0; d--) {
    st[d] = s;
    s *= shape[d];
  }
  TxTensor *r = tx_view(ex, c, nd, shape, st);
  tx_release(ex, c);
  tx_release(ex, t);
  return tensor_val(r);
}

static TxTensor *permute(TxExec *ex, SrcLoc loc, TxTensor *t, int n, const int64_t *dims) {
  if (n != t->ndim)
    tx_fail(ex, loc, "permute dims must have the same length as input shape, got %d and %d",
            t->ndim, n);
  bool seen[TX_MAX_DIMS] = {0};
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= n || seen[dims[i]]) {
      char buf[128];
      tx_fmt_shape(buf, sizeof buf, n, dims);
      tx_fail(ex, loc, "permute dims must be a permutation of 0, 1, ..., n-1, but were %s", buf);
    }
    seen[dims[i]] = true;
  }
  int64_t shape[TX_MAX_DIMS], st[TX_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    shape[i] = t->shape[dims[i]];
    st[i] = t->stride[dims[i]];
  }
  return tx_view(ex, t, n, shape, st);
}

static TxVal bi_permute(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  int64_t dims[TX_MAX_DIMS];
  int n;
  bool trans = !strcmp(b->name, "trans");
  if (trans && (A(1).kind != TV_TUPLE || A(1).tup->n == 0)) {
    n = 2;
    dims[0] = 1;
    dims[1] = 0;
  } else {
    n = int_list(ex, loc, b, A(1), dims, "dims");
  }
  TxTensor *r = permute(ex, loc, t, n, dims);
  tx_release(ex, t);
  return tensor_val(r);
}

static TxTensor *broadcast_to(TxExec *ex, SrcLoc loc, TxTensor *t, int nd,
                              const int64_t *shape) {
  char s1[128], s2[128];
  if (t->ndim == 0) {
    tx_check_block_shape(ex, loc, nd, shape);
    int64_t st[TX_MAX_DIMS] = {0};
    return tx_view(ex, t, nd, shape, st);
  }
  tx_fmt_shape(s1, sizeof s1, t->ndim, t->shape);
  tx_fmt_shape(s2, sizeof s2, nd, shape);
  if (t->ndim != nd) tx_fail(ex, loc, "Cannot broadcast, rank mismatch: %s, %s", s1, s2);
  for (int d = 0; d < nd; d++)
    if (shape[d] != t->shape[d] && t->shape[d] != 1)
      tx_fail(ex, loc,
              "Cannot broadcast, the expanded size of the tensor (%lld) must match the "
              "existing size (%lld) at non-singleton dimension %d: %s, %s",
              (long long)shape[d], (long long)t->shape[d], d, s1, s2);
  tx_check_block_shape(ex, loc, nd, shape);
  int64_t st[TX_MAX_DIMS];
  for (int d = 0; d < nd; d++) st[d] = t->shape[d] == 1 ? 0 : t->stride[d];
  return tx_view(ex, t, nd, shape, st);
}

static TxVal bi_broadcast_to(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  int64_t shape[TX_MAX_DIMS];
  int nd = int_list(ex, loc, b, A(1), shape, "shape");
  TxTensor *r = broadcast_to(ex, loc, t, nd, shape);
  tx_release(ex, t);
  return tensor_val(r);
}

static TxVal bi_broadcast(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *x = need_tensor(ex, loc, b, A(0), "input");
  TxTensor *y = need_tensor(ex, loc, b, A(1), "other");
  int nd;
  int64_t shape[TX_MAX_DIMS];
  tx_broadcast_shape(ex, loc, x->ndim, x->shape, y->ndim, y->shape, &nd, shape);
  TxTuple *tup = tx_tuple_new(ex, 2);
  TxTensor *src[2] = {x, y};
  for (int i = 0; i < 2; i++) {
    TxTensor *t = src[i];
    int64_t st[TX_MAX_DIMS] = {0};
    for (int d = 0; d < t->ndim; d++) st[d + nd - t->ndim] = t->stride[d];
    int64_t sh[TX_MAX_DIMS];
    for (int d = 0; d < nd; d++) sh[d] = d < nd - t->ndim ? 1 : t->shape[d - (nd - t->ndim)];
    TxTensor *e = tx_view(ex, t, nd, sh, st);
    tup->items[i] = tensor_val(broadcast_to(ex, loc, e, nd, shape));
    tx_release(ex, e);
    tx_release(ex, t);
  }
  return (TxVal){.kind = TV_TUPLE, .tup = tup};
}

static TxVal bi_expand_dims(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *t = need_tensor(ex, loc, b, A(0), "input");
  int64_t axes[TX_MAX_DIMS];
  int na = int_list(ex, loc, b, A(1), axes, "axis");
  int nd = t->ndim + na;
  if (nd > TX_MAX_DIMS) tx_fail(ex, loc, "expand_dims: rank %d is above %d", nd, TX_MAX_DIMS);
  bool is_new[TX_MAX_DIMS] = {0};
  for (int i = 0; i < na; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + nd : axes[i];
    if (a < 0 || a >= nd || is_new[a]) tx_fail(ex, loc, "invalid axis %lld", (long long)axes[i]);
    is_new[a] = true;
  }
  int64_t shape[TX_MAX_DIMS], st[TX_MAX_DIMS];
  for (int d = 0, k = 0; d < nd; d++) {
    if (is_new[d]) {
      shape[d] = 1;
      st[d] = 0;
    } else {
      shape[d] = t->shape[k];
      st[d] = t->stride[k];
      k++;
    }
  }
  TxTensor *r = tx_view(ex, t, nd, shape, st);
  tx_release(ex, t);
  return tensor_val(r);
}

/* ------------------------------------------------------------ assertions */

static void print_val(TxExec *ex, StrBuf *sb, TxVal v) {
  switch (v.kind) {
  case TV_STR: sb_puts(sb, v.s); break;
  case TV_INT: sb_printf(sb, "%lld", (long long)v.i); break;
  case TV_BOOL: sb_puts(sb, v.i ? "True" : "False"); break;
  case TV_FLOAT: sb_printf(sb, "%.9g", v.f); break;
  case TV_NONE: sb_puts(sb, "None"); break;
  case TV_DTYPE: sb_printf(sb, "%s", tx_dtype_name(v.dt)); break;
  case TV_TUPLE:
    sb_puts(sb, "(");
    for (int i = 0; i < v.tup->n; i++) {
      if (i) sb_puts(sb, ", ");
      print_val(ex, sb, v.tup->items[i]);
    }
    sb_puts(sb, ")");
    break;
  case TV_TENSOR: {
    char shp[128];
    tx_fmt_shape(shp, sizeof shp, v.t->ndim, v.t->shape);
    if (v.t->ndim) sb_printf(sb, "%s%s[", tx_dtype_name(v.t->dtype), shp);
    int64_t n = v.t->numel < 64 ? v.t->numel : 64;
    for (int64_t i = 0; i < n; i++) {
      if (i) sb_puts(sb, ", ");
      if (dtype_is_float(v.t->dtype)) sb_printf(sb, "%.9g", tx_get_f64(v.t, i));
      else sb_printf(sb, "%lld", (long long)tx_get_i64(v.t, i));
    }
    if (v.t->numel > n) sb_puts(sb, ", ...");
    if (v.t->ndim) sb_puts(sb, "]");
    break;
  }
  default: sb_puts(sb, tx_val_kind_name(v)); break;
  }
}

static TxVal bi_print(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)loc;
  (void)b;
  StrBuf sb = {0};
  sb_printf(&sb, "pid (%lld, %lld, %lld) ", (long long)ex->pid[0], (long long)ex->pid[1],
            (long long)ex->pid[2]);
  for (int i = 0; i < A(0).tup->n; i++) {
    if (i) sb_puts(&sb, " ");
    print_val(ex, &sb, A(0).tup->items[i]);
  }
  fprintf(stderr, "%s\n", sb.data);
  sb_free(&sb);
  return none_val();
}

static TxVal bi_static_assert(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  if (!tx_sem_truth(ex, loc, A(0)))
    tx_fail(ex, loc, "static_assert failed: %s", A(1).kind == TV_STR ? A(1).s : "");
  return none_val();
}

static TxVal bi_device_assert(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxTensor *c = need_tensor(ex, loc, b, A(0), "cond");
  TxTensor *m = GIVEN(2) ? need_mask(ex, loc, A(2)) : NULL;
  for (int64_t i = 0; i < c->numel; i++) {
    bool on = !m || tx_get_i64(m, m->numel == 1 ? 0 : i) != 0;
    if (on && tx_get_f64(c, i) == 0) {
      char at[200] = "", ix[100];
      if (c->ndim) {
        tx_fmt_index(ix, sizeof ix, i, c->ndim, c->shape);
        snprintf(at, sizeof at, " at index %s", ix);
      }
      tx_fail(ex, loc, "Device-side assertion failed: %s%s (program (%lld, %lld, %lld))",
              A(1).kind == TV_STR ? A(1).s : "", at, (long long)ex->pid[0],
              (long long)ex->pid[1], (long long)ex->pid[2]);
    }
  }
  tx_release(ex, c);
  if (m) tx_release(ex, m);
  return none_val();
}

/* ---------------------------------------------------------------- misc */

static TxVal bi_identity(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)ex;
  (void)loc;
  (void)b;
  return tx_val_retain(A(0));
}

static TxVal bi_to_tensor(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  return tensor_val(tx_sem_tensor(ex, loc, A(0)));
}

static TxVal bi_none(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)ex;
  (void)loc;
  (void)b;
  (void)args;
  return none_val();
}

static TxVal bi_not_here(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)args;
  if (!strcmp(b->name, "jit")) tx_fail(ex, loc, "triton.jit cannot be called inside a kernel");
  tx_fail(ex, loc, "%s() can only be used as the iterator of a for loop", b->name);
}

static TxVal bi_next_pow2(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  int64_t n = need_int(ex, loc, b, A(0), "n"), p = 1;
  while (p < n) p <<= 1;
  return (TxVal){.kind = TV_INT, .i = p};
}

static TxVal bi_len(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  if (A(0).kind == TV_TUPLE) return (TxVal){.kind = TV_INT, .i = A(0).tup->n};
  if (A(0).kind == TV_TENSOR && A(0).t->ndim)
    return (TxVal){.kind = TV_INT, .i = A(0).t->shape[0]};
  tx_fail(ex, loc, "object of type '%s' has no len()", tx_val_kind_name(A(0)));
}

static TxVal bi_pyconv(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  TxVal v = A(0);
  if (v.kind == TV_STR && !strcmp(b->name, "float")) {
    /* float("inf"), float("-inf"), float("nan"): Inductor writes these */
    const char *s = v.s + (v.s[0] == '-' || v.s[0] == '+');
    double x = !strcmp(s, "inf") || !strcmp(s, "infinity") ? INFINITY : !strcmp(s, "nan") ? NAN : 0;
    if (x == 0) {
      char *end;
      x = strtod(v.s, &end);
      if (!*v.s || *end) tx_fail(ex, loc, "could not convert string to float: '%s'", v.s);
      return (TxVal){.kind = TV_FLOAT, .f = x};
    }
    return (TxVal){.kind = TV_FLOAT, .f = v.s[0] == '-' ? -x : x};
  }
  if (!tx_is_pyscalar(v))
    tx_fail(ex, loc, "%s() of a %s is not supported in a kernel (only of Python numbers)",
            b->name, tx_val_kind_name(v));
  double f = v.kind == TV_FLOAT ? v.f : (double)v.i;
  if (!strcmp(b->name, "float")) return (TxVal){.kind = TV_FLOAT, .f = f};
  if (!strcmp(b->name, "bool")) return (TxVal){.kind = TV_BOOL, .i = f != 0};
  if (v.kind != TV_FLOAT) return (TxVal){.kind = TV_INT, .i = v.i};
  if (!(fabs(f) < 9.2e18)) tx_fail(ex, loc, "cannot convert float %g to integer", f);
  return (TxVal){.kind = TV_INT, .i = (int64_t)f};
}

static TxVal bi_abs(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args) {
  (void)b;
  return tx_sem_math(ex, loc, "abs", M_ABS, A(0));
}

/* ------------------------------------------------------------------ table */

#define TL NS_TL
#define MA NS_MATH
#define ME NS_METHOD
#define PY NS_PY
#define HE NS_HELPERS
#define TR NS_TRITON

static const TxBuiltin builtins[] = {
    {"program_id", TL, "axis", bi_program_id, 0},
    {"num_programs", TL, "axis", bi_program_id, 0},
    {"arange", TL, "start,end", bi_arange, 0},
    {"full", TL, "shape,value,dtype", bi_full, 0},
    {"zeros", TL, "shape,dtype", bi_full, 0},
    {"zeros_like", TL, "input", bi_zeros_like, 0},
    {"load", TL, "pointer,mask=,other=,boundary_check=,padding_option=,cache_modifier=,"
                 "eviction_policy=,volatile=", bi_load, 0},
    {"store", TL, "pointer,value,mask=,boundary_check=,cache_modifier=,eviction_policy=",
     bi_store, 0},
    {"atomic_add", TL, "pointer,val,mask=,sem=,scope=", bi_atomic_add, 0},
    {"where", TL, "condition,x,y", bi_where, 0},
    {"maximum", TL | MA | HE, "x,y,propagate_nan=", bi_minmax2, TXO_MAX},
    {"minimum", TL | MA | HE, "x,y,propagate_nan=", bi_minmax2, TXO_MIN},
    {"fmax", MA, "x,y", bi_minmax2, TXO_MAX},
    {"fmin", MA, "x,y", bi_minmax2, TXO_MIN},
    {"clamp", TL, "x,min,max,propagate_nan=", bi_clamp, 0},
    {"fdiv", TL | MA, "x,y,ieee_rounding=,approx=", bi_fdiv, 0},
    {"div_rn", TL | MA, "x,y", bi_fdiv, 0},
    {"cdiv", TL | MA | TR, "x,div", bi_cdiv, 0},
    {"fma", TL | MA, "x,y,z", bi_fma, 0},
    {"sum", TL | ME, "input,axis=,keep_dims=,dtype=", bi_reduce, R_SUM},
    {"max", TL | ME, "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=",
     bi_reduce, R_MAX},
    {"min", TL | ME, "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=",
     bi_reduce, R_MIN},
    {"argmax", TL | ME, "input,axis,tie_break_left=,keep_dims=", bi_reduce, R_ARGMAX},
    {"argmin", TL | ME, "input,axis,tie_break_left=,keep_dims=", bi_reduce, R_ARGMIN},
    {"reduce", TL | ME, "input,axis,combine_fn,keep_dims=", bi_user_reduce, 0},
    {"max2", HE, "input,axis", bi_reduce, R_MAX},
    {"min2", HE, "input,axis", bi_reduce, R_MIN},
    {"reshape", TL | ME, "input,*shape,can_reorder=", bi_reshape, 0},
    {"view", TL | ME, "input,*shape", bi_reshape, 0},
    {"ravel", TL | ME, "x,can_reorder=", bi_reshape, 0},
    {"permute", TL | ME, "input,*dims", bi_permute, 0},
    {"trans", TL | ME, "input,*dims", bi_permute, 0},
    {"broadcast_to", TL | ME, "input,*shape", bi_broadcast_to, 0},
    {"broadcast", TL, "input,other", bi_broadcast, 0},
    {"expand_dims", TL | ME, "input,axis", bi_expand_dims, 0},
    {"cast", TL, "input,dtype,fp_downcast_rounding=,bitcast=", bi_cast, 0},
    {"to", ME, "input,dtype,fp_downcast_rounding=,bitcast=", bi_cast, 0},
    /* math in tl and tl.math */
    {"exp", TL | MA | ME, "x", bi_math, M_EXP},
    {"exp2", TL | MA | ME, "x", bi_math, M_EXP2},
    {"log", TL | MA | ME, "x", bi_math, M_LOG},
    {"log2", TL | MA | ME, "x", bi_math, M_LOG2},
    {"cos", TL | MA | ME, "x", bi_math, M_COS},
    {"sin", TL | MA | ME, "x", bi_math, M_SIN},
    {"sqrt", TL | MA | ME, "x", bi_math, M_SQRT},
    {"sqrt_rn", TL | MA | ME, "x", bi_math, M_SQRT},
    {"rsqrt", TL | MA | ME, "x", bi_math, M_RSQRT},
    {"abs", TL | MA | ME, "x", bi_math, M_ABS},
    {"erf", TL | MA | ME, "x", bi_math, M_ERF},
    {"floor", TL | MA | ME, "x", bi_math, M_FLOOR},
    {"ceil", TL | MA | ME, "x", bi_math, M_CEIL},
    {"sigmoid", TL | MA | ME, "x", bi_math, M_SIGMOID},
    /* libdevice and Inductor's tl_math */
    {"log10", MA, "x", bi_math, M_LOG10},
    {"log1p", MA, "x", bi_math, M_LOG1P},
    {"expm1", MA, "x", bi_math, M_EXPM1},
    {"fabs", MA, "x", bi_math, M_ABS},
    {"tan", MA, "x", bi_math, M_TAN},
    {"tanh", MA, "x", bi_math, M_TANH},
    {"sinh", MA, "x", bi_math, M_SINH},
    {"cosh", MA, "x", bi_math, M_COSH},
    {"asin", MA, "x", bi_math, M_ASIN},
    {"acos", MA, "x", bi_math, M_ACOS},
    {"atan", MA, "x", bi_math, M_ATAN},
    {"asinh", MA, "x", bi_math, M_ASINH},
    {"acosh", MA, "x", bi_math, M_ACOSH},
    {"atanh", MA, "x", bi_math, M_ATANH},
    {"erfc", MA, "x", bi_math, M_ERFC},
    {"trunc", MA, "x", bi_math, M_TRUNC},
    {"rint", MA, "x", bi_math, M_RINT},
    {"nearbyint", MA, "x", bi_math, M_RINT},
    {"round", MA, "x", bi_math, M_ROUND},
    {"rcp", MA, "x", bi_math, M_RCP},
    {"cbrt", MA, "x", bi_math, M_CBRT},
    {"lgamma", MA, "x", bi_math, M_LGAMMA},
    {"erfinv", MA, "x", bi_math, M_ERFINV},
    {"pow", MA, "x,y", bi_math2, M_POW},
    {"atan2", MA, "x,y", bi_math2, M_ATAN2},
    {"fmod", MA, "x,y", bi_math2, M_FMOD},
    {"hypot", MA, "x,y", bi_math2, M_HYPOT},
    {"copysign", MA, "x,y", bi_math2, M_COPYSIGN},
    {"isnan", MA, "x", bi_isclass, 0},
    {"isinf", MA, "x", bi_isclass, 1},
    {"isfinited", MA, "x", bi_isclass, 2},
    {"finitef", MA, "x", bi_isclass, 2},
    /* assertions, printing, hints */
    {"static_assert", TL, "cond,msg=", bi_static_assert, 0},
    {"device_assert", TL, "cond,msg=,mask=", bi_device_assert, 0},
    {"static_print", TL, "*values", bi_print, 0},
    {"device_print", TL, "*values", bi_print, 0},
    {"print", PY, "*values", bi_print, 0},
    {"multiple_of", TL, "input,values", bi_identity, 0},
    {"max_contiguous", TL, "input,values", bi_identity, 0},
    {"max_constancy", TL, "input,values", bi_identity, 0},
    {"assume", TL, "cond", bi_none, 0},
    {"debug_barrier", TL, "", bi_none, 0},
    {"constexpr", TL, "value", bi_identity, 0},
    {"promote_to_tensor", HE, "x", bi_to_tensor, 0},
    /* loops (only as a for loop's iterator) */
    {"range", TL | PY, "*args,num_stages=,loop_unroll_factor=,disallow_acc_multi_buffer=,"
                       "flatten=,warp_specialize=", bi_not_here, 0},
    {"static_range", TL, "*args", bi_not_here, 0},
    {"jit", TR, "*args", bi_not_here, 0},
    {"next_power_of_2", TR, "n", bi_next_pow2, 0},
    /* Python */
    {"min", PY, "*args", bi_pyminmax, TXO_MIN},
    {"max", PY, "*args", bi_pyminmax, TXO_MAX},
    {"abs", PY, "x", bi_abs, 0},
    {"len", PY, "obj", bi_len, 0},
    {"int", PY, "x", bi_pyconv, 0},
    {"float", PY, "x", bi_pyconv, 0},
    {"bool", PY, "x", bi_pyconv, 0},
};
#define NBUILTINS (int)(sizeof builtins / sizeof *builtins)

static const struct {
  const char *name;
  DType dt;
} dtypes[] = {
    {"float16", DT_F16}, {"bfloat16", DT_BF16}, {"float32", DT_F32},
    {"float64", DT_F64}, {"int1", DT_BOOL},     {"int32", DT_I32},
    {"int64", DT_I64},       {"uint32", DT_TX_U32},
};

bool tx_ns_lookup(int ns, const char *name, TxVal *out) {
  if (ns & NS_PROPNAN) {
    bool all = !strcmp(name, "ALL");
    if (!all && strcmp(name, "NONE")) return false;
    *out = (TxVal){.kind = TV_INT, .i = all ? PROPAGATE_NAN_ALL : PROPAGATE_NAN_NONE};
    return true;
  }
  if (ns & NS_TL) {
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
      if (!strcmp(dtypes[i].name, name)) {
        *out = (TxVal){.kind = TV_DTYPE, .dt = dtypes[i].dt};
        return true;
      }
  }
  for (int i = 0; i < NBUILTINS; i++)
    if ((builtins[i].ns & ns) && !strcmp(builtins[i].name, name)) {
      *out = (TxVal){.kind = TV_BUILTIN, .fn = &builtins[i]};
      return true;
    }
  return false;
}

int tx_ns_of_path(const char *path) {
  size_t n = strlen(path);
#define ENDS(s) (n >= strlen(s) && !strcmp(path + n - strlen(s), s))
  if (ENDS("libdevice") || ENDS(".math") || !strcmp(path, "math")) return NS_MATH;
  if (!strcmp(path, "triton.language") || !strcmp(path, "triton.language.core") ||
      !strcmp(path, "triton.language.standard"))
    return NS_TL;
  if (!strcmp(path, "triton")) return NS_TRITON;
  if (!strcmp(path, "triton.language.PropagateNan") || !strcmp(path, "triton.language.core.PropagateNan"))
    return NS_PROPNAN;
  if (ENDS("triton_helpers")) return NS_HELPERS;
  if (!strncmp(path, "triton.language.extra", 21)) return NS_EXTRA;
  return NS_NONE;
#undef ENDS
}

const TxBuiltin *tx_method_lookup(const char *name) {
  for (int i = 0; i < NBUILTINS; i++)
    if ((builtins[i].ns & NS_METHOD) && !strcmp(builtins[i].name, name)) return &builtins[i];
  return NULL;
}

/* ------------------------------------------------------------- binding */

#define MAXP 12
typedef struct Params {
  int n, star;
  char names[MAXP][32];
  bool opt[MAXP];
} Params;

static Params params[NBUILTINS];
static pthread_once_t params_once = PTHREAD_ONCE_INIT;

static void parse_params(void) {
  for (int i = 0; i < NBUILTINS; i++) {
    Params *p = &params[i];
    p->star = -1;
    const char *s = builtins[i].params;
    while (*s) {
      const char *e = strchr(s, ',');
      size_t len = e ? (size_t)(e - s) : strlen(s);
      coil_assert(p->n < MAXP && len < 32);
      bool star = *s == '*';
      if (star) {
        s++;
        len--;
        p->star = p->n;
      }
      bool opt = len && s[len - 1] == '=';
      memcpy(p->names[p->n], s, len - opt);
      p->names[p->n][len - opt] = 0;
      p->opt[p->n] = opt || star;
      p->n++;
      s += len + (e ? 1 : 0);
      if (!e) break;
    }
  }
}

TxVal tx_builtin_call(TxExec *ex, SrcLoc loc, const TxBuiltin *b, TxVal *args,
                      int nargs, const char **kwnames) {
  pthread_once(&params_once, parse_params);
  const Params *p = &params[b - builtins];
  TxVal bound[MAXP];
  for (int i = 0; i < p->n; i++) bound[i] = (TxVal){.kind = TV_UNSET};
  int npos = 0;
  while (npos < nargs && !(kwnames && kwnames[npos])) npos++;
  TxTuple *rest = NULL;
  for (int i = 0; i < npos; i++) {
    if (p->star >= 0 && i >= p->star) {
      if (!rest) {
        rest = tx_tuple_new(ex, 0);
        bound[p->star] = (TxVal){.kind = TV_TUPLE, .tup = rest};
      }
      if (rest->n == TX_MAX_TUPLE) tx_fail(ex, loc, "%s(): too many arguments", b->name);
      rest->items[rest->n++] = tx_val_retain(args[i]);
      continue;
    }
    if (i >= p->n)
      tx_fail(ex, loc, "%s() takes %d positional arguments but %d were given", b->name,
              p->n, npos);
    bound[i] = args[i];
  }
  if (p->star >= 0 && !rest && bound[p->star].kind == TV_UNSET) {
    rest = tx_tuple_new(ex, 0);
    bound[p->star] = (TxVal){.kind = TV_TUPLE, .tup = rest};
  }
  for (int i = npos; i < nargs; i++) {
    int k = -1;
    for (int j = 0; j < p->n; j++)
      if (!strcmp(p->names[j], kwnames[i])) k = j;
    if (k < 0)
      tx_fail(ex, loc, "%s() got an unexpected keyword argument '%s'", b->name, kwnames[i]);
    if (bound[k].kind != TV_UNSET && !(k == p->star && rest && rest->n == 0))
      tx_fail(ex, loc, "%s() got multiple values for argument '%s'", b->name, kwnames[i]);
    bound[k] = args[i];
  }
  for (int i = 0; i < p->n; i++)
    if (bound[i].kind == TV_UNSET && !p->opt[i])
      tx_fail(ex, loc, "%s() missing required argument '%s'", b->name, p->names[i]);
  TxVal r = b->fn(ex, loc, b, bound);
  if (rest) tx_val_release(ex, (TxVal){.kind = TV_TUPLE, .tup = rest});
  return r;
}
