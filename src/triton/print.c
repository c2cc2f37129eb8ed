/* Shared printing of the Triton modules: type names, kernel values as
 * Python expressions, reductions, signatures, the coil_* helpers and
 * Python literals.
 *
 * Values print the same in both dialects (tri_value): PyTorch's dtype
 * semantics, as the C printer has them.  bf16 and f16 values live in f32
 * registers, rounded to their dtype after each op; bf16 rounding is done
 * on the bits (ties to even), since Triton's interpreter truncates.
 *
 * Requires: a compiled program's kernel values, and for signatures a
 * plan's launches (read only).  Guarantees: every helper a printed
 * expression calls is recorded in *TPrint.helpers, so tri_helpers prints
 * exactly those; nothing here calls the plan, the dialects or the module
 * driver. */
#include <math.h>
#include <string.h>

#include "triton/triton.h"

/* ------------------------------------------------------------- names */

bool triton_gpu_loads_from_name(const char *name, TritonGpuLoads *l) {
  if (!strcmp(name, "pointer")) *l = TRITON_LOADS_POINTER;
  else if (!strcmp(name, "tma")) *l = TRITON_LOADS_TMA;
  else return false;
  return true;
}

bool triton_gpu_combine_from_name(const char *name, TritonGpuCombine *c) {
  if (!strcmp(name, "launch")) *c = TRITON_COMBINE_LAUNCH;
  else if (!strcmp(name, "last")) *c = TRITON_COMBINE_LAST;
  else return false;
  return true;
}

bool triton_target_from_name(const char *name, TritonTarget *t) {
  if (!strcmp(name, "triton-npu")) *t = TRITON_NPU;
  else if (!strcmp(name, "triton-gpu")) *t = TRITON_GPU;
  else return false;
  return true;
}

const char *triton_target_name(TritonTarget t) { return t == TRITON_NPU ? "triton-npu" : "triton-gpu"; }

/* ------------------------------------------------------------- types */

const char *tri_rtype(DType t) {
  switch (t) {
  case DT_BOOL: return "tl.int1";
  case DT_I32: return "tl.int32";
  case DT_I64: return "tl.int64";
  case DT_F64: return "tl.float64";
  default: return "tl.float32";
  }
}

const char *tri_stype(DType t) {
  switch (t) {
  case DT_F16: return "tl.float16";
  case DT_BF16: return "tl.bfloat16";
  default: return tri_rtype(t);
  }
}

const char *tri_torch(DType t) { return dtype_torch_name(t); }

const char *tri_ones(Arena *a, int rank) {
  StrBuf sb = {0};
  sb_putc(&sb, '[');
  for (int i = 0; i < rank; i++) sb_puts(&sb, i ? ", 1" : "1");
  sb_putc(&sb, ']');
  char *s = arena_strdup(a, sb.data);
  sb_free(&sb);
  return s;
}

/* ---------------------------------------------------- value printing */

const char *tri_vname(const TPrint *P, int i) {
  return P->vpfx ? arena_printf(P->a, "%stmp%d", P->vpfx, i) : arena_printf(P->a, "tmp%d", i);
}

int tri_red_value(const Kernel *k, int r) {
  for (int i = 0; i < k->nvals; i++)
    if (op_info[k->vals[i].op].kind == OK_REDUCE && k->vals[i].red == r) return i;
  return -1;
}

static bool is_half(DType t) { return t == DT_BF16 || t == DT_F16; }

/* expr (held in the register type of `from`) converted to `to`, printed
 * around the text already in *e. */
static void convert(TPrint *P, StrBuf *sb, const char *e, DType from, DType to) {
  if (to == DT_BOOL && from != DT_BOOL) {
    sb_printf(sb, "(%s != 0)", e);
  } else if (to == DT_BF16) {
    *P->helpers |= TH_ROUND_BF16;
    if (from == DT_F32 || is_half(from)) sb_printf(sb, "coil_round_bf16(%s)", e);
    else sb_printf(sb, "coil_round_bf16(%s.to(tl.float32))", e);
  } else if (to == DT_F16) {
    if (from == DT_F32 || is_half(from)) sb_printf(sb, "%s.to(tl.float16).to(tl.float32)", e);
    else sb_printf(sb, "%s.to(tl.float32).to(tl.float16).to(tl.float32)", e);
  } else if (!strcmp(tri_rtype(from), tri_rtype(to))) {
    sb_puts(sb, e);
  } else {
    sb_printf(sb, "%s.to(%s)", e, tri_rtype(to));
  }
}

