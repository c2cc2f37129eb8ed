/* The Triton targets' rows: the NPU and the GPU dialect share the tile
 * model's plan, its dump, the module printer and the run through coil's
 * executor; the row says which dialect.
 *
 * The pipeline calls plan once (compile.c); dump, emit and run read that
 * plan (Compiled.plan, a TritonPlan in the Compiled's arena), so what is
 * printed and what runs are the launches the plan chose. */
#include "triton/triton.h"

static TritonTarget dialect(const Compiled *c) { return c->target == &triton_npu_target ? TRITON_NPU : TRITON_GPU; }

static CoilErr *triton_plan_program(Compiled *c, const void *options) {
  TritonOptions def;
  triton_options_default(&def);
  const TritonOptions *o = options ? options : &def;
  TritonPlan *plan = ARENA_NEW(&c->arena, TritonPlan);
  CoilErr *e = triton_plan(&c->arena, c, dialect(c), o, plan);
  if (e) return e;
  c->plan = plan;
  return NULL;
}

static void triton_dump(StrBuf *sb, const Compiled *c) { triton_plan_dump(sb, c, c->plan); }

static void triton_describe(StrBuf *sb, const Compiled *c) { triton_plan_describe(sb, c, c->plan); }

static CoilErr *triton_emit(StrBuf *out, const Compiled *c) { return emit_triton(out, c, c->plan); }

static CoilErr *triton_run(Compiled *c, void *const *bufs, double *ms) {
  c->built = "no cc";
  return run_triton_kernels(c, bufs, ms);
}

const Target triton_npu_target = {
    .name = "triton-npu",
    .plan_stage = "triton",
    .casts = REF_CASTS_GPU,
    .plan = triton_plan_program,
    .dump = triton_dump,
    .describe = triton_describe,
    .emit = triton_emit,
    .run = triton_run,
};

const Target triton_gpu_target = {
    .name = "triton-gpu",
    .plan_stage = "triton",
    .casts = REF_CASTS_GPU,
    .plan = triton_plan_program,
    .dump = triton_dump,
    .describe = triton_describe,
    .emit = triton_emit,
    .run = triton_run,
};
