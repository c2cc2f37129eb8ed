/* Axis simplification on kernel IR.
 *
 * Two adjacent axes (outer a, inner b) of the same loop nest merge when
 * every access steps through them as one: coef(a) == coef(b) * size(b),
 * and neither sits inside a div/mod.  The merged axis keeps b's place and
 * covers size(a) * size(b).  Size-1 axes never exist (lowering pins them
 * to 0).  Merging is what makes `x.sum((2, 3))` over a contiguous tail one
 * long vectorisable loop.
 *
 * Requires: a verified kernel.  Guarantees: the same kernel, fewer axes,
 * every index rewritten. */
#include <string.h>

#include "coil.h"

/* Every index expression of the kernel: loads (and their guards), index
 * values, stores. */
static int all_indices(Kernel *k, IExpr ***out, Arena *a) {
  int n;
  *out = (IExpr **)kernel_indices(a, k, &n);
  return n;
}

static bool mergeable(Kernel *k, IExpr ***idx, int n, int a, int b) {
  for (int i = 0; i < n; i++) {
    const IExpr *e = *idx[i];
    if (ix_mentions_nonlinear(e, a) || ix_mentions_nonlinear(e, b)) return false;
    if (ix_coef(e, a) != ix_coef(e, b) * k->axes[b].size) return false;
  }
  return true;
}

static void merge(Arena *a, Kernel *k, IExpr ***idx, int n, int outer, int inner) {
  IExpr **sub = ARENA_ARRAY(a, IExpr *, k->naxes);
  sub[outer] = ix_const(a, 0);
  k->axes[inner].size *= k->axes[outer].size;
  k->axes[outer].size = 1;
  IRange r = kernel_range(a, k);
  for (int i = 0; i < n; i++) *idx[i] = ix_subst(a, r, *idx[i], sub);
}

static bool merge_list(Arena *a, Kernel *k, IExpr ***idx, int n, int *axes, int *naxes) {
  for (int i = 0; i + 1 < *naxes; i++) {
    if (!mergeable(k, idx, n, axes[i], axes[i + 1])) continue;
    merge(a, k, idx, n, axes[i], axes[i + 1]);
    memmove(&axes[i], &axes[i + 1], sizeof(int) * (size_t)(*naxes - i - 1));
    (*naxes)--;
    return true;
  }
  return false;
}

void simplify_kernel(Arena *a, Kernel *k) {
  IExpr ***idx;
  int n = all_indices(k, (IExpr ***)&idx, a);
  bool changed = true;
  while (changed) {
    changed = merge_list(a, k, idx, n, k->x, &k->nx);
    for (int g = 0; g < k->ngroups; g++) changed |= merge_list(a, k, idx, n, k->groups[g].axes, &k->groups[g].naxes);
  }
  /* Rename what remains so dumps read x0.., r<nx>.. in loop order. */
  for (int i = 0; i < k->nx; i++) k->axes[k->x[i]].name = arena_printf(a, "x%d", i);
  int r = k->nx;
  for (int g = 0; g < k->ngroups; g++)
    for (int i = 0; i < k->groups[g].naxes; i++) k->axes[k->groups[g].axes[i]].name = arena_printf(a, "r%d", r++);
  kernel_set_scopes(k);
}
