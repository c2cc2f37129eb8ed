/* Blocks: their memory, views, the N-d iteration engine and casts.
 *
 * Memory comes from a pool per worker thread: tensor headers and data
 * chunks (power-of-two size classes) go back to free lists when their last
 * reference is released, so the loops of a kernel allocate nothing from
 * the system after their first iteration.  tx_pool_free() returns all of
 * it at once, including whatever an error left referenced.
 *
 * Every operation writes a fresh C-contiguous block; views share data
 * through strides (0 along broadcast dims).  The iteration engine drops
 * size-1 dims and merges dims that are contiguous in every operand, so an
 * elementwise operation on two contiguous blocks is a single loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tx/tx.h"

typedef struct Chunk Chunk;
struct Chunk {
  Chunk *next_free;
  Chunk *next_all;
  int cls;
  _Alignas(64) unsigned char data[];
};

typedef struct Slab Slab;
struct Slab {
  Slab *next;
  TxTensor t[256];
};

typedef struct TupSlab TupSlab;
struct TupSlab {
  TupSlab *next;
  TxTuple t[64];
};

#define NCLASS 48
struct TxPool {
  TxTensor *free_t;
  TxTuple *free_tup;
  Chunk *free_c[NCLASS];
  Chunk *all;
  Slab *slabs;
  TupSlab *tslabs;
};

TxPool *tx_pool_new(void) {
  TxPool *p = calloc(1, sizeof *p);
  if (!p) coil_unreachable("out of memory");
  return p;
}

void tx_pool_free(TxPool *p) {
  if (!p) return;
  for (Chunk *c = p->all, *n; c; c = n) {
    n = c->next_all;
    free(c);
  }
  for (Slab *s = p->slabs, *n; s; s = n) {
    n = s->next;
    free(s);
  }
  for (TupSlab *s = p->tslabs, *n; s; s = n) {
    n = s->next;
    free(s);
  }
  free(p);
}

int tx_dtype_size(DType t) { return t == DT_TX_U32 ? 4 : dtype_size(t); }
bool tx_is_int(DType t) { return t == DT_TX_U32 || dtype_is_int(t); }

static TxTensor *header(TxExec *ex) {
  TxPool *p = ex->pool;
  if (!p->free_t) {
    Slab *s = malloc(sizeof *s);
    if (!s) coil_unreachable("out of memory");
    s->next = p->slabs;
    p->slabs = s;
    for (int i = 0; i < 256; i++) {
      s->t[i].next_free = p->free_t;
      p->free_t = &s->t[i];
    }
  }
  TxTensor *t = p->free_t;
  p->free_t = t->next_free;
  t->refs = 1;
  t->ptr = -1;
  t->base = NULL;
  t->chunk = NULL;
  t->from_mem = false;
  return t;
}

static Chunk *chunk_get(TxPool *p, size_t bytes) {
  int cls = 0;
  while (((size_t)64 << cls) < bytes) cls++;
  if (cls >= NCLASS) coil_unreachable("block too large");
  Chunk *c = p->free_c[cls];
  if (c) {
    p->free_c[cls] = c->next_free;
    return c;
  }
  c = aligned_alloc(64, (sizeof(Chunk) + ((size_t)64 << cls) + 63) & ~(size_t)63);
  if (!c) coil_unreachable("out of memory");
  c->cls = cls;
  c->next_all = p->all;
  p->all = c;
  return c;
}

TxTensor *tx_tensor_new(TxExec *ex, DType dt, int ndim, const int64_t *shape) {
  coil_assert(ndim >= 0 && ndim <= TX_MAX_DIMS);
  TxTensor *t = header(ex);
  t->dtype = dt;
  t->ndim = ndim;
  int64_t n = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    t->shape[d] = shape[d];
    t->stride[d] = shape[d] == 1 ? 0 : n; /* a size-1 dim may be broadcast */
    n *= shape[d];
  }
  t->numel = n;
  size_t bytes = (size_t)n * (size_t)tx_dtype_size(dt);
  if (bytes <= sizeof t->inl) {
    t->data = (char *)t->inl;
  } else {
    Chunk *c = chunk_get(ex->pool, bytes);
    t->chunk = c;
    t->data = (char *)c->data;
  }
  return t;
}

