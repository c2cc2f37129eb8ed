/* The dtypes coil knows, PyTorch's promotion between them, and exact
 * conversions; shared by the compiler and the Triton executor. */
#ifndef COIL_DTYPE_H
#define COIL_DTYPE_H

#include "util.h"

/* --------------------------------------------------------------- dtype.c */

/* The dtypes coil knows, in the order of the X-macro below. */
#define COIL_DTYPES(X)                                                         \
  /* name   spelling size   c_storage   c_compute  torch name */               \
  X(BOOL, "bool", 1, "uint8_t", "int", "bool")                                 \
  X(I32, "i32", 4, "int32_t", "int32_t", "int32")                              \
  X(I64, "i64", 8, "int64_t", "int64_t", "int64")                              \
  X(F16, "f16", 2, "uint16_t", "float", "float16")                             \
  X(BF16, "bf16", 2, "uint16_t", "float", "bfloat16")                          \
  X(F32, "f32", 4, "float", "float", "float32")                                \
  X(F64, "f64", 8, "double", "double", "float64")

typedef enum DType {
#define X(name, sp, sz, st, ct, tn) DT_##name,
  COIL_DTYPES(X)
#undef X
  DT_COUNT
} DType;

const char *dtype_name(DType t);      /* "bf16" */
const char *dtype_torch_name(DType t);/* "bfloat16" */
int dtype_size(DType t);
const char *dtype_c_storage(DType t); /* how an element is stored in C */
const char *dtype_c_compute(DType t); /* the C type arithmetic happens in */
bool dtype_from_name(const char *s, size_t n, DType *out);
bool dtype_is_float(DType t);
bool dtype_is_int(DType t); /* i32, i64 (not bool) */

/* PyTorch's promotion lattice for two tensor dtypes (torch.promote_types). */
DType dtype_promote(DType a, DType b);

/* Exact conversions with round-to-nearest-even, as PyTorch does them. */
static inline uint16_t f32_to_bf16(float f) {
  union { float f; uint32_t u; } v = {f};
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40);
  uint32_t rounding = 0x7fffu + ((v.u >> 16) & 1u);
  return (uint16_t)((v.u + rounding) >> 16);
}
static inline float bf16_to_f32(uint16_t h) {
  union { uint32_t u; float f; } v = {(uint32_t)h << 16};
  return v.f;
}
uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);

/* Round a double to what a value of dtype t can hold (for floats: to the
 * nearest representable value; ints and bool are handled by the caller). */
double dtype_round(DType t, double x);

/* The inverse error function in double, within 1 ulp (libm has none):
 * PyTorch's calc_erfinv's rational first guess, then Newton's steps on
 * erf, or on erfc near +-1.  NaN outside [-1, 1], +-inf at +-1. */
double coil_erfinv(double y);

#endif
