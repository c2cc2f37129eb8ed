/* The C target's row: plan (the schedule and the chains, on the kernels'
 * own copy), dump, emit (one C11 translation unit), run (built through the
 * JIT's cache on the first run, then one call a kernel). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

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

/* A built library's kernels, found once: a run after that allocates
 * nothing, so runs of one built program may go on in several threads at
 * once (the API serialises the build). */
static CoilErr *bind_kernels_named(Compiled *c, const Program *names) {
  CpuPlan *cp = cpu_plan(c);
  const Program *p = &cp->program;
  if (names->nkernels != p->nkernels) coil_unreachable("bind_kernels_named: another program's kernel count");
  cp->fns = ARENA_ARRAY(&c->arena, CpuKernelFn, p->nkernels + 1);
  for (int i = 0; i < p->nkernels; i++) {
    void *sym = jit_symbol(&cp->lib, names->kernels[i].name);
    if (!sym) {
      CoilErr *e = coil_err("kernel %s missing from %s", names->kernels[i].name, cp->lib.path);
      jit_close(&cp->lib);
      return e;
    }
    memcpy(&cp->fns[i], &sym, sizeof sym);
  }
  cp->built = true;
  c->built = cp->lib.cached ? "cached" : "cc";
  c->build_ms = cp->lib.compile_ms;
  return NULL;
}

static CoilErr *bind_kernels(Compiled *c) { return bind_kernels_named(c, &cpu_plan(c)->program); }

static CoilErr *cpu_run(Compiled *c, void *const *bufs, double *ms) {
  CpuPlan *cp = cpu_plan(c);
  CoilErr *e;
  if (!cp->built) {
    if ((e = jit_compile(c->code.data, &cp->lib))) return e;
    if ((e = bind_kernels(c))) return e;
  }
  double t0 = coil_now_ms();
  for (int i = 0; i < cp->program.nkernels; i++) {
    int64_t bad = cp->fns[i](bufs);
    if (bad) return ref_index_error(&c->graph, (int)(bad - 1)); /* the later kernels would read what it did not write */
  }
  if (ms) *ms = coil_now_ms() - t0;
  return NULL;
}

/* Does c name a kernel as one of ps[0..n) does? */
static bool names_clash(Compiled *const *ps, int n, const Compiled *c) {
  const Program *q = &cpu_plan(c)->program;
  for (int i = 0; i < n; i++) {
    const Program *p = &cpu_plan(ps[i])->program;
    for (int a = 0; a < p->nkernels; a++)
      for (int b = 0; b < q->nkernels; b++)
        if (!strcmp(p->kernels[a].name, q->kernels[b].name)) return true;
  }
  return false;
}

