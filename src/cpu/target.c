/* The C target's row: plan (the schedule and the chains, on the kernels'
 * own copy), dump, emit (one C11 translation unit), run (built through the
 * JIT's cache on the first run, then one call a kernel). */
#include <string.h>

#include "cpu/cpu.h"

CpuPlan *cpu_plan(const Compiled *c) {
  if (c->target != &cpu_target || !c->plan) coil_unreachable("cpu_plan: not a program compiled for the C target");
  return c->plan;
}

/* The schedule changes the kernels it tiles, so it works on a copy of the
 * Program's kernel array (and copies any kernel's arrays before changing
 * them: sched.c), leaving the pipeline's program whole. */
static CoilErr *cpu_plan_program(Compiled *c, const void *options) {
  Arena *a = &c->arena;
  const Program *p = &c->program;
  CpuPlan *cp = ARENA_NEW(a, CpuPlan);
  cp->program = *p;
  cp->program.kernels = ARENA_ARRAY(a, Kernel, p->nkernels + 1);
  memcpy(cp->program.kernels, p->kernels, sizeof(Kernel) * (size_t)p->nkernels);
  Program *q = &cp->program;
  CoilErr *e;
  cp->sched = ARENA_ARRAY(a, CSched, q->nkernels + 1);
  for (int i = 0; i < q->nkernels; i++) {
    sched_kernel_c(a, &q->kernels[i], q, &cp->sched[i]);
    if ((e = kernel_verify(q, &q->kernels[i]))) return e;
  }
  chain_plan(a, q, cp->sched, &cp->chains);
  for (int i = 0; i < q->nkernels; i++)
    if ((e = sched_verify(q, &q->kernels[i], &cp->sched[i]))) return e;
  if ((e = chain_verify(q, cp->sched, &cp->chains))) return e;
  /* What the chains' row buffers save, per kernel, for recompute.c. */
  const int **reuse = ARENA_ARRAY(a, const int *, q->nkernels + 1);
  for (int i = 0; i < cp->chains.n; i++) {
    const CChain *ch = &cp->chains.chain[i];
    for (int j = 0; j < ch->n && ch->reuse; j++) reuse[ch->first + j] = ch->reuse[j];
  }
  c->plan = cp;
  c->planned = &cp->program;
  c->reuse = reuse;
  return NULL;
}

static void cpu_dump(StrBuf *sb, const Compiled *c) {
  const CpuPlan *cp = cpu_plan(c);
  for (int i = 0; i < cp->program.nkernels; i++) sched_dump(sb, &cp->program.kernels[i], &cp->sched[i]);
  chain_dump(sb, &cp->program, cp->sched, &cp->chains);
  sb_printf(sb, "work: %.2f times the graph's (each value once per kernel computing it)\n", c->recompute);
}

static CoilErr *cpu_emit(StrBuf *out, const Compiled *c) {
  const CpuPlan *cp = cpu_plan(c);
  emit_c(out, &cp->program, cp->sched, &cp->chains);
  return NULL;
}

typedef void (*KernelFn)(void *const *bufs);

static CoilErr *cpu_run(Compiled *c, void *const *bufs, double *ms) {
  CpuPlan *cp = cpu_plan(c);
  CoilErr *e;
  if (!cp->built) {
    if ((e = jit_compile(c->code.data, &cp->lib))) return e;
    cp->built = true;
    c->built = cp->lib.cached ? "cached" : "cc";
    c->build_ms = cp->lib.compile_ms;
  }
  const Program *p = &cp->program;
  KernelFn *fns = ARENA_ARRAY(&c->arena, KernelFn, p->nkernels + 1);
  for (int i = 0; i < p->nkernels; i++) {
    void *sym = jit_symbol(&cp->lib, p->kernels[i].name);
    if (!sym) return coil_err("kernel %s missing from %s", p->kernels[i].name, cp->lib.path);
    memcpy(&fns[i], &sym, sizeof sym);
  }
  double t0 = coil_now_ms();
  for (int i = 0; i < p->nkernels; i++) fns[i](bufs);
  if (ms) *ms = coil_now_ms() - t0;
  return NULL;
}

static void cpu_release(Compiled *c) {
  if (c->plan && c->target == &cpu_target) {
    CpuPlan *cp = c->plan;
    if (cp->built) jit_close(&cp->lib);
    cp->built = false;
  }
}

const Target cpu_target = {
    .name = "c",
    .plan_stage = "schedule",
    .casts = REF_CASTS_CPU,
    .plan = cpu_plan_program,
    .dump = cpu_dump,
    .emit = cpu_emit,
    .run = cpu_run,
    .release = cpu_release,
};