/* Operands convert to the op's compute dtype as the C printer's operand()
 * does: a register-type change only (no rounding: compute dtypes are
 * never bf16 or f16 in effect, they compute in f32). */
void tri_operand(TPrint *P, int i, DType to) {
  DType from = P->k->vals[i].dtype;
  const char *name = tri_vname(P, i);
  if (to == DT_BOOL && from != DT_BOOL) sb_printf(P->sb, "(%s != 0)", name);
  else if (!strcmp(tri_rtype(from), tri_rtype(to))) sb_puts(P->sb, name);
  else sb_printf(P->sb, "%s.to(%s)", name, tri_rtype(to));
}

static void print_float(StrBuf *sb, double f) {
  if (isnan(f)) sb_puts(sb, "float(\"nan\")");
  else if (isinf(f)) sb_puts(sb, f < 0 ? "float(\"-inf\")" : "float(\"inf\")");
  else {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", f);
    sb_puts(sb, buf);
    if (!strpbrk(buf, ".en")) sb_puts(sb, ".0");
  }
}

/* A constant exponent that POW spells without pow: 1 and 0 (lower.c has
 * already made the small integer powers multiplications and +-0.5 roots
 * where PyTorch computes them so; what is left, f16 ** 0.5 among them,
 * takes coil_pow, C's pow, as PyTorch's f16 pow does). */
static bool pow_special(TPrint *P, const KVal *v) {
  const KVal *e = &P->k->vals[v->arg[1]];
  if (e->op != OP_CONST) return false;
  StrBuf *sb = P->sb;
  StrBuf base = {0};
  TPrint Q = *P;
  Q.sb = &base;
  tri_operand(&Q, v->arg[0], v->cdtype);
  double x = dtype_is_float(e->dtype) ? e->fval : (double)e->ival;
  bool done = true;
  const char *b = base.data;
  if (x == 1) sb_printf(sb, "%s", b);
  else if (x == 0) sb_printf(sb, "tl.full(%s, 1, %s)", tri_ones(P->a, P->rank), tri_rtype(v->cdtype));
  else done = false;
  sb_free(&base);
  return done;
}

/* The op's expression in its compute dtype, from the op table's Triton
 * spelling with a few exceptions (see below). */
static void op_expr(TPrint *P, const KVal *v) {
  StrBuf *sb = P->sb;
  const char *tpl = op_info[v->op].triton;
  bool fl = dtype_is_float(v->cdtype);
  switch (v->op) {
  case OP_MAXIMUM: *P->helpers |= TH_MAXIMUM; break;
  case OP_MINIMUM: *P->helpers |= TH_MINIMUM; break;
  case OP_TANH: *P->helpers |= TH_TANH; break;
  case OP_SQRT:
    /* tl.sqrt_rn takes f32 only; tl.sqrt is exact in f64 */
    if (v->cdtype == DT_F64) tpl = "tl.sqrt(%0)";
    break;
  case OP_RSQRT:
    /* tl.rsqrt is an approximation; in f64 that costs digits. */
    if (v->cdtype == DT_F64) tpl = "1.0 / tl.sqrt(%0)";
    break;
  case OP_POW:
    if (pow_special(P, v)) return;
    if (fl) *P->helpers |= TH_POW;
    else {
      *P->helpers |= TH_IPOW;
      tpl = "coil_ipow(%0, %1)";
    }
    break;
  /* the rest of model code's math: libdevice's functions, helpers for ints */
  case OP_FMOD:
    if (!fl) {
      *P->helpers |= TH_IMOD;
      tpl = "coil_imod(%0, %1)";
    }
    break;
  case OP_IDIV: *P->helpers |= TH_IDIV; break;
  case OP_SHL: *P->helpers |= TH_SHL; break;
  case OP_SHR: *P->helpers |= TH_SHR; break;
  default: break;
  }
  if (!strncmp(tpl, "libdevice.", 10)) *P->helpers |= TH_LIBDEVICE;
  for (const char *t = tpl; *t; t++) {
    if (*t == '%' && t[1] >= '0' && t[1] <= '2') {
      int j = t[1] - '0';
      DType to = v->op == OP_WHERE && j == 0 ? DT_BOOL : v->cdtype;
      tri_operand(P, v->arg[j], to);
      t++;
    } else {
      sb_putc(sb, *t);
    }
  }
}

/* An integer literal.  INT64_MIN is written as an expression: its
 * magnitude, 2^63, is not an int64 literal (Triton would read it as a
 * uint64 before negating, and coil's executor rejects it). */