TxTensor *tx_scalar_i64(TxExec *ex, DType dt, int64_t v) {
  TxTensor *t = tx_tensor_new(ex, dt, 0, NULL);
  switch (dt) {
  case DT_BOOL: *(uint8_t *)t->data = v != 0; break;
  case DT_I32: *(int32_t *)t->data = (int32_t)v; break;
  case DT_I64: *(int64_t *)t->data = v; break;
  case DT_TX_U32: *(uint32_t *)t->data = (uint32_t)v; break;
  default: coil_unreachable("tx_scalar_i64: not an int dtype");
  }
  return t;
}

TxTensor *tx_scalar_f64(TxExec *ex, DType dt, double v) {
  TxTensor *t = tx_tensor_new(ex, dt, 0, NULL);
  switch (dt) {
  case DT_F16: *(uint16_t *)t->data = f32_to_f16((float)v); break;
  case DT_BF16: *(uint16_t *)t->data = f32_to_bf16((float)v); break;
  case DT_F32: *(float *)t->data = (float)v; break;
  case DT_F64: *(double *)t->data = v; break;
  default: coil_unreachable("tx_scalar_f64: not a float dtype");
  }
  return t;
}

void tx_retain(TxTensor *t) { t->refs++; }

void tx_release(TxExec *ex, TxTensor *t) {
  while (t && --t->refs == 0) {
    TxTensor *base = t->base;
    if (t->chunk) {
      Chunk *c = t->chunk;
      c->next_free = ex->pool->free_c[c->cls];
      ex->pool->free_c[c->cls] = c;
    }
    t->next_free = ex->pool->free_t;
    ex->pool->free_t = t;
    t = base;
  }
}

TxTuple *tx_tuple_new(TxExec *ex, int n) {
  TxPool *p = ex->pool;
  if (!p->free_tup) {
    TupSlab *s = malloc(sizeof *s);
    if (!s) coil_unreachable("out of memory");
    s->next = p->tslabs;
    p->tslabs = s;
    for (int i = 0; i < 64; i++) {
      s->t[i].next_free = p->free_tup;
      p->free_tup = &s->t[i];
    }
  }
  TxTuple *t = p->free_tup;
  p->free_tup = t->next_free;
  t->refs = 1;
  t->n = n;
  for (int i = 0; i < n; i++) t->items[i] = (TxVal){.kind = TV_NONE};
  return t;
}

TxVal tx_val_retain(TxVal v) {
  if (v.kind == TV_TENSOR) tx_retain(v.t);
  else if (v.kind == TV_TUPLE) v.tup->refs++;
  return v;
}

void tx_val_release(TxExec *ex, TxVal v) {
  if (v.kind == TV_TENSOR) {
    tx_release(ex, v.t);
  } else if (v.kind == TV_TUPLE && --v.tup->refs == 0) {
    for (int i = 0; i < v.tup->n; i++) tx_val_release(ex, v.tup->items[i]);
    v.tup->next_free = ex->pool->free_tup;
    ex->pool->free_tup = v.tup;
  }
}

TxTensor *tx_view(TxExec *ex, TxTensor *t, int ndim, const int64_t *shape,
                  const int64_t *stride) {
  coil_assert(ndim >= 0 && ndim <= TX_MAX_DIMS);
  TxTensor *v = header(ex);
  v->dtype = t->dtype;
  v->ptr = t->ptr;
  v->from_mem = t->from_mem;
  v->ndim = ndim;
  v->numel = 1;
  for (int d = 0; d < ndim; d++) {
    v->shape[d] = shape[d];
    v->stride[d] = shape[d] == 1 ? 0 : stride[d];
    v->numel *= shape[d];
  }
  v->data = t->data;
  v->base = t->base ? t->base : t;
  tx_retain(v->base);
  return v;
}

