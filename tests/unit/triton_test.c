/* Unit tests of the Triton backends' in-process API: the launch plan that
 * a C executor reads (grids, arguments bound to buffer ids, constexprs,
 * scratch), the tile model's invariants, and the module text.  Each CHECK
 * prints "ok unit/triton_NAME" or "FAIL unit/triton_NAME: ...". */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "triton/triton.h"

static int failures;

#define CHECK(name, cond)                                                                         \
  do {                                                                                            \
    if (cond) printf("ok unit/triton_%s\n", name);                                                \
    else { printf("FAIL unit/triton_%s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); failures++; } \
  } while (0)

static const char seed_src[] =
    "import torch\n"
    "def rms_norm_weight_grad(grad_out_base: \"f32[2, 64, 4096, 128]\", q: \"bf16[2, 4096, 64, 128]\",\n"
    "                         q_square_sum: \"f32[2, 4096, 64] uniform(1, 2)\"):\n"
    "    grad_out = grad_out_base.permute(0, 2, 1, 3)\n"
    "    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)\n"
    "    return (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2)).to(torch.bfloat16)\n"
    "def rows(x: \"f32[6, 37]\"):\n"
    "    return x.amax(1), x.exp() * 2\n"
    "def norm(x: \"f32[300, 37]\", w: \"f32[37]\"):\n"
    "    m = x.amax(1, keepdim=True)\n"
    "    e = torch.exp(x - m)\n"
    "    return e / e.sum(1, keepdim=True) * w, m\n"
    "def weight_grads(g: \"f32[2048, 256]\", a: \"f32[2048, 256]\", b: \"f32[2048, 256]\", c: \"f32[2048, 256]\",\n"
    "                 d: \"f32[2048, 256]\", e: \"f32[2048, 256]\"):\n"
    "    return (g * a * b).sum(0), (g * c * d).sum(0), (g * e).sum(0)\n";

static char path[64];

static bool compile_fn(const char *fn, Compiled *c) {
  CompileOptions o = {.file = path, .fn = fn, .target = &cpu_target};
  CoilErr *e = compile_source(&o, c);
  if (e) {
    printf("FAIL unit/triton_compile_%s: %s\n", fn, e->msg);
    coil_err_free(e);
    failures++;
    return false;
  }
  return true;
}

static const TritonArg *find_arg(const TritonLaunch *L, const char *name) {
  for (int i = 0; i < L->nargs; i++)
    if (!strcmp(L->args[i].name, name)) return &L->args[i];
  return NULL;
}

static bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Every *BLOCK_SUB, XBLOCK, RBLOCK, SBLOCK, S_SUB constexpr is a power of
 * two (tl.arange sizes). */
static bool blocks_pow2(const TritonPlan *p) {
  for (int i = 0; i < p->nlaunches; i++)
    for (int j = 0; j < p->launches[i].nargs; j++) {
      const TritonArg *A = &p->launches[i].args[j];
      if (A->is_ptr) continue;
      const char *n = A->name;
      bool arange = strstr(n, "BLOCK_SUB") || !strcmp(n, "XBLOCK") || !strncmp(n, "RBLOCK", 6) || !strcmp(n, "SBLOCK") ||
                    !strcmp(n, "S_SUB");
      if (arange && !pow2(A->value)) return false;
    }
  return true;
}

static void test_seed_gpu(const Compiled *c) {
  Arena a = {0};
  TritonOptions o;
  triton_options_default(&o);
  TritonPlan p;
  CHECK("plan_gpu", !triton_plan(&a, c, TRITON_GPU, &o, &p));
  CHECK("gpu_two_launches", p.nlaunches == 2);
  CHECK("gpu_one_scratch", p.nscratch == 1 && p.nbufs == c->program.nbufs);
  if (p.nlaunches == 2 && p.nscratch == 1) {
    const TritonLaunch *k0 = &p.launches[0], *k1 = &p.launches[1];
    CHECK("gpu_split_grid", k0->grid[0] == 1 && k0->grid[1] == 512 && k0->grid[2] == 1);
    CHECK("gpu_num_warps", k0->num_warps == 4);
    CHECK("gpu_first_arg_input", k0->args[0].is_ptr && k0->args[0].buf == 0 && !strcmp(k0->args[0].name, "in_ptr0"));
    const TritonArg *ws = find_arg(k0, "ws_ptr0"), *xb = find_arg(k0, "XBLOCK"), *rc = find_arg(k0, "RSPLIT_CHUNK");
    CHECK("gpu_ws_is_scratch", ws && ws->is_ptr && ws->buf == p.nbufs);
    CHECK("gpu_xblock", xb && !xb->is_ptr && xb->value == 128);
    CHECK("gpu_chunks_cover", rc && rc->value * k0->grid[1] >= 524288 && rc->value * (k0->grid[1] - 1) < 524288);
    CHECK("gpu_scratch_size", p.scratch[0].dtype == DT_F32 && p.scratch[0].numel == 512 * 128);
    CHECK("gpu_combine_after", k1->combine && !k0->combine && k1->src == 0 && k0->src == 0);
    const TritonArg *out = find_arg(k1, "out_ptr0");
    CHECK("gpu_combine_stores_output", out && c->program.bufs[out->buf].kind == BUF_OUTPUT);
    CHECK("gpu_combine_reads_scratch", k1->args[0].is_ptr && k1->args[0].buf == p.nbufs);
  }
  CHECK("gpu_blocks_pow2", blocks_pow2(&p));
  arena_free(&a);
}

static void test_seed_npu(const Compiled *c) {
  TritonOptions o;
  triton_options_default(&o);
  int cores[] = {40, 8, 3, 200};
  for (int i = 0; i < 4; i++) {
    Arena a = {0};
    TritonPlan p;
    o.npu_cores = cores[i];
    char name[64];
    snprintf(name, sizeof name, "npu_plan_cores%d", cores[i]);
    CHECK(name, !triton_plan(&a, c, TRITON_NPU, &o, &p) && p.nlaunches >= 1);
    int64_t progs = p.launches[0].grid[0] * p.launches[0].grid[1];
    snprintf(name, sizeof name, "npu_programs_fit_cores%d", cores[i]);
    CHECK(name, progs <= cores[i] && progs * 2 > cores[i]);
    snprintf(name, sizeof name, "npu_blocks_pow2_cores%d", cores[i]);
    CHECK(name, blocks_pow2(&p));
    /* a split writes partials and a second kernel combines them */
    snprintf(name, sizeof name, "npu_split_has_combine_cores%d", cores[i]);
    CHECK(name, (p.launches[0].grid[1] > 1) == (p.nlaunches == 2 && p.launches[1].combine && p.nscratch == 1));
    arena_free(&a);
  }
  /* the UB budget bounds the sub-tile */
  Arena a = {0};
  TritonPlan p;
  triton_options_default(&o);
  o.npu_ub_kb = 4;
  CHECK("npu_plan_small_ub", !triton_plan(&a, c, TRITON_NPU, &o, &p));
  int64_t el = 1;
  for (int j = 0; j < p.launches[0].nargs; j++)
    if (strstr(p.launches[0].args[j].name, "BLOCK_SUB")) el *= p.launches[0].args[j].value;
  CHECK("npu_small_ub_subtile", el * p.kern[0].g[0].elem_bytes <= 4 * 1024);
  arena_free(&a);
}

/* The module of a fresh plan: emit_triton prints the plan it is given. */
static CoilErr *emit_planned(StrBuf *out, const Compiled *c, TritonTarget t, const TritonOptions *o) {
  Arena a = {0};
  TritonPlan p;
  CoilErr *e = triton_plan(&a, c, t, o, &p);
  if (!e) e = emit_triton(out, c, &p);
  arena_free(&a);
  return e;
}

static void test_module(const Compiled *c) {
  TritonOptions o;
  triton_options_default(&o);
  StrBuf npu = {0}, gpu = {0}, h = {0};
  CHECK("emit_npu", !emit_planned(&npu, c, TRITON_NPU, &o));
  CHECK("emit_gpu", !emit_planned(&gpu, c, TRITON_GPU, &o));
  o.harness = true;
  CHECK("emit_harness", !emit_planned(&h, c, TRITON_GPU, &o));
  CHECK("npu_seed_shape", strstr(npu.data, "x0_offset = tl.program_id(0) * X0BLOCK") &&
                              strstr(npu.data, "for loop_x0 in range(loops_x0):") &&
                              strstr(npu.data, "R1BLOCK_SUB * R2BLOCK_SUB * R3BLOCK_SUB"));
  /* the accumulator is created before the first r loop, reduced after the last */
  const char *acc = strstr(npu.data, "_tmp11 = tl.full("), *loop = strstr(npu.data, "for loop_r1 in");
  const char *sum = strstr(npu.data, "tmp11 = tl.reshape(tl.sum(_tmp11, 1)");
  CHECK("npu_accumulator_outside_loops", acc && loop && sum && acc < loop && loop < sum);
  CHECK("npu_permute_before_reshape", strstr(npu.data, ".permute([3, 0, 1, 2])") != NULL);
  CHECK("npu_identity_on_value", strstr(npu.data, "tl.where(x0_mask & r1_mask & r2_mask & r3_mask, tmp10, 0.0)") != NULL);
  CHECK("gpu_flat_r", strstr(gpu.data, "r2 = (rindex // 4096) % 64") != NULL);
  CHECK("module_tables", strstr(gpu.data, "COIL_LAUNCHES = [") && strstr(gpu.data, "COIL_BUFFERS = [") &&
                             strstr(gpu.data, "def coil_launch(bufs):"));
  CHECK("harness_main", strstr(h.data, "def main():") && strstr(h.data, "COIL_SOURCE = '") && !strstr(gpu.data, "def main():"));
  CHECK("harness_prefix", !strncmp(h.data + strcspn(h.data, "\n"), gpu.data + strcspn(gpu.data, "\n"), 200));
  sb_free(&npu);
  sb_free(&gpu);
  sb_free(&h);
}

static void test_rows(const Compiled *c) {
  Arena a = {0};
  TritonOptions o;
  triton_options_default(&o);
  TritonPlan p;
  CHECK("rows_plan", !triton_plan(&a, c, TRITON_GPU, &o, &p));
  CHECK("rows_no_split", p.nscratch == 0 && p.nlaunches == c->program.nkernels);
  bool persistent = c->program.nkernels > 0 && p.kern[0].g && p.kern[0].g[0].persistent;
  CHECK("rows_persistent", persistent);
  StrBuf sb = {0};
  emit_triton(&sb, c, &p);
  CHECK("rows_amax_nan", strstr(sb.data, "float(\"nan\"), tl.max(") != NULL);
  CHECK("rows_amax_identity", strstr(sb.data, "tl.where(rmask, tmp0, float(\"-inf\"))") != NULL);
  sb_free(&sb);
  arena_free(&a);
}

/* A normalisation: its three kernels one launch (a chain), the row read
 * once; the row max, an output too, stored; the sum kept in registers.
 * With --gpu-no-chain, or the NPU, one launch a kernel. */
static void test_chain(const Compiled *c) {
  Arena a = {0};
  TritonOptions o;
  triton_options_default(&o);
  TritonPlan p;
  CHECK("chain_plan", !triton_plan(&a, c, TRITON_GPU, &o, &p));
  int n = c->program.nkernels;
  CHECK("chain_kernels", n == 3);
  CHECK("chain_one_launch", p.nlaunches == 1 && strstr(p.launches[0].kernel, "_chain") && p.launches[0].grid[0] == 300);
  bool members = n == 3;
  for (int i = 0; i < n && members; i++) members = p.kern[i].chain == 0 && (i ? p.kern[i].launch < 0 : p.kern[i].launch == 0);
  CHECK("chain_members", members);
  CHECK("chain_persistent", n == 3 && p.kern[0].cpersist && p.kern[0].crblock == 64 && p.kern[0].cinner == 37);
  const TritonArg *R = p.nlaunches ? find_arg(&p.launches[0], "RBLOCK") : NULL;
  CHECK("chain_args", R && R->value == 64 && blocks_pow2(&p));
  int outs = 0, temps = 0;
  for (int j = 0; p.nlaunches && j < p.launches[0].nargs; j++) {
    const TritonArg *A = &p.launches[0].args[j];
    if (!A->is_ptr || A->buf >= p.nbufs) continue;
    if (c->program.bufs[A->buf].kind == BUF_OUTPUT) outs++;
    if (c->program.bufs[A->buf].kind == BUF_TEMP) temps++;
  }
  CHECK("chain_buffers", outs == 2 && temps == 0);
  StrBuf sb = {0};
  emit_triton(&sb, c, &p);
  const char *x = sb.data ? strstr(sb.data, "_chain(") : NULL;
  int loads = 0;
  for (const char *q = x; q && (q = strstr(q, "tl.load(")); q++) loads++;
  CHECK("chain_reads_row_once", x && loads == 2); /* x and w */
  CHECK("chain_passes_registers", sb.data && strstr(sb.data, "as stored by") != NULL);
  sb_free(&sb);
  o.gpu_nochain = true;
  CHECK("chain_off", !triton_plan(&a, c, TRITON_GPU, &o, &p) && p.nlaunches == 3);
  triton_options_default(&o);
  CHECK("chain_npu_apart", !triton_plan(&a, c, TRITON_NPU, &o, &p) && p.nlaunches == 3);
  o.gpu_sms = 1024; /* 300 rows are too few blocks for 1024 multiprocessors */
  CHECK("chain_few_rows", !triton_plan(&a, c, TRITON_GPU, &o, &p) && p.nlaunches > 1);
  arena_free(&a);
}

/* Column sums that load six f32 tensors a point (a backward's weight
 * gradients at once): split into parts by the bytes each point loads, not
 * the points alone (which gave 8 parts: 16 blocks on 132 multiprocessors),
 * each block still reading at least 128 KiB. */
static void test_many_loads(const Compiled *c) {
  Arena a = {0};
  TritonOptions o;
  triton_options_default(&o);
  TritonPlan p;
  CHECK("many_loads_plan", !triton_plan(&a, c, TRITON_GPU, &o, &p));
  const TritonLaunch *k0 = p.nlaunches ? &p.launches[0] : NULL;
  const TritonArg *xb = k0 ? find_arg(k0, "XBLOCK") : NULL, *rc = k0 ? find_arg(k0, "RSPLIT_CHUNK") : NULL;
  CHECK("many_loads_split", k0 && xb && rc && k0->grid[0] * k0->grid[1] >= 64);
  CHECK("many_loads_block_work", xb && rc && xb->value * rc->value * 6 * 4 >= 128 * 1024);
  CHECK("many_loads_chunks_cover", k0 && rc && rc->value * k0->grid[1] >= 2048 && rc->value * (k0->grid[1] - 1) < 2048);
  arena_free(&a);
}

int main(void) {
  TritonTarget t;
  CHECK("target_names", triton_target_from_name("triton-npu", &t) && t == TRITON_NPU &&
                            triton_target_from_name("triton-gpu", &t) && t == TRITON_GPU &&
                            !triton_target_from_name("triton", &t) && !strcmp(triton_target_name(TRITON_GPU), "triton-gpu"));
  KRed s = {.op = OP_SUM, .dtype = DT_F32}, m = {.op = OP_AMAX, .dtype = DT_F32}, i = {.op = OP_AMIN, .dtype = DT_I32};
  KRed pr = {.op = OP_PROD, .dtype = DT_I64};
  CHECK("identities", !strcmp(tri_identity(&s), "0.0") && !strcmp(tri_identity(&m), "float(\"-inf\")") &&
                          !strcmp(tri_identity(&i), "2147483647") && !strcmp(tri_identity(&pr), "1"));
  CHECK("types", !strcmp(tri_rtype(DT_BF16), "tl.float32") && !strcmp(tri_stype(DT_BF16), "tl.bfloat16") &&
                     !strcmp(tri_rtype(DT_BOOL), "tl.int1"));
  snprintf(path, sizeof path, "/tmp/coil_triton_test_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, seed_src, sizeof seed_src - 1) != (ssize_t)(sizeof seed_src - 1)) {
    printf("FAIL unit/triton_tempfile: cannot write %s\n", path);
    return 1;
  }
  close(fd);
  Compiled c;
  if (compile_fn("rms_norm_weight_grad", &c)) {
    test_seed_gpu(&c);
    test_seed_npu(&c);
    test_module(&c);
  }
  compiled_free(&c);
  if (compile_fn("rows", &c)) test_rows(&c);
  compiled_free(&c);
  if (compile_fn("norm", &c)) test_chain(&c);
  compiled_free(&c);
  if (compile_fn("weight_grads", &c)) test_many_loads(&c);
  compiled_free(&c);
  unlink(path);
  return failures ? 1 : 0;
}
