/* Unit tests of coil's stages.  Each CHECK prints "ok unit/NAME" or
 * "FAIL unit/NAME: ..." so the runner counts them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static char *ix_str(Arena *a, const IExpr *e) {
  static const char *names[] = {"i", "j", "k", "l"};
  StrBuf sb = {0};
  ix_print(&sb, e, names, false);
  char *s = arena_strdup(a, sb.data);
  sb_free(&sb);
  return s;
}

static void test_iexpr(void) {
  Arena a = {0};
  int64_t sizes[] = {6, 4, 5, 7};
  IRange r = {sizes};
  IExpr *i = ix_axis(&a, 0), *j = ix_axis(&a, 1);
  /* flatten [6,4] -> [24] and back: ((4i+j) // 4) % 6 == i, (4i+j) % 4 == j */
  IExpr *flat = ix_add(&a, ix_scale(&a, i, 4), j);
  CHECK("iexpr_div_exact", ix_equal(ix_mod(&a, r, ix_div(&a, r, flat, 4), 6), i));
  CHECK("iexpr_mod_exact", ix_equal(ix_mod(&a, r, flat, 4), j));
  /* k in [0,24): 4*(k//4) + k%4 == k */
  int64_t sizes2[] = {24};
  IRange r2 = {sizes2};
  IExpr *k = ix_axis(&a, 0);
  IExpr *re = ix_add(&a, ix_scale(&a, ix_div(&a, r2, k, 4), 4), ix_mod(&a, r2, k, 4));
  CHECK("iexpr_recombine", ix_equal(re, k));
  /* (k // 4) // 3 == k // 12 */
  CHECK("iexpr_nested_div", !strcmp(ix_str(&a, ix_div(&a, r2, ix_div(&a, r2, k, 4), 3)), "((i) // 12)"));
  int64_t lo, hi;
  ix_bounds(r, ix_add(&a, ix_scale(&a, i, 20), ix_const(&a, 3)), &lo, &hi);
  CHECK("iexpr_bounds", lo == 3 && hi == 103);
  CHECK("iexpr_print", !strcmp(ix_str(&a, ix_add(&a, ix_scale(&a, j, 128), i)), "i + 128*j"));
  /* a non-contiguous split stays a div/mod */
  CHECK("iexpr_keeps_nonaffine", !ix_is_affine(ix_div(&a, r, ix_add(&a, i, ix_scale(&a, j, 6)), 4)));
  /* Lowering finds values by ix_hash: expressions built in another order
   * but equal hash alike, and different ones (another coefficient, another
   * divisor, another constant) apart. */
  IExpr *ij = ix_add(&a, ix_scale(&a, i, 4), j), *ji = ix_add(&a, j, ix_scale(&a, i, 4));
  IExpr *dij = ix_div(&a, r, ix_add(&a, i, ix_scale(&a, j, 6)), 4), *dji = ix_div(&a, r, ix_add(&a, ix_scale(&a, j, 6), i), 4);
  CHECK("iexpr_hash_equal", ix_equal(ij, ji) && ix_hash(ij) == ix_hash(ji) && ix_equal(dij, dji) && ix_hash(dij) == ix_hash(dji));
  CHECK("iexpr_hash_apart", ix_hash(ij) != ix_hash(ix_add(&a, ix_scale(&a, i, 5), j)) &&
                                ix_hash(dij) != ix_hash(ix_div(&a, r, ix_add(&a, i, ix_scale(&a, j, 6)), 3)) &&
                                ix_hash(ij) != ix_hash(ix_add(&a, ij, ix_const(&a, 1))) && ix_hash(i) != ix_hash(j));
  arena_free(&a);
}

