/* Order: the memory order of each reduction group.
 *
 * Requires simplified kernels (simplify.c).  Guarantees: in every group,
 * the r axes run outer to inner by decreasing |stride| of the group's lead
 * load (the load moving the most bytes per r point; the first of equals),
 * axes the lead does not touch outermost; axes that became adjacent and
 * contiguous are merged again.  A target that walks r axes in this order
 * reads its heaviest input as a stream (the seed's 405 MB grad_out goes
 * through memory once, in order); the CPU schedule and the Triton tiles
 * both start from it. */
#include "coil.h"

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

int kernel_group_lead(const Kernel *k, int g) {
  int lead = -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope != g) continue;
    if (lead < 0 || dtype_size(v->dtype) > dtype_size(k->vals[lead].dtype)) lead = i;
  }
  return lead;
}

static void order_group(Kernel *k, KGroup *g, int gi) {
  int lead = kernel_group_lead(k, gi);
  if (lead < 0) return;
  const IExpr *ix = k->vals[lead].index;
  /* A stable insertion sort, so axes of equal stride keep the IR's order. */
  for (int i = 1; i < g->naxes; i++) {
    int ax = g->axes[i], j = i;
    int64_t s = abs64(ix_coef(ix, ax));
    while (j > 0 && abs64(ix_coef(ix, g->axes[j - 1])) < s) {
      g->axes[j] = g->axes[j - 1];
      j--;
    }
    g->axes[j] = ax;
  }
}

void order_kernel(Arena *a, Kernel *k) {
  for (int g = 0; g < k->ngroups; g++) order_group(k, &k->groups[g], g);
  simplify_kernel(a, k);
}