static void print_int(StrBuf *sb, int64_t v) {
  if (v == INT64_MIN) sb_puts(sb, "(-9223372036854775807 - 1)");
  else sb_printf(sb, "%lld", (long long)v);
}

/* Compiled Triton does not keep every float constant: tl.full makes any
 * value equal to 0 its type's null value, +0, and flushes a subnormal to
 * 0 (the H200 checks of 2026-12-02: cat's and where's -0 came out +0, and
 * tests/run/math2.py's subnormal inputs 0, on the GPU, not under the
 * interpreter).  Such a constant is written by its bits. */
static bool float_by_bits(double x, DType dt) {
  double tiny = dt == DT_F64 ? 0x1p-1022 : 0x1p-126; /* the smallest normal of the type it is held in (tri_rtype) */
  return (x == 0 && signbit(x)) || (x != 0 && fabs(x) < tiny);
}

/* tl.full(shape, BITS, tl.intN).to(tl.floatN, bitcast=True): x of float
 * dtype dt by the bits of the type it is held in (bf16 and f16 in f32). */
static void print_float_bits(StrBuf *sb, const char *shape, double x, DType dt) {
  int64_t bits;
  if (dt == DT_F64) {
    memcpy(&bits, &x, sizeof bits);
  } else {
    float f = (float)x;
    int32_t b;
    memcpy(&b, &f, sizeof b);
    bits = b;
  }
  sb_printf(sb, "tl.full(%s, ", shape);
  print_int(sb, bits);
  sb_printf(sb, ", %s).to(%s, bitcast=True)", dt == DT_F64 ? "tl.int64" : "tl.int32", tri_rtype(dt));
}

void tri_fill(StrBuf *sb, const KVal *v) {
  if (dtype_is_float(v->dtype) && float_by_bits(v->fval, v->dtype)) print_float_bits(sb, "[]", v->fval, v->dtype);
  else if (dtype_is_float(v->dtype)) print_float(sb, v->fval);
  else print_int(sb, v->ival);
}

void tri_value(TPrint *P, int i, const char *indent) {
  const Kernel *k = P->k;
  const KVal *v = &k->vals[i];
  StrBuf *sb = P->sb;
  sb_printf(sb, "%s%s = ", indent, tri_vname(P, i));
  if (v->op == OP_IOTA) { /* an index value: its expression of the axis variables */
    bool any = false;
    for (int ax = 0; ax < k->naxes; ax++) any |= ix_mentions(v->index, ax);
    sb_puts(sb, "(");
    ix_print(sb, v->index, P->names, false);
    sb_puts(sb, ").to(tl.int64)");
    if (!any) sb_printf(sb, " + tl.zeros(%s, tl.int64)", tri_ones(P->a, P->rank));
    sb_puts(sb, "\n");
    return;
  }
  if (v->op == OP_CONST && dtype_is_float(v->dtype) && float_by_bits(v->fval, v->dtype)) {
    print_float_bits(sb, tri_ones(P->a, P->rank), v->fval, v->dtype);
    sb_puts(sb, "\n");
    return;
  }
  if (v->op == OP_CONST) {
    sb_printf(sb, "tl.full(%s, ", tri_ones(P->a, P->rank));
    if (dtype_is_float(v->dtype)) print_float(sb, v->fval);
    else print_int(sb, v->ival);
    sb_printf(sb, ", %s)\n", tri_rtype(v->dtype));
    return;
  }
  if (v->op == OP_CAST) {
    const char *name = tri_vname(P, v->arg[0]);
    DType from = k->vals[v->arg[0]].dtype, to = v->dtype;
    if (dtype_is_int(to) && dtype_is_float(from)) sb_printf(sb, "%s.to(%s)", name, tri_rtype(to)); /* truncates */
    else convert(P, sb, name, from, to);
    sb_puts(sb, "\n");
    return;
  }
  coil_assert(v->op != OP_INPUT && op_info[v->op].kind != OK_REDUCE);
  StrBuf e = {0};
  TPrint Q = *P;
  Q.sb = &e;
  op_expr(&Q, v);
  bool cmp = op_info[v->op].kind == OK_COMPARE || v->op == OP_NOT;
  /* bool arithmetic saturates (True + True is True), as in PyTorch */
  if (v->dtype == DT_BOOL && !cmp) sb_printf(sb, "((%s) != 0)", e.data);
  else if (is_half(v->dtype)) convert(P, sb, arena_printf(P->a, "(%s)", e.data), v->cdtype, v->dtype);
  else if (!cmp && strcmp(tri_rtype(v->cdtype), tri_rtype(v->dtype)))
    convert(P, sb, arena_printf(P->a, "(%s)", e.data), v->cdtype, v->dtype);
  else sb_puts(sb, e.data);
  sb_puts(sb, "\n");
  sb_free(&e);
}