bool tx_is_contiguous(const TxTensor *t) {
  int64_t n = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] != 1 && t->stride[d] != n) return false;
    n *= t->shape[d];
  }
  return true;
}

bool tx_is_splat(const TxTensor *t) {
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != 1 && t->stride[d] != 0) return false;
  return true;
}

/* t broadcast to (ndim, shape), right-aligned, as a view. */
TxTensor *tx_broadcast_view(TxExec *ex, TxTensor *t, int ndim, const int64_t *shape) {
  int64_t st[TX_MAX_DIMS];
  int lead = ndim - t->ndim;
  coil_assert(lead >= 0);
  for (int d = 0; d < ndim; d++)
    st[d] = d < lead || t->shape[d - lead] == 1 ? 0 : t->stride[d - lead];
  return tx_view(ex, t, ndim, shape, st);
}

TxTensor *tx_bool_uniform(TxExec *ex, TxTensor *t) {
  if (t->dtype != DT_BOOL || t->ptr >= 0 || t->numel <= 1 || tx_is_splat(t) ||
      !tx_is_contiguous(t))
    return t;
  const uint8_t *d = (const uint8_t *)t->data;
  if (memchr(d, d[0] ^ 1, (size_t)t->numel)) return t;
  TxTensor *s = tx_scalar_i64(ex, DT_BOOL, d[0]);
  s->from_mem = t->from_mem;
  TxTensor *v = tx_broadcast_view(ex, s, t->ndim, t->shape);
  tx_release(ex, s);
  tx_release(ex, t);
  return v;
}

/* ------------------------------------------------------------- elements */

void tx_unravel(int64_t i, int ndim, const int64_t *shape, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; d--) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
}

char *tx_elem_ptr(const TxTensor *t, int64_t i) {
  int64_t idx[TX_MAX_DIMS];
  tx_unravel(i, t->ndim, t->shape, idx);
  return tx_elem_bcast(t, t->ndim, idx);
}

char *tx_elem_bcast(const TxTensor *t, int ndim, const int64_t *idx) {
  int64_t off = 0;
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] != 1) off += idx[d + ndim - t->ndim] * t->stride[d];
  return t->data + off * tx_dtype_size(t->dtype);
}

static double load_f64(DType dt, const char *p) {
  switch (dt) {
  case DT_BOOL: return *(const uint8_t *)p;
  case DT_I32: return *(const int32_t *)p;
  case DT_I64: return (double)*(const int64_t *)p;
  case DT_TX_U32: return *(const uint32_t *)p;
  case DT_F16: return f16_to_f32(*(const uint16_t *)p);
  case DT_BF16: return bf16_to_f32(*(const uint16_t *)p);
  case DT_F32: return *(const float *)p;
  case DT_F64: return *(const double *)p;
  default: coil_unreachable("load_f64");
  }
}

double tx_get_f64(const TxTensor *t, int64_t i) {
  return load_f64(t->dtype, tx_elem_ptr(t, i));
}

int64_t tx_get_i64(const TxTensor *t, int64_t i) {
  const char *p = tx_elem_ptr(t, i);
  switch (t->dtype) {
  case DT_BOOL: return *(const uint8_t *)p;
  case DT_I32: return *(const int32_t *)p;
  case DT_I64: return *(const int64_t *)p;
  case DT_TX_U32: return *(const uint32_t *)p;
  default: return (int64_t)load_f64(t->dtype, p);
  }
}

