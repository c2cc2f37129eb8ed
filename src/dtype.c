/* dtypes: names, sizes, C spellings, PyTorch's promotion and exact
 * float16 conversions.  Everything is generated from COIL_DTYPES. */
#include <math.h>
#include <string.h>

#include "coil.h"

static const struct {
  const char *name, *c_storage, *c_compute, *torch;
  int size;
} info[] = {
#define X(nm, sp, sz, st, ct, tn) {sp, st, ct, tn, sz},
    COIL_DTYPES(X)
#undef X
};

const char *dtype_name(DType t) { return info[t].name; }
const char *dtype_torch_name(DType t) { return info[t].torch; }
int dtype_size(DType t) { return info[t].size; }
const char *dtype_c_storage(DType t) { return info[t].c_storage; }
const char *dtype_c_compute(DType t) { return info[t].c_compute; }

bool dtype_from_name(const char *s, size_t n, DType *out) {
  for (int t = 0; t < DT_COUNT; t++)
    if (strlen(info[t].name) == n && !memcmp(info[t].name, s, n)) {
      *out = (DType)t;
      return true;
    }
  return false;
}

bool dtype_is_float(DType t) {
  return t == DT_F16 || t == DT_BF16 || t == DT_F32 || t == DT_F64;
}
bool dtype_is_int(DType t) { return t == DT_I32 || t == DT_I64; }

/* torch.promote_types restricted to coil's dtypes: bool < ints < floats;
 * within ints the wider wins; f16 with bf16 gives f32. */
DType dtype_promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DT_BOOL) return b;
  if (b == DT_BOOL) return a;
  bool fa = dtype_is_float(a), fb = dtype_is_float(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (!fa) return a == DT_I64 || b == DT_I64 ? DT_I64 : DT_I32;
  if ((a == DT_F16 && b == DT_BF16) || (a == DT_BF16 && b == DT_F16)) return DT_F32;
  int rank[DT_COUNT] = {[DT_F16] = 1, [DT_BF16] = 1, [DT_F32] = 2, [DT_F64] = 3};
  return rank[a] >= rank[b] ? a : b;
}

uint16_t f32_to_f16(float f) {
  union { float f; uint32_t u; } v = {f};
  uint32_t sign = (v.u >> 16) & 0x8000u;
  uint32_t abs = v.u & 0x7fffffffu;
  if (abs > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN */
  if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
  if (abs < 0x38800000u) {
    /* Subnormal or zero in f16: scale so the f16 subnormal step is 1 ulp
     * of a float whose exponent is fixed, and let the FPU round. */
    union { uint32_t u; float f; } magic = {0x3f000000u}; /* 0.5 */
    union { uint32_t u; float f; } a = {abs};
    a.f += magic.f;            /* rounds to nearest even at 2^-24 steps */
    return (uint16_t)(sign | (a.u - magic.u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd; /* rebias exponent (-112<<23) and round */
  return (uint16_t)(sign | (abs >> 13));
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  union { uint32_t u; float f; } v;
  if (exp == 0) {
    float m = (float)mant * 0x1p-24f;
    v.f = m;
    v.u |= sign;
    return v.f;
  }
  if (exp == 31) v.u = sign | 0x7f800000u | (mant << 13);
  else v.u = sign | ((exp + 112) << 23) | (mant << 13);
  return v.f;
}

double dtype_round(DType t, double x) {
  switch (t) {
  case DT_F64: return x;
  case DT_F32: return (float)x;
  case DT_BF16: return bf16_to_f32(f32_to_bf16((float)x));
  case DT_F16: return f16_to_f32(f32_to_f16((float)x));
  default: return x;
  }
}

double coil_erfinv(double y) {
  static const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  static const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  static const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  static const double d[2] = {3.543889200, 1.637067800};
  double ya = fabs(y), x;
  if (ya > 1.0) return NAN;
  if (ya == 1.0) return copysign(INFINITY, y);
  if (ya <= 0.7) {
    double z = y * y;
    double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    double dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0;
    x = y * num / dem;
  } else {
    double z = sqrt(-log((1.0 - ya) / 2.0));
    double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    double dem = (d[1] * z + d[0]) * z + 1.0;
    x = copysign(num, y) / dem;
  }
  /* Newton's steps on erf(x) = y, and past 0.5 on erfc(|x|) = 1 - |y|
   * (exact there), whose relative accuracy carries to the far tail:
   * three reach 1 ulp from the guess's 1e-4 (measured against mpmath) */
  const double k = 1.1283791670955126; /* 2 / sqrt(pi) */
  if (ya <= 0.5) {
    for (int i = 0; i < 3; i++) x -= (erf(x) - y) / (k * exp(-x * x));
    return x;
  }
  double q = 1.0 - ya, t = fabs(x);
  for (int i = 0; i < 3; i++) t += (erfc(t) - q) / (k * exp(-t * t));
  return copysign(t, y);
}