/* A bool's is False or True: a where of an int1 tile and 0 gives int32,
 * and a loop's accumulator may not change its type (the NPU dialect's
 * scatter of a number failed to compile on the H200 on 2026-12-02). */
const char *tri_identity(const KRed *r) {
  bool fl = dtype_is_float(r->dtype);
  switch (r->op) {
  case OP_SUM: return fl ? "0.0" : "0";
  case OP_PROD: return fl ? "1.0" : "1";
  case OP_AMAX: case OP_ARGMAX: /* an arg-reduction's value identity; its position's is TRI_ARG_NONE */
    return fl ? "float(\"-inf\")" : r->dtype == DT_I64 ? "(-9223372036854775807 - 1)" : r->dtype == DT_I32 ? "-2147483648" : "False";
  case OP_AMIN: case OP_ARGMIN:
    return fl ? "float(\"inf\")" : r->dtype == DT_I64 ? "9223372036854775807" : r->dtype == DT_I32 ? "2147483647" : "True";
  default: coil_unreachable("not a reduction");
  }
}

/* The GPU dialect's max and min of floats where a NaN wins, in a loop's
 * combine: tl.maximum with propagate_nan=ALL (PTX max.NaN, one instruction,
 * where coil_maximum's where takes three).  The NPU dialect keeps
 * coil_maximum: its compiler is not known to take propagate_nan.  The
 * final tree stays tl.max beside a sum of x != x (tri_reduce) in both:
 * tl.reduce with coil_max_nan as its one tree ran bench case 15 at 89% of
 * the read on the H200 against 75%, but Triton's interpreter, which the
 * tests run every module under, takes 2.5x as long with it (split_streams:
 * 54 s -> 136 s, past the suite's limit); docs/gpu.md, 2026-12-02. */
static bool nan_max_helper(TPrint *P, const KRed *r, const char **name) {
  if (P->target != TRITON_GPU || !dtype_is_float(r->dtype)) return false;
  bool max = r->op == OP_AMAX;
  *P->helpers |= max ? TH_MAX_NAN : TH_MIN_NAN;
  *name = max ? "coil_max_nan" : "coil_min_nan";
  return true;
}

void tri_combine(TPrint *P, const KRed *r, const char *a, const char *b) {
  const char *nan_fn;
  if ((r->op == OP_AMAX || r->op == OP_AMIN) && nan_max_helper(P, r, &nan_fn)) {
    sb_printf(P->sb, "%s(%s, %s)", nan_fn, a, b);
    return;
  }
  switch (r->op) {
  case OP_SUM: sb_printf(P->sb, "%s + %s", a, b); break;
  case OP_PROD: sb_printf(P->sb, "%s * %s", a, b); break;
  /* bools: or and and keep int1 (coil_maximum gives int32, and a loop's
   * accumulator may not change its type: the NPU dialect failed to compile
   * on the H200, 2026-12-02) */
  case OP_AMAX:
    if (r->dtype == DT_BOOL) sb_printf(P->sb, "(%s | %s)", a, b);
    else *P->helpers |= TH_MAXIMUM, sb_printf(P->sb, "coil_maximum(%s, %s)", a, b);
    break;
  case OP_AMIN:
    if (r->dtype == DT_BOOL) sb_printf(P->sb, "(%s & %s)", a, b);
    else *P->helpers |= TH_MINIMUM, sb_printf(P->sb, "coil_minimum(%s, %s)", a, b);
    break;
  default: coil_unreachable("not a reduction");
  }
}

