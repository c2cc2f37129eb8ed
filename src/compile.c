/* The pipeline, in one function: source -> graph -> kernels -> a target's
 * code.  Each stage is one file; each is followed by its verifier, and
 * each can print its IR (coil dump -d STAGES).  Everything up to the
 * ordered kernels is the same for every target; the target (a row of
 * functions, coil.h) plans, dumps and prints from there. */
#include <stdlib.h>
#include <string.h>

#include "coil.h"

static bool wants(const CompileOptions *o, const char *stage) {
  if (!o->dump || !o->dump_out) return false;
  if (!strcmp(o->dump, "all")) return true;
  size_t n = strlen(stage);
  for (const char *p = o->dump; (p = strstr(p, stage)); p += n)
    if ((p == o->dump || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
  return false;
}

static void header(const CompileOptions *o, const char *stage) { sb_printf(o->dump_out, "=== %s\n", stage); }

/* Graph -> planned kernels: fusion (with the nodes kept in buffers),
 * lowering, simplification, the r axes' order, then the target's plan and
 * the work its kernels do. */
static CoilErr *plan_kernels(const CompileOptions *o, Compiled *c, const bool *kept) {
  Arena *a = &c->arena;
  CoilErr *e;
  memset(&c->fusion, 0, sizeof c->fusion);
  memset(&c->program, 0, sizeof c->program);
  c->plan = NULL;
  c->planned = &c->program;
  c->reuse = NULL;
  if ((e = fuse_graph(a, &c->graph, kept, &c->fusion))) return e;
  if (wants(o, "fuse")) { header(o, "fuse"); fuse_dump(o->dump_out, &c->fusion); }

  Program *p = &c->program;
  if ((e = lower_program(a, &c->fusion, p))) return e;
  for (int i = 0; i < p->nkernels; i++)
    if ((e = kernel_verify(p, &p->kernels[i]))) return e;
  if (wants(o, "kernel")) { header(o, "kernel"); program_dump(o->dump_out, p); }

  for (int i = 0; i < p->nkernels; i++) {
    simplify_kernel(a, &p->kernels[i]);
    if ((e = kernel_verify(p, &p->kernels[i]))) return e;
  }
  if (wants(o, "simplify")) { header(o, "simplify"); program_dump(o->dump_out, p); }

  for (int i = 0; i < p->nkernels; i++) {
    order_kernel(a, &p->kernels[i]);
    if ((e = kernel_verify(p, &p->kernels[i]))) return e;
  }

  const Target *t = c->target;
  if ((e = t->plan(c, o->target_options))) return e;
  c->recompute = recompute_factor(&c->graph, c->planned, c->reuse);
  if (wants(o, t->plan_stage)) {
    header(o, t->plan_stage);
    t->dump(o->dump_out, c);
  }
  return NULL;
}

CoilErr *compile_source(const CompileOptions *o, Compiled *c) {
  memset(c, 0, sizeof *c);
  if (!o->target) coil_unreachable("compile_source: no target");
  c->target = o->target;
  Arena *a = &c->arena;
  size_t len;
  CoilErr *e = NULL;
  char *src;
  if (o->text) {
    len = strlen(o->text);
    src = arena_strndup(a, o->text, len);
  } else {
    char *text = coil_read_file(o->file, &len, &e);
    if (!text) return e;
    src = arena_strndup(a, text, len);
    free(text);
  }
  if (memchr(src, 0, len)) return coil_err("%s: the file contains a NUL byte; it is not Python source", o->file);
  double t0 = coil_now_ms();

  if ((e = parse_module(a, arena_strdup(a, o->file), src, &c->module))) return e;
  if ((e = graph_build(a, &c->module, o->fn, o->args, o->nargs, &c->graph))) return e;
  graph_quiet_nans(a, &c->graph);
  if ((e = graph_verify(&c->graph))) return e;
  if (wants(o, "parse")) {
    header(o, "parse");
    for (int i = 0; i < c->module.nfuncs; i++)
      if (!strcmp(c->module.funcs[i].name, c->graph.fn_name)) parse_dump(o->dump_out, &c->module.funcs[i]);
  }
  if (wants(o, "graph")) { header(o, "graph"); graph_dump(o->dump_out, &c->graph); }

  /* Plan the kernels; while they compute too much again (recompute.c),
   * keep one more node in a buffer and plan again.  The dumps are the
   * last plan's. */
  bool *kept = ARENA_ARRAY(a, bool, c->graph.nnodes + 1);
  CompileOptions last = *o;
  StrBuf dumps = {0};
  last.dump_out = o->dump_out ? &dumps : NULL;
  for (int round = 0;; round++) {
    dumps.len = 0;
    if (dumps.data) dumps.data[0] = 0;
    if ((e = plan_kernels(&last, c, kept))) break;
    if (round == RECOMPUTE_ROUNDS || c->recompute <= RECOMPUTE_MAX) break;
    int n = recompute_pick(a, &c->graph, &c->fusion);
    if (n < 0) break;
    kept[n] = true;
  }
  if (o->dump_out && dumps.data) sb_puts(o->dump_out, dumps.data);
  sb_free(&dumps);
  if (e) return e;
  if ((e = c->target->emit(&c->code, c))) return e;
  c->compile_ms = coil_now_ms() - t0;
  if (wants(o, c->target->name)) { header(o, c->target->name); sb_puts(o->dump_out, c->code.data ? c->code.data : ""); }
  return NULL;
}

void compiled_free(Compiled *c) {
  if (c->target && c->target->release) c->target->release(c);
  sb_free(&c->code);
  arena_free(&c->arena);
}
