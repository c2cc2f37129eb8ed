/* CPU scheduling: loop order, vector mode, tiles, blocking and splits.
 * See the sched.c section of coil.h for what each parameter means.  All
 * decisions come from the kernel's access strides and sizes; none depends
 * on the number of threads, so results are reproducible everywhere.
 *
 * Loop order: the load that moves the most bytes streams (its r axes in
 * decreasing stride).  Another load laid out across it (the seed's q: 256
 * contiguous bytes per r point, 16 KB apart) is not tiled to stream too:
 * moving its contiguous axis innermost in tiles of a page made the seed
 * slower on both machines measured at full thread count (docs/bench.md).
 * X tiles: up to MAX_XTILE points, so a column sum reads whole rows (its
 * block accumulators live in L1/L2; the C printer takes 8 r points per pass
 * over them). */
#include <stdlib.h>
#include <string.h>

#include "coil.h"

/* Fewer tasks than this and the reduction is split across threads. */
#define TARGET_TASKS 64
/* A split part should still hold this many elements of work. */
#define MIN_SPLIT_WORK (1 << 15)
/* VEC_R: independent lanes per row (several vector registers, so the adds
 * do not wait on each other) and the row chunk summed before each flush. */
#define LANES 64
#define CHUNK 4096
/* VEC_X: r points per block flush, and the widest x tile. */
#define RBLOCK 256
#define MAX_XTILE 16384

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* The load that moves the most bytes per r point leads the loop order. */
static void order_group(Kernel *k, KGroup *g, int gi) {
  const KVal *lead = NULL;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope != gi) continue;
    if (!lead || dtype_size(v->dtype) > dtype_size(lead->dtype)) lead = v;
  }
  if (!lead) return;
  /* Stable insertion sort by decreasing |stride| in the lead load; axes the
   * lead does not touch go outermost. */
  for (int i = 1; i < g->naxes; i++) {
    int ax = g->axes[i], j = i;
    int64_t s = abs64(ix_coef(lead->index, ax));
    while (j > 0 && abs64(ix_coef(lead->index, g->axes[j - 1])) < s) {
      g->axes[j] = g->axes[j - 1];
      j--;
    }
    g->axes[j] = ax;
  }
}

static int64_t group_points(const Kernel *k, const KGroup *g, int skip_inner) {
  int64_t n = 1;
  for (int i = 0; i < g->naxes - skip_inner; i++) n *= k->axes[g->axes[i]].size;
  return n;
}

void sched_kernel_c(Arena *a, Kernel *k, const Program *p, CSched *s) {
  (void)p;
  for (int g = 0; g < k->ngroups; g++) order_group(k, &k->groups[g], g);
  simplify_kernel(a, k);
  *s = (CSched){.mode = VEC_X, .nsplit = 1, .lanes = LANES, .chunk = CHUNK, .rblock = RBLOCK};
  int xin = k->nx ? k->x[k->nx - 1] : -1;
  int64_t wx = 0, wr = 0;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope < 0) continue;
    const KGroup *g = &k->groups[v->scope];
    int rin = g->axes[g->naxes - 1];
    if (xin >= 0 && ix_coef(v->index, xin) == 1) wx += dtype_size(v->dtype);
    if (ix_coef(v->index, rin) == 1) wr += dtype_size(v->dtype);
  }
  if (k->ngroups && (xin < 0 || wr > wx)) s->mode = VEC_R;
  int64_t xpoints = 1;
  for (int i = 0; i < k->nx; i++) xpoints *= k->axes[k->x[i]].size;
  int64_t tiles;
  if (s->mode == VEC_X) {
    /* Tiles of at most MAX_XTILE points, as even as possible. */
    int64_t inner = xin >= 0 ? k->axes[xin].size : 1;
    int64_t ntx = (inner + MAX_XTILE - 1) / MAX_XTILE;
    s->xtile = (inner + ntx - 1) / ntx;
    if (ntx > 1) s->xtile = (s->xtile + 15) / 16 * 16;
    ntx = (inner + s->xtile - 1) / s->xtile;
    tiles = xpoints / inner * ntx;
  } else {
    s->xtile = 1;
    tiles = xpoints;
  }
  if (!k->ngroups || tiles >= TARGET_TASKS) return;
  /* Split: as many parts as keep every part worth a thread's while. */
  int64_t want = (TARGET_TASKS + tiles - 1) / tiles;
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    int64_t units, work;
    if (s->mode == VEC_R) {
      int64_t n = k->axes[G->axes[G->naxes - 1]].size;
      units = group_points(k, G, 1) * ((n + s->chunk - 1) / s->chunk);
      work = group_points(k, G, 0);
    } else {
      units = (group_points(k, G, 0) + s->rblock - 1) / s->rblock;
      work = group_points(k, G, 0) * s->xtile;
    }
    int64_t by_work = work / MIN_SPLIT_WORK;
    if (want > units) want = units;
    if (want > by_work) want = by_work;
  }
  s->nsplit = want > 1 ? want : 1;
}

void sched_dump(StrBuf *sb, const Kernel *k, const CSched *s) {
  sb_printf(sb, "schedule %s (cpu)\n", k->name);
  sb_printf(sb, "  loops: x");
  for (int i = 0; i < k->nx; i++) sb_printf(sb, " %s[%lld]", k->axes[k->x[i]].name, (long long)k->axes[k->x[i]].size);
  for (int g = 0; g < k->ngroups; g++) {
    sb_printf(sb, " | group %d:", g);
    for (int i = 0; i < k->groups[g].naxes; i++) {
      int ax = k->groups[g].axes[i];
      sb_printf(sb, " %s[%lld]", k->axes[ax].name, (long long)k->axes[ax].size);
    }
  }
  sb_puts(sb, "\n");
  if (s->mode == VEC_X)
    sb_printf(sb, "  vectorise over the innermost x axis: tile %lld, r block %lld\n", (long long)s->xtile, (long long)s->rblock);
  else
    sb_printf(sb, "  vectorise over the innermost r axis: %d lanes, chunk %lld\n", s->lanes, (long long)s->chunk);
  sb_printf(sb, "  split each reduction into %lld part%s\n", (long long)s->nsplit, s->nsplit == 1 ? "" : "s");
}