void tri_reduce(TPrint *P, const KRed *r, const char *acc) {
  switch (r->op) {
  case OP_SUM: sb_printf(P->sb, "tl.sum(%s, 1)", acc); break;
  case OP_PROD: *P->helpers |= TH_MUL; sb_printf(P->sb, "tl.reduce(%s, 1, coil_mul)", acc); break;
  /* tl.max and tl.min skip NaN (the interpreter's np.nanmax does; the
   * hardware's max keeps the number), so a NaN is looked for apart (see
   * nan_max_helper for why not one tree of tl.reduce), unless no output
   * needs it (KRed.nan_quiet, src/nanquiet.c: softmax's and logsumexp's
   * row max); the NPU dialect, whose compiler's tl.max on NaN is not known
   * here, always looks. */
  case OP_AMAX:
  case OP_AMIN: {
    const char *f = r->op == OP_AMAX ? "tl.max" : "tl.min";
    if (dtype_is_float(r->dtype) && !(r->nan_quiet && P->target == TRITON_GPU))
      sb_printf(P->sb, "tl.where(tl.sum((%s != %s).to(tl.int32), 1) > 0, float(\"nan\"), %s(%s, 1))", acc, acc, f, acc);
    else if (r->dtype == DT_BOOL) sb_printf(P->sb, "(%s(%s, 1) != 0)", f, acc); /* tl.max of int1 gives int32: a where warns on it */
    else sb_printf(P->sb, "%s(%s, 1)", f, acc);
    break;
  }
  default: coil_unreachable("not a reduction");
  }
}

/* ------------------------------------------------------ arg-reductions */

void tri_arg_values(const Kernel *k, int r, int *val, int *idx) {
  *val = *idx = -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (op_info[v->op].kind != OK_REDUCE || v->red != r) continue;
    if (v->argval && *val < 0) *val = i;
    if (!v->argval && *idx < 0) *idx = i;
  }
}

static const char *arg_helper(TPrint *P, const KRed *r) {
  *P->helpers |= r->op == OP_ARGMAX ? TH_ARGMAX : TH_ARGMIN;
  return r->op == OP_ARGMAX ? "coil_argmax" : "coil_argmin";
}

void tri_arg_combine(TPrint *P, const KRed *r, const char *acc, const char *in, const char *indent) {
  const char *f = arg_helper(P, r);
  sb_printf(P->sb, "%s%s, %s_i = %s(%s, %s_i, %s, %s_i)\n", indent, acc, acc, f, acc, acc, in, in);
}

void tri_arg_finish(TPrint *P, int r, const char *acc, const char *res, const char *pre, const char *post, const char *indent) {
  const KRed *rd = &P->k->reds[r];
  sb_printf(P->sb, "%s%s_v, %s_x = tl.reduce((%s, %s_i), 1, %s)\n", indent, res, res, acc, acc, arg_helper(P, rd));
  int v[2];
  tri_arg_values(P->k, r, &v[0], &v[1]);
  for (int j = 0; j < 2; j++)
    if (v[j] >= 0) sb_printf(P->sb, "%s%s = %s%s_%c%s\n", indent, tri_vname(P, v[j]), pre, res, j ? 'x' : 'v', post);
}

void tri_accumulate(TPrint *P, int r, const char *res, const char *indent) {
  const KRed *rd = &P->k->reds[r];
  const char *acc = arena_printf(P->a, "_%s", res), *in = arena_printf(P->a, "%s_in", res);
  if (op_is_argred(rd->op)) {
    tri_arg_combine(P, rd, acc, in, indent);
    return;
  }
  sb_printf(P->sb, "%s%s = ", indent, acc);
  tri_combine(P, rd, acc, in);
  sb_puts(P->sb, "\n");
}

void tri_finish(TPrint *P, int r, const char *res, const char *pre, const char *post, const char *indent) {
  const char *acc = arena_printf(P->a, "_%s", res);
  if (op_is_argred(P->k->reds[r].op)) {
    tri_arg_finish(P, r, acc, res, pre, post, indent);
    return;
  }
  sb_printf(P->sb, "%s%s = %s", indent, res, pre);
  tri_reduce(P, &P->k->reds[r], acc);
  sb_printf(P->sb, "%s\n", post);
}

void tri_store_value(TPrint *P, int val, DType buf) {
  DType t = P->k->vals[val].dtype;
  const char *name = tri_vname(P, val);
  if (buf == DT_BOOL && t != DT_BOOL) sb_printf(P->sb, "(%s != 0)", name);
  else if (!strcmp(tri_rtype(t), tri_stype(buf))) sb_puts(P->sb, name);
  else sb_printf(P->sb, "%s.to(%s)", name, tri_stype(buf));
}

/* ------------------------------------------------------------ signature */

void tri_signature(StrBuf *sb, const TritonLaunch *L) {
  sb_printf(sb, "\n@triton.jit\ndef %s(", L->kernel);
  for (int i = 0; i < L->nargs; i++)
    sb_printf(sb, "%s%s%s", i ? ", " : "", L->args[i].name, L->args[i].is_ptr ? "" : ": tl.constexpr");
  sb_puts(sb, "):\n");
}