static bool ident_char(char ch) { return ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/* c's code with its kernels' names replaced by names that do not depend on
 * the program (coil_same_k0, ...).  Two programs whose code is the same
 * but for those names compute the same thing, so a build compiles one of
 * them and binds both to it: a model's layers repeat their programs (36
 * programs of a 4-layer Llama's training step are 16 codes), and the
 * system compiler's time was most of a deep model's first call after
 * aot_autograd's. */
static char *anonymous_code(const Compiled *c) {
  const Program *p = &cpu_plan(c)->program;
  const char *s = c->code.data ? c->code.data : "";
  StrBuf out = {0};
  sb_puts(&out, "");
  while (*s) {
    if (!ident_char(*s) || (s != c->code.data && ident_char(s[-1]))) {
      sb_putc(&out, *s++);
      continue;
    }
    size_t n = 0;
    while (ident_char(s[n])) n++;
    int hit = -1;
    for (int i = 0; i < p->nkernels && hit < 0; i++)
      if (strlen(p->kernels[i].name) == n && !strncmp(s, p->kernels[i].name, n)) hit = i;
    if (hit >= 0) sb_printf(&out, "coil_same_k%d", hit);
    else
      for (size_t i = 0; i < n; i++) sb_putc(&out, s[i]);
    s += n;
  }
  return out.data;
}

static uint64_t text_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* One translation unit of a build: some programs' kernels after the
 * prelude, compiled on a thread of its own. */
typedef struct BuildPart {
  StrBuf src;
  Compiled **cs;
  int n;
  JitLib lib;
  CoilErr *err;
  bool done; /* jit_compile ran: lib is loaded unless err */
} BuildPart;

static void *build_part(void *arg) {
  BuildPart *b = arg;
  b->err = jit_compile(b->src.data, &b->lib);
  b->done = true;
  return NULL;
}

/* Several programs' kernels in a few translation units, one run of the
 * system compiler each, side by side on the machine's cores: the prelude
 * is read once per unit, and a model's dozens of small programs cost a few
 * compiles instead of dozens (the first call of a model through the
 * torch.compile backend).  A program whose kernel names clash with another
 * one's is built on its own.  Each program then holds its own reference to
 * its unit's library. */
enum { BUILD_PARTS_MAX = 8 };
static CoilErr *cpu_build(Compiled *const *cs, int n) {
  Compiled **together = calloc((size_t)n + 1, sizeof *together);
  if (!together) return coil_err("out of memory");
  int m = 0;
  CoilErr *e = NULL;
  for (int i = 0; i < n && !e; i++) {
    CpuPlan *cp = cpu_plan(cs[i]);
    if (cp->built) continue;
    if (names_clash(together, m, cs[i])) {
      if (!(e = jit_compile(cs[i]->code.data, &cp->lib))) e = bind_kernels(cs[i]);
      continue;
    }
    together[m++] = cs[i];
  }
  /* same[i]: the earlier program of together whose code is program i's
   * but for the kernels' names, which is built in its stead; else -1. */
  int *same = calloc((size_t)m + 1, sizeof *same);
  uint64_t *hash = calloc((size_t)m + 1, sizeof *hash);
  char **anon = calloc((size_t)m + 1, sizeof *anon);
  if (!same || !hash || !anon) e = coil_err("out of memory");
  for (int i = 0; i < m && !e; i++) {
    same[i] = -1;
    if (!(anon[i] = anonymous_code(together[i]))) {
      e = coil_err("out of memory");
      break;
    }
    hash[i] = text_hash(anon[i]);
    for (int j = 0; j < i && same[i] < 0; j++)
      if (same[j] < 0 && hash[j] == hash[i] && !strcmp(anon[j], anon[i])) same[i] = j;
  }
  for (int i = 0; i < m && anon; i++) free(anon[i]);
  free(anon);
  free(hash);
  int distinct = 0;
  for (int i = 0; i < m && !e; i++) distinct += same[i] < 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nparts = distinct < cores ? distinct : (int)(cores < 1 ? 1 : cores);
  if (nparts > BUILD_PARTS_MAX) nparts = BUILD_PARTS_MAX;
  BuildPart parts[BUILD_PARTS_MAX] = {0};
  pthread_t threads[BUILD_PARTS_MAX];
  bool started[BUILD_PARTS_MAX] = {0};
  /* Each program, in order, goes to the part with the least code so far:
   * the parts take about as long, and the same programs give the same
   * parts (and the same cache keys) every time. */
  for (int i = 0; i < m && !e; i++) {
    if (same[i] >= 0) continue;
    int best = 0;
    for (int j = 1; j < nparts; j++)
      if (parts[j].src.len < parts[best].src.len) best = j;
    BuildPart *b = &parts[best];
    if (!b->cs && !(b->cs = calloc((size_t)m, sizeof *b->cs))) e = coil_err("out of memory");
    if (e) break;
    if (!b->src.len) emit_c_prelude(&b->src);
    CpuPlan *cp = cpu_plan(together[i]);
    emit_c_kernels(&b->src, &cp->program, cp->sched, &cp->chains);
    b->cs[b->n++] = together[i];
  }
  for (int j = 0; j < nparts && !e; j++)
    started[j] = parts[j].n && !pthread_create(&threads[j], NULL, build_part, &parts[j]);
  for (int j = 0; j < nparts; j++) {
    if (started[j]) pthread_join(threads[j], NULL);
    else if (parts[j].n && !e) build_part(&parts[j]);
  }
  for (int j = 0; j < nparts; j++) {
    BuildPart *b = &parts[j];
    if (b->err && !e) e = b->err;
    else if (b->err) coil_err_free(b->err);
    if (b->done && !b->err) {
      for (int i = 0; i < b->n && !e; i++) {
        CpuPlan *cp = cpu_plan(b->cs[i]);
        if (!(e = jit_share(&b->lib, &cp->lib))) e = bind_kernels(b->cs[i]);
        b->cs[i]->build_ms = b->lib.compile_ms / b->n;
      }
      jit_close(&b->lib);
    }
    sb_free(&b->src);
    free(b->cs);
  }
  for (int i = 0; i < m && !e; i++) {
    if (same[i] < 0) continue;
    Compiled *c = together[i], *like = together[same[i]];
    CpuPlan *cp = cpu_plan(c);
    if (!(e = jit_share(&cpu_plan(like)->lib, &cp->lib))) e = bind_kernels_named(c, &cpu_plan(like)->program);
    c->build_ms = 0;
  }
  free(same);
  free(together);
  return e;
}

static void cpu_describe(StrBuf *sb, const Compiled *c) {
  int n = omp_get_max_threads();
  sb_printf(sb, "cpu, %d thread%s", n, n == 1 ? "" : "s");
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
    .describe = cpu_describe,
    .emit = cpu_emit,
    .run = cpu_run,
    .build = cpu_build,
    .release = cpu_release,
};