static void test_dtypes(void) {
  CHECK("promote_bf16_f16", dtype_promote(DT_BF16, DT_F16) == DT_F32);
  CHECK("promote_i32_f16", dtype_promote(DT_I32, DT_F16) == DT_F16);
  CHECK("promote_bool_i32", dtype_promote(DT_BOOL, DT_I32) == DT_I32);
  CHECK("promote_i32_i64", dtype_promote(DT_I64, DT_I32) == DT_I64);
  /* round to nearest even: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 */
  CHECK("bf16_tie_even", f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
  CHECK("bf16_tie_up", f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
  CHECK("bf16_nan", isnan(bf16_to_f32(f32_to_bf16(NAN))));
  CHECK("f16_roundtrip", f16_to_f32(f32_to_f16(0.333251953125f)) == 0.333251953125f);
  CHECK("f16_overflow", isinf(f16_to_f32(f32_to_f16(65520.0f))));
  CHECK("f16_max", f16_to_f32(f32_to_f16(65504.0f)) == 65504.0f);
  CHECK("f16_subnormal", f16_to_f32(f32_to_f16(0x1p-24f)) == 0x1p-24f);
  CHECK("f16_tie_even", f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);
}

/* Build a graph from source text. */
static CoilErr *build(Arena *a, const char *src, Module *m, Graph *g) {
  CoilErr *e = parse_module(a, "t.py", src, m);
  return e ? e : graph_build(a, m, NULL, NULL, 0, g);
}

static const GNode *out0(Graph *g) { return g->outputs[0]; }

static void test_graph(void) {
  Arena a = {0};
  Module m;
  Graph g;
  CoilErr *e;
  e = build(&a, "def f(x: \"i32[3, 4]\"):\n    return x.sum(1)\n", &m, &g);
  CHECK("int32_sum_gives_int64", !e && out0(&g)->dtype == DT_I64 && out0(&g)->ndim == 1);
  e = build(&a, "def f(x: \"i32[3]\", y: \"i32[3]\"):\n    return x / y\n", &m, &g);
  CHECK("int_true_division_gives_f32", !e && out0(&g)->dtype == DT_F32);
  e = build(&a, "def f(x: \"bf16[3]\"):\n    return x * 2.5\n", &m, &g);
  CHECK("scalar_keeps_bf16", !e && out0(&g)->dtype == DT_BF16 && out0(&g)->cdtype == DT_F32);
  e = build(&a, "def f(x: \"i32[3]\"):\n    return x + 2.5\n", &m, &g);
  CHECK("float_scalar_promotes_int", !e && out0(&g)->dtype == DT_F32);
  e = build(&a, "def f(x: \"f16[3]\", s: \"f32[]\"):\n    return x * s\n", &m, &g);
  CHECK("zero_dim_loses_to_dim_tensor", !e && out0(&g)->dtype == DT_F16);
  e = build(&a, "def f(x: \"i64[3]\", s: \"f64[]\"):\n    return x * s\n", &m, &g);
  CHECK("zero_dim_float_wins_over_int", !e && out0(&g)->dtype == DT_F64);
  e = build(&a, "def f(x: \"f32[2, 3, 4]\"):\n    return x.permute(2, 0, 1).reshape(4, -1).sum(-1, keepdim=True)\n", &m, &g);
  CHECK("views_shape", !e && out0(&g)->ndim == 2 && out0(&g)->shape[0] == 4 && out0(&g)->shape[1] == 1);
  coil_err_free(e);
  e = build(&a, "def f(x: \"f32[2, 3]\", y: \"f32[4]\"):\n    return x + y\n", &m, &g);
  CHECK("broadcast_error", e && strstr(e->msg, "t.py:2:14: error: shapes [2,3] and [4] cannot broadcast"));
  coil_err_free(e);
  e = build(&a, "def f(x: \"f32[2, 3]\"):\n    return x.sum(dim=2)\n", &m, &g);
  CHECK("bad_dim_error", e && strstr(e->msg, "t.py:2:22: error: dim 2 is out of range"));
  coil_err_free(e);
  e = build(&a, "def f(x: \"f32[2, 3]\"):\n    return x.kthvalue(2, 1)\n", &m, &g);
  CHECK("unsupported_op_error", e && strstr(e->msg, "'kthvalue' is not in coil's subset"));
  coil_err_free(e);
  e = build(&a, "def f(x: \"q8[2]\"):\n    return x\n", &m, &g);
  CHECK("bad_annotation_error", e && strstr(e->msg, "t.py:1:11: error: x: unknown dtype 'q8'"));
  coil_err_free(e);
  e = build(&a, "import torch\ndef main():\n    print(f\"{1}\")\nif __name__ == '__main__':\n    main()\n"
                "def f(x: \"f32[2]\"):\n    return x.exp()\n", &m, &g);
  CHECK("skips_other_code", !e && m.nfuncs == 2 && out0(&g)->op == OP_EXP);
  coil_err_free(e);
  /* libFuzzer found this: two defs of one name, each built by name, parsed
   * the first body twice and appended past the statement array. */
  {
    static const char two[] = "def f(x: \"f32[2]\"):\n    x = x + 1\n    x = x + 1\n    return x\n"
                              "def f(x: \"f32[2]\"):\n    return x\n";
    Module m2;
    bool ok = !parse_module(&a, "t.py", two, &m2) && m2.nfuncs == 2;
    for (int i = 0; ok && i < 3; i++) {
      Graph g2;
      CoilErr *e2 = graph_build(&a, &m2, "f", NULL, 0, &g2);
      ok = !e2 && m2.funcs[0].nbody == 3;
      coil_err_free(e2);
    }
    CHECK("parse_body_twice_starts_over", ok);
  }
  arena_free(&a);
}

static int kernels_for(const char *src) {
  Arena a = {0};
  Module m;
  Graph g;
  Fusion f;
  int n = -1;
  if (!build(&a, src, &m, &g) && !fuse_graph(&a, &g, NULL, &f)) n = f.nkernels;
  arena_free(&a);
  return n;
}

static void test_fusion(void) {
  CHECK("fuse_seed_one_kernel",
        kernels_for("def f(g: \"f32[2, 6, 5, 8]\", q: \"bf16[2, 5, 6, 8]\", s: \"f32[2, 5, 6]\"):\n"
                    "    return (g.permute(0, 2, 1, 3) * q.float() * (s.unsqueeze(-1) / 8 + 1e-6).rsqrt()).sum(dim=(0, 1, 2))\n") == 1);
  CHECK("fuse_softmax_three_kernels",
        kernels_for("def f(x: \"f32[4, 8]\"):\n    e = (x - x.amax(1, keepdim=True)).exp()\n    return e / e.sum(1, keepdim=True)\n") == 3);
  CHECK("fuse_two_reductions_share",
        kernels_for("def f(x: \"f32[4, 8]\"):\n    return x.sum(1), x.amax(1)\n") == 1);
  CHECK("fuse_different_shapes_split",
        kernels_for("def f(x: \"f32[4, 8]\"):\n    return x.sum(1), x.sum(0)\n") == 2);
  CHECK("fuse_epilogue_in_kernel",
        kernels_for("def f(x: \"f32[4, 8]\", w: \"f32[4]\"):\n    return (x.sum(1) * w).sqrt()\n") == 1);
  CHECK("fuse_returned_input_copies",
        kernels_for("def f(x: \"f32[4, 8]\"):\n    return x, x.sum()\n") == 2);
}

/* The verifier must reject an access outside its buffer. */
static void test_verifier(void) {
  Arena a = {0};
  Module m;
  Graph g;
  Fusion f;
  Program p;
  CoilErr *e = build(&a, "def f(x: \"f32[4, 8]\"):\n    return x.sum(1)\n", &m, &g);
  if (!e) e = fuse_graph(&a, &g, NULL, &f);
  if (!e) e = lower_program(&a, &f, &p);
  CHECK("verify_accepts_lowered", !e && !kernel_verify(&p, &p.kernels[0]));
  Kernel *k = &p.kernels[0];
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_INPUT) k->vals[i].index = ix_add(&a, k->vals[i].index, ix_const(&a, 1));
  e = kernel_verify(&p, k);
  CHECK("verify_rejects_out_of_bounds", e && strstr(e->msg, "outside [0, 32)"));
  coil_err_free(e);
  arena_free(&a);
}

/* An arg-reduction's positions must number its r points in [0, n): the
 * verifier rejects an index value that leaves that range (ties would go to
 * no element) or that depends on the output point. */
static void test_verifier_argred(void) {
  Arena a = {0};
  Module m;
  Graph g;
  Fusion f;
  Program p;
  CoilErr *e = build(&a, "def f(x: \"f32[4, 8]\"):\n    return x.max(1)\n", &m, &g);
  if (!e) e = fuse_graph(&a, &g, NULL, &f);
  if (!e) e = lower_program(&a, &f, &p);
  Kernel *k = e ? NULL : &p.kernels[0];
  CHECK("verify_argred_accepts_lowered", k && k->nreds == 1 && op_is_argred(k->reds[0].op) && !kernel_verify(&p, k));
  if (!k) return;
  KVal *pos = &k->vals[k->reds[0].idx];
  IExpr *saved = pos->index;
  pos->index = ix_add(&a, saved, ix_const(&a, 1));
  e = kernel_verify(&p, k);
  CHECK("verify_argred_rejects_positions_off_range", e && strstr(e->msg, "positions span [1, 8], not [0, 8)"));
  coil_err_free(e);
  pos->index = ix_add(&a, saved, ix_axis(&a, k->x[0]));
  e = kernel_verify(&p, k);
  CHECK("verify_argred_rejects_positions_of_x", e && strstr(e->msg, "depend on the output point"));
  coil_err_free(e);
  arena_free(&a);
}

int main(void) {
  test_iexpr();
  test_dtypes();
  test_graph();
  test_fusion();
  test_verifier();
  test_verifier_argred();
  return failures != 0;
}