const char **tri_launch_ptrs(Arena *a, const TritonPlan *plan, const TritonLaunch *L) {
  const char **ptr = ARENA_ARRAY(a, const char *, plan->nbufs + plan->nscratch + 1);
  for (int i = 0; i < L->nargs; i++)
    if (L->args[i].is_ptr) ptr[L->args[i].buf] = L->args[i].name;
  return ptr;
}

/* ----------------------------------------------------------- helpers */

static const struct {
  unsigned bit;
  const char *text;
} helper_text[] = {
    {TH_ROUND_BF16,
     "@triton.jit\n"
     "def coil_round_bf16(x):\n"
     "    # x (f32) rounded to the nearest bf16, ties to even, kept in f32\n"
     "    u = x.to(tl.uint32, bitcast=True)\n"
     "    r = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000\n"
     "    r = tl.where(x != x, u | 0x400000, r)\n"
     "    return r.to(tl.float32, bitcast=True)\n"},
    {TH_MAXIMUM,
     "@triton.jit\n"
     "def coil_maximum(a, b):\n"
     "    # torch.maximum and amax: NaN wins\n"
     "    return tl.where((a != a) | (a > b), a, b)\n"},
    {TH_MINIMUM,
     "@triton.jit\n"
     "def coil_minimum(a, b):\n"
     "    return tl.where((a != a) | (a < b), a, b)\n"},
    {TH_ARGMAX,
     "@triton.jit\n"
     "def coil_argmax(a, ai, b, bi):\n"
     "    # torch.argmax's pairs (value, position): the larger value, NaN above every\n"
     "    # number, of equal values or two NaNs the lower position (tl.argmax loses NaNs)\n"
     "    an = a != a\n"
     "    bn = b != b\n"
     "    take = tl.where(bn, (an == 0) | (bi < ai), (an == 0) & ((b > a) | ((b == a) & (bi < ai))))\n"
     "    return tl.where(take, b, a), tl.where(take, bi, ai)\n"},
    {TH_ARGMIN,
     "@triton.jit\n"
     "def coil_argmin(a, ai, b, bi):\n"
     "    # torch.argmin's: the smaller value, NaN below every number, ties to the lower position\n"
     "    an = a != a\n"
     "    bn = b != b\n"
     "    take = tl.where(bn, (an == 0) | (bi < ai), (an == 0) & ((b < a) | ((b == a) & (bi < ai))))\n"
     "    return tl.where(take, b, a), tl.where(take, bi, ai)\n"},
    {TH_MAX_NAN,
     "@triton.jit\n"
     "def coil_max_nan(a, b):\n"
     "    # amax: NaN wins\n"
     "    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)\n"},
    {TH_MIN_NAN,
     "@triton.jit\n"
     "def coil_min_nan(a, b):\n"
     "    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)\n"},
    {TH_MUL,
     "@triton.jit\n"
     "def coil_mul(a, b):\n"
     "    return a * b\n"},
    {TH_TANH,
     "@triton.jit\n"
     "def coil_tanh(x):\n"
     "    # Cephes' rational approximations below 0.625, 1 - 2/(e^2|x| + 1) above\n"
     "    a = tl.abs(x)\n"
     "    z = x * x\n"
     "    if x.dtype == tl.float64:\n"
     "        p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3\n"
     "        q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3\n"
     "        small = x + x * z * (p / q)\n"
     "    else:\n"
     "        small = ((((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z\n"
     "                  + 1.33314422036e-1) * z - 3.33332819422e-1) * z * x + x\n"
     "    big = 1.0 - 2.0 / (tl.exp(2.0 * a) + 1.0)\n"
     "    big = tl.where(x < 0, -big, big)\n"
     "    return tl.where(a < 0.625, small, big)\n"},
    {TH_POW,
     "@triton.jit\n"
     "def coil_pow(a, b):\n"
     "    # C's pow: exp(b log|a|), negated for odd integer b when a < 0; in\n"
     "    # f64, since b log|a| carries its rounding into the result |b log a| times\n"
     "    r = tl.exp(b.to(tl.float64) * tl.log(tl.abs(a).to(tl.float64))).to(a.dtype)\n"
     "    bint = tl.floor(b) == b\n"
     "    odd = bint & (tl.floor(b * 0.5) != b * 0.5)\n"
     "    r = tl.where((a < 0) & odd, -r, r)\n"
     "    r = tl.where((a < 0) & (a > float(\"-inf\")) & (bint == 0), float(\"nan\"), r)\n"
     "    return tl.where(b == 0, 1.0, r)\n"},
    {TH_IPOW,
     "@triton.jit\n"
     "def coil_ipow(b, e):\n"
     "    # integer power by squaring; negative exponents as C's ipow\n"
     "    r = b * 0 + 1\n"
     "    x = b\n"
     "    k = e\n"
     "    for _ in tl.static_range(63):\n"
     "        r = tl.where((k & 1) != 0, r * x, r)\n"
     "        x = x * x\n"
     "        k = k >> 1\n"
     "    neg = tl.where(b == 1, 1, tl.where(b == -1, 1 - 2 * (e & 1), 0))\n"
     "    return tl.where(e < 0, neg, r)\n"},
    /* the rest of model code's math: ints (src/ops.h) */
    {TH_IDIV,
     "@triton.jit\n"
     "def coil_idiv(a, b):\n"
     "    # C's integer division (PyTorch's trunc); x / 0 is 0 (PyTorch raises), MIN / -1 wraps\n"
     "    bad = (b == 0) | (b == -1)\n"
     "    q = a // tl.where(bad, 1, b)\n"
     "    return tl.where(b == 0, 0, tl.where(b == -1, 0 - a, q))\n"},
    {TH_IMOD,
     "@triton.jit\n"
     "def coil_imod(a, b):\n"
     "    # C's integer %; x % 0 is 0 (PyTorch raises), x % -1 is 0\n"
     "    bad = (b == 0) | (b == -1)\n"
     "    return tl.where(bad, 0, a % tl.where(bad, 1, b))\n"},
    {TH_SHL,
     "@triton.jit\n"
     "def coil_shl(a, b):\n"
     "    # PyTorch's <<: a negative count, or one of the width or more, gives 0\n"
     "    if a.dtype == tl.int64:\n"
     "        ok = (b >= 0) & (b < 64)\n"
     "    else:\n"
     "        ok = (b >= 0) & (b < 32)\n"
     "    return tl.where(ok, a << tl.where(ok, b, 0), 0)\n"},
    {TH_SHR,
     "@triton.jit\n"
     "def coil_shr(a, b):\n"
     "    # PyTorch's >>: a negative count, or one of the width or more, gives the sign\n"
     "    if a.dtype == tl.int64:\n"
     "        c = tl.where((b >= 0) & (b < 64), b, 63)\n"
     "    else:\n"
     "        c = tl.where((b >= 0) & (b < 32), b, 31)\n"
     "    return a >> c\n"},
};

