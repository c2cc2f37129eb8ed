/* Running the Triton backends' kernels on the CPU, through coil's own
 * Triton executor (src/tx/): `coil run --target triton-npu|triton-gpu`.
 *
 * The module is the one `coil emit --target ...` prints; the launch plan
 * binds each kernel argument to a Program buffer (or to a scratch buffer
 * for split reductions), so the executor reads and writes the same
 * tensors the C backend would, and the same check follows.
 *
 * Requires: Compiled.code printed from Compiled.plan (a TritonPlan).
 * Guarantees: the launches run in the plan's order; scratch is allocated
 * here, zeroed, and freed before returning; a failed index check is the
 * error of its graph node (ref_index_error). */
#include <stdlib.h>
#include <string.h>

#include "triton/triton.h"
#include "tx/tx.h"

CoilErr *run_triton_kernels(const Compiled *c, void *const *bufs, double *ms) {
  const TritonPlan *plan = c->plan;
  Arena a = {0};
  TxModule *m = NULL;
  char *name = arena_printf(&a, "%s [coil emit --target %s]", c->module.file, c->target->name);
  CoilErr *e = tx_module_parse(name, c->code.data, &m);
  void **scratch = calloc((size_t)plan->nscratch + 1, sizeof(void *));
  for (int s = 0; !e && s < plan->nscratch; s++) {
    size_t bytes = (size_t)(plan->scratch[s].numel ? plan->scratch[s].numel : 1) * (size_t)dtype_size(plan->scratch[s].dtype);
    /* zeroed: the status must start at 0 (TritonPlan.status) */
    if (!(scratch[s] = calloc(1, bytes))) e = coil_err("out of memory for scratch %s", plan->scratch[s].name);
  }
  double t0 = coil_now_ms();
  for (int l = 0; !e && l < plan->nlaunches; l++) {
    const TritonLaunch *L = &plan->launches[l];
    TxArg *args = ARENA_ARRAY(&a, TxArg, L->nargs + 1);
    for (int i = 0; i < L->nargs; i++) {
      const TritonArg *ta = &L->args[i];
      args[i].name = ta->name;
      if (!ta->is_ptr) {
        args[i].kind = TX_INT;
        args[i].ival = ta->value;
      } else if (ta->buf < plan->nbufs) {
        const Buffer *b = &c->program.bufs[ta->buf];
        args[i] = (TxArg){.name = ta->name, .kind = TX_PTR, .dtype = b->dtype, .data = bufs[ta->buf], .numel = b->numel};
      } else {
        const TritonScratch *s = &plan->scratch[ta->buf - plan->nbufs];
        args[i] = (TxArg){.name = ta->name, .kind = TX_PTR, .dtype = s->dtype, .data = scratch[ta->buf - plan->nbufs], .numel = s->numel};
      }
    }
    e = tx_module_run(m, L->kernel, L->grid, args, L->nargs, NULL);
  }
  if (ms) *ms = coil_now_ms() - t0;
  /* a failed index check the kernels reported only through the status
   * (the executor's device_assert raises first, so this is the fallback) */
  if (!e && plan->status >= 0) {
    int32_t id = *(const int32_t *)scratch[plan->status - plan->nbufs];
    if (id > 0 && id <= c->graph.nnodes) e = ref_index_error(&c->graph, id - 1);
  }
  for (int s = 0; s < plan->nscratch; s++) free(scratch[s]);
  free(scratch);
  if (m) tx_module_free(m);
  arena_free(&a);
  return e;
}