void tx_fmt_shape(char *buf, size_t n, int ndim, const int64_t *shape) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (int d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

void tx_fmt_index(char *buf, size_t n, int64_t i, int ndim, const int64_t *shape) {
  int64_t idx[TX_MAX_DIMS];
  tx_unravel(i, ndim, shape, idx);
  tx_fmt_shape(buf, n, ndim, idx);
}

/* ---------------------------------------------------- iteration engine */

void tx_iter_init(TxIter *it, int ndim, const int64_t *shape) {
  it->ndim = ndim;
  it->nop = 0;
  for (int d = 0; d < ndim; d++) it->shape[d] = shape[d];
}

void tx_iter_add_raw(TxIter *it, char *base, const int64_t *byte_stride) {
  coil_assert(it->nop < TX_MAX_OPS);
  int k = it->nop++;
  it->base[k] = base;
  for (int d = 0; d < it->ndim; d++) it->stride[k][d] = byte_stride[d];
}

void tx_iter_add(TxIter *it, const TxTensor *t) {
  coil_assert(t->ndim <= it->ndim);
  int64_t s[TX_MAX_DIMS];
  int lead = it->ndim - t->ndim;
  int64_t es = tx_dtype_size(t->dtype);
  for (int d = 0; d < it->ndim; d++) {
    if (d < lead) {
      s[d] = 0;
      continue;
    }
    int td = d - lead;
    coil_assert(t->shape[td] == it->shape[d] || t->shape[td] == 1);
    s[d] = t->shape[td] == 1 ? 0 : t->stride[td] * es;
  }
  tx_iter_add_raw(it, t->data, s);
}

/* Drop size-1 dims, then merge an outer dim into the inner one when every
 * operand steps over the inner dim's whole extent by the outer stride. */
static void coalesce(TxIter *it) {
  int nd = 0;
  int64_t shape[TX_MAX_DIMS], stride[TX_MAX_OPS][TX_MAX_DIMS];
  for (int d = 0; d < it->ndim; d++) {
    if (it->shape[d] == 1) continue;
    shape[nd] = it->shape[d];
    for (int k = 0; k < it->nop; k++) stride[k][nd] = it->stride[k][d];
    nd++;
  }
  int out = 0; /* merged dims, written from the innermost outward */
  int64_t ms[TX_MAX_DIMS], mst[TX_MAX_OPS][TX_MAX_DIMS];
  for (int d = nd - 1; d >= 0; d--) {
    if (out > 0) {
      bool ok = true;
      for (int k = 0; k < it->nop; k++)
        if (stride[k][d] != mst[k][out - 1] * ms[out - 1]) ok = false;
      if (ok) {
        ms[out - 1] *= shape[d];
        continue;
      }
    }
    ms[out] = shape[d];
    for (int k = 0; k < it->nop; k++) mst[k][out] = stride[k][d];
    out++;
  }
  it->ndim = out;
  for (int d = 0; d < out; d++) {
    it->shape[d] = ms[out - 1 - d];
    for (int k = 0; k < it->nop; k++) it->stride[k][d] = mst[k][out - 1 - d];
  }
}

/* Unused operand slots point here, so the loops may step them by 0. */
static char unused_op;

void tx_iter_run(TxIter *it, TxLoopFn fn, void *ctx) {
  for (int d = 0; d < it->ndim; d++)
    if (it->shape[d] == 0) return;
  coalesce(it);
  char *p[TX_MAX_OPS];
  int64_t s[TX_MAX_OPS] = {0}, t[TX_MAX_OPS] = {0};
  int nd = it->ndim, nop = it->nop;
  for (int k = 0; k < TX_MAX_OPS; k++) p[k] = k < nop ? it->base[k] : &unused_op;
  if (nd == 0) {
    fn(1, 1, p, s, t, ctx);
    return;
  }
  for (int k = 0; k < nop; k++) {
    s[k] = it->stride[k][nd - 1];
    t[k] = nd > 1 ? it->stride[k][nd - 2] : 0;
  }
  int64_t n = it->shape[nd - 1], m = nd > 1 ? it->shape[nd - 2] : 1;
  /* The two innermost dims go to the loop function; the rest count here. */
  int outer = nd - 2;
  int64_t idx[TX_MAX_DIMS] = {0};
  for (;;) {
    fn(n, m, p, s, t, ctx);
    int d = outer - 1;
    for (; d >= 0; d--) {
      for (int k = 0; k < nop; k++) p[k] += it->stride[k][d];
      if (++idx[d] < it->shape[d]) break;
      for (int k = 0; k < nop; k++) p[k] -= it->stride[k][d] * it->shape[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/* ------------------------------------------------------------------ casts */

static inline int32_t wrap_i32(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
static inline uint32_t wrap_u32(int64_t x) { return (uint32_t)(uint64_t)x; }
static inline uint32_t sat_u32(double x) {
  if (x != x || x <= 0) return 0;
  if (x >= 4294967295.0) return UINT32_MAX;
  return (uint32_t)x;
}
static inline int64_t wrap_i64(int64_t x) { return x; }
static inline int32_t sat_i32(double x) {
  if (x != x) return 0;
  if (x >= 2147483647.0) return INT32_MAX;
  if (x <= -2147483648.0) return INT32_MIN;
  return (int32_t)x;
}
static inline int64_t sat_i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)x;
}

#define TO_I32(v) _Generic((v), float: sat_i32, double: sat_i32, default: wrap_i32)(v)
#define TO_I64(v) _Generic((v), float: sat_i64, double: sat_i64, default: wrap_i64)(v)
#define TO_U32(v) _Generic((v), float: sat_u32, double: sat_u32, default: wrap_u32)(v)

#define LD_BOOL(p) (*(const uint8_t *)(p))
#define LD_I32(p) (*(const int32_t *)(p))
#define LD_I64(p) (*(const int64_t *)(p))
#define LD_F16(p) f16_to_f32(*(const uint16_t *)(p))
#define LD_BF16(p) bf16_to_f32(*(const uint16_t *)(p))
#define LD_F32(p) (*(const float *)(p))
#define LD_F64(p) (*(const double *)(p))
#define LD_U32(p) (*(const uint32_t *)(p))

#define ST_BOOL(p, v) (*(uint8_t *)(p) = (uint8_t)((v) != 0))
#define ST_I32(p, v) (*(int32_t *)(p) = TO_I32(v))
#define ST_I64(p, v) (*(int64_t *)(p) = TO_I64(v))
#define ST_F16(p, v) (*(uint16_t *)(p) = f32_to_f16((float)(v)))
#define ST_BF16(p, v) (*(uint16_t *)(p) = f32_to_bf16((float)(v)))
#define ST_F32(p, v) (*(float *)(p) = (float)(v))
#define ST_F64(p, v) (*(double *)(p) = (double)(v))
#define ST_U32(p, v) (*(uint32_t *)(p) = TO_U32(v))

#define SZ_BOOL 1
#define SZ_I32 4
#define SZ_I64 8
#define SZ_F16 2
#define SZ_BF16 2
#define SZ_F32 4
#define SZ_F64 8
#define SZ_U32 4

#define CASTFN(S, D)                                                           \
  static inline void cast_##S##_##D##_row(int64_t n, char **p, const int64_t *s, \
                                          void *c) {                           \
    (void)c;                                                                   \
    char *o = p[0];                                                            \
    const char *a = p[1];                                                      \
    if (s[0] == SZ_##D && s[1] == SZ_##S) {                                    \
      TX_SIMD0 for (int64_t i = 0; i < n; i++)                                    \
        ST_##D(o + i * SZ_##D, LD_##S(a + i * SZ_##S));                        \
    } else {                                                                   \
      for (int64_t i = 0; i < n; i++) ST_##D(o + i * s[0], LD_##S(a + i * s[1])); \
    }                                                                          \
  }                                                                            \
  TX_OUTER(cast_##S##_##D)
#define CASTROW(S)                                                             \
  CASTFN(S, BOOL) CASTFN(S, I32) CASTFN(S, I64) CASTFN(S, F16)                 \
  CASTFN(S, BF16) CASTFN(S, F32) CASTFN(S, F64) CASTFN(S, U32)
CASTROW(BOOL)
CASTROW(I32)
CASTROW(I64)
CASTROW(F16)
CASTROW(BF16)
CASTROW(F32)
CASTROW(F64)
CASTROW(U32)

#define CASTENT(S)                                                             \
  {cast_##S##_BOOL, cast_##S##_I32, cast_##S##_I64, cast_##S##_F16,            \
   cast_##S##_BF16, cast_##S##_F32, cast_##S##_F64, cast_##S##_U32}
/* Rows and columns in DType order, uint32 last. */
static const TxLoopFn casts[TX_NDTYPES][TX_NDTYPES] = {
    CASTENT(BOOL), CASTENT(I32), CASTENT(I64), CASTENT(F16),
    CASTENT(BF16), CASTENT(F32), CASTENT(F64), CASTENT(U32)};
_Static_assert(DT_BOOL == 0 && DT_I32 == 1 && DT_I64 == 2 && DT_F16 == 3 && DT_BF16 == 4 &&
                   DT_F32 == 5 && DT_F64 == 6 && DT_COUNT == 7,
               "the cast table follows coil's DType order");

static inline void copy_bytes_row(int64_t n, char **p, const int64_t *s, void *ctx) {
  int64_t es = *(int64_t *)ctx;
  if (s[1] == es) {
    memcpy(p[0], p[1], (size_t)(n * es));
    return;
  }
  switch (es) {
  case 1: for (int64_t i = 0; i < n; i++) p[0][i] = p[1][i * s[1]]; break;
  case 2: for (int64_t i = 0; i < n; i++) ((uint16_t *)p[0])[i] = *(uint16_t *)(p[1] + i * s[1]); break;
  case 4: for (int64_t i = 0; i < n; i++) ((uint32_t *)p[0])[i] = *(uint32_t *)(p[1] + i * s[1]); break;
  default: for (int64_t i = 0; i < n; i++) ((uint64_t *)p[0])[i] = *(uint64_t *)(p[1] + i * s[1]); break;
  }
}
TX_OUTER(copy_bytes)

TxTensor *tx_contiguous(TxExec *ex, TxTensor *t) {
  if (tx_is_contiguous(t)) {
    tx_retain(t);
    return t;
  }
  TxTensor *o = tx_tensor_new(ex, t->dtype, t->ndim, t->shape);
  o->ptr = t->ptr;
  o->from_mem = t->from_mem;
  TxIter it;
  tx_iter_init(&it, t->ndim, t->shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, t);
  int64_t es = tx_dtype_size(t->dtype);
  tx_iter_run(&it, copy_bytes, &es);
  return o;
}

TxTensor *tx_cast(TxExec *ex, TxTensor *t, DType to) {
  if (t->dtype == to) {
    tx_retain(t);
    return t;
  }
  TxTensor *o = tx_tensor_new(ex, to, t->ndim, t->shape);
  o->from_mem = t->from_mem;
  TxIter it;
  tx_iter_init(&it, t->ndim, t->shape);
  tx_iter_add(&it, o);
  tx_iter_add(&it, t);
  tx_iter_run(&it, casts[t->dtype][to], NULL);
  return o;
}

TxTensor *tx_bitcast(TxExec *ex, SrcLoc loc, TxTensor *t, DType to) {
  if (tx_dtype_size(t->dtype) != tx_dtype_size(to))
    tx_fail(ex, loc, "Cannot bitcast data-type of size %d to data-type of size %d",
            tx_dtype_size(t->dtype) * 8, tx_dtype_size(to) * 8);
  TxTensor *c = tx_contiguous(ex, t);
  TxTensor *v = tx_view(ex, c, c->ndim, c->shape, c->stride);
  tx_release(ex, c);
  v->dtype = to;
  return v;
}