/* The descriptor allocator and the coil_* helpers that `helpers` names,
 * in the table's order. */
void tri_helpers(StrBuf *out, unsigned helpers) {
  if (helpers & TH_DESCRIPTORS)
    sb_puts(out, "\n# tl.make_tensor_descriptor keeps each program's descriptors in global scratch that\n"
                 "# Triton asks this allocator for at every launch (the interpreter needs none).\n"
                 "def coil_descriptor_scratch(size, alignment, stream):\n"
                 "    return torch.empty(size, dtype=torch.int8, device='cuda')\n\n\n"
                 "triton.set_allocator(coil_descriptor_scratch)\n\n");
  if (helpers & TH_LIBDEVICE)
    sb_puts(out, "import os\n"
                 "from triton.language.extra import libdevice\n\n"
                 "if os.environ.get(\"TRITON_INTERPRET\") == \"1\":\n"
                 "    # Triton's interpreter has no libdevice (its functions are stubs there):\n"
                 "    # PyTorch's on the blocks' arrays instead, broadcast, in their dtype\n"
                 "    import types\n"
                 "    from triton.runtime.interpreter import TensorHandle\n\n"
                 "    def coil_interp(fn):\n"
                 "        def call(*xs):\n"
                 "            r = fn(*[torch.from_numpy(x.handle.data) for x in xs]).numpy()\n"
                 "            return tl.core.tensor(TensorHandle(r, xs[0].dtype), tl.core.block_type(xs[0].dtype, list(r.shape)))\n"
                 "        return call\n\n"
                 "    libdevice = types.SimpleNamespace(**{n: coil_interp(getattr(torch, n)) for n in (\n"
                 "        \"tan\", \"asin\", \"acos\", \"atan\", \"sinh\", \"cosh\", \"asinh\", \"acosh\", \"atanh\", \"erfc\", \"erfinv\",\n"
                 "        \"expm1\", \"log10\", \"log1p\", \"atan2\", \"hypot\", \"copysign\", \"fmod\")})\n\n");
  for (size_t i = 0; i < sizeof helper_text / sizeof helper_text[0]; i++)
    if (helpers & helper_text[i].bit) sb_printf(out, "\n%s\n", helper_text[i].text);
}

/* ------------------------------------------------------------- python */

/* The checked index of an indexed access t (a load's or a store's):
 * t_i, the index value wrapped where gwrap; t_ok, whether it lies in
 * [0, gsize).  A lane of mask (all lanes: NULL) where it does not fails
 * graph node gnode's check: an assert, and the status. */
static void index_check(TPrint *P, const char *t, int ival, int64_t gsize, bool gwrap, int gnode, const char *indent, const char *mask) {
  StrBuf *sb = P->sb;
  const char *at = arena_printf(P->a, "%s_i", t), *ok = arena_printf(P->a, "%s_ok", t);
  sb_printf(sb, "%s%s = %s.to(tl.int64)\n", indent, at, tri_vname(P, ival));
  if (gwrap) sb_printf(sb, "%s%s = tl.where(%s < 0, %s + %lld, %s)\n", indent, at, at, at, (long long)gsize, at);
  sb_printf(sb, "%s%s = (%s >= 0) & (%s < %lld)\n", indent, ok, at, at, (long long)gsize);
  /* lanes outside the tile (or the guard) may hold any index: not checked */
  const GNode *n = P->p->g->nodes[gnode];
  const char *msg = arena_printf(P->a, "%s:%d:%d: %s", n->loc.file ? n->loc.file : "?", n->loc.line, n->loc.col,
                                 ref_index_message(P->a, P->p->g, gnode));
  if (mask) sb_printf(sb, "%stl.device_assert(%s | ~(%s), ", indent, ok, mask);
  else sb_printf(sb, "%stl.device_assert(%s, ", indent, ok);
  tri_pystr(sb, msg);
  sb_puts(sb, ")\n");
  /* the assert is compiled out on a GPU unless Triton's debug mode is on:
   * the failed check's id also goes to the status (TritonPlan.status),
   * which the launcher reads */
  const char *bad = arena_printf(P->a, "%s_bad", t);
  if (mask) sb_printf(sb, "%s%s = ~%s & (%s)\n", indent, bad, ok, mask);
  else sb_printf(sb, "%s%s = ~%s\n", indent, bad, ok);
  sb_printf(sb, "%stl.store(status_ptr + %s.to(tl.int32) * 0, %d, mask=%s)\n", indent, bad, gnode + 1, bad);
}

void tri_gather(TPrint *P, int i, const char *indent, const char *ptr, const char *index, const char *mask) {
  const KVal *v = &P->k->vals[i];
  StrBuf *sb = P->sb;
  const char *t = tri_vname(P, i);
  index_check(P, t, v->arg[0], v->gsize, v->gwrap, v->gnode, indent, mask);
  sb_printf(sb, "%s%s = tl.load(%s + %s + %lld * %s_i, mask=%s%s%s_ok, other=0)", indent, t, ptr, index, (long long)v->gstride, t,
            mask ? mask : "", mask ? " & " : "", t);
  if (v->dtype == DT_BF16 || v->dtype == DT_F16) sb_puts(sb, ".to(tl.float32)");
  sb_puts(sb, "\n");
}

void tri_indexed_add(TPrint *P, int s, const char *indent, const char *ptr, const char *index, const char *mask) {
  const KStore *st = &P->k->stores[s];
  StrBuf *sb = P->sb;
  const char *t = arena_printf(P->a, "st%d", s);
  index_check(P, t, st->ival, st->gsize, st->gwrap, st->gnode, indent, mask);
  sb_printf(sb, "%stl.atomic_add(%s + %s + %lld * %s_i, ", indent, ptr, index, (long long)st->gstride, t);
  tri_store_value(P, st->val, P->p->bufs[st->buf].dtype);
  sb_printf(sb, ", mask=%s%s%s_ok, sem='relaxed')\n", mask ? mask : "", mask ? " & " : "", t);
}

void tri_pystr(StrBuf *sb, const char *s) {
  sb_putc(sb, '\'');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\\') sb_puts(sb, "\\\\");
    else if (*p == '\'') sb_puts(sb, "\\'");
    else if (*p == '\n') sb_puts(sb, "\\n");
    else if (*p == '\r') sb_puts(sb, "\\r");
    else if (*p == '\t') sb_puts(sb, "\\t");
    else if (*p < 32 || *p == 127) sb_printf(sb, "\\x%02x", *p);
    else sb_putc(sb, (char)*p);
  }
  sb_putc(sb, '\'');
}
