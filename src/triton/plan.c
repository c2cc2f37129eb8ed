/* The Triton backends' tile model and launch plan.
 *
 * One model, two machines:
 *   NPU (Ascend): C vector cores, each with a unified buffer (UB) of U
 *     bytes that every live tile of a loop body occupies, fed by DMA that
 *     wants 32-byte aligned contiguous runs.  A sub-tile is X0BLOCK_SUB x
 *     R<k>BLOCK_SUB...: as many elements as the UB holds at the kernel's
 *     bytes per element, filled in the memory order of the heaviest load
 *     (its unit-stride axis first, so DMA runs are long).  Programs take
 *     X0BLOCK outputs each; when the outputs give fewer programs than
 *     cores, each program takes a chunk of one reduction axis instead and
 *     a second kernel combines the parts.
 *   GPU (NVIDIA): S multiprocessors (132 on an H200), each 64K registers
 *     and 2048 threads.  The grid aims at four blocks per multiprocessor;
 *     a tile is spread over num_warps * 32 threads, and the points each
 *     thread holds set its registers.  Column reductions (the output axis
 *     is unit-stride, as in the seed) take XBLOCK outputs (rows of 128
 *     bytes or more, padding x the least) and RBLOCK r points: 4096-point
 *     tiles at 8 warps when x alone gives the four blocks per
 *     multiprocessor, else 8192 at 4 and the reduction split, fewer points
 *     a thread where f64 accumulators would crowd the registers (and then
 *     the narrowest x block, so that the r steps stay long).  Row
 *     reductions take a whole row in one block up to 4096 (a persistent
 *     reduction), else loop in steps of 4096 or 2048, 1024 where rows
 *     start off 16 bytes (one load instruction per element).  Reduction
 *     axes are flattened and recovered with // and % by constants (shifts
 *     and multiplies, cheaper than nested loops whose inner trip counts
 *     are small).  With fewer blocks than that, the flat range is split
 *     into RSPLIT chunks and a second kernel combines the parts.  Chains
 *     (gpu_chains): a row statistic and the kernels that read it back
 *     (softmax, RMSNorm) run as one launch, the row in registers when it
 *     fits.  The constants come from sweeps on an H200 (docs/gpu.md).
 *
 * The plan also settles every launch, so that the module's printers, its
 * COIL_LAUNCHES table and coil's executor agree by construction: per
 * Program kernel its main launch and, split, its combine launch (kernel
 * name, grid, num_warps, the arguments in the functions' parameter
 * order: pointers bound to buffer ids, constexprs with their values), and
 * which values each function computes (TKernel.need_grp, need_post),
 * which decides the in_ptr parameters.
 *
 * Requires: a compiled program.  Guarantees: every kernel gets a tile
 * whose tl.arange sizes are powers of two, and masks for every tail;
 * TKernel.launch (and claunch, split) index plan->launches, which are in
 * launch order.  Prints no code and calls no other file of the backend. */
#include <stdlib.h>
#include <string.h>

#include "triton/triton.h"

void triton_options_default(TritonOptions *o) {
  *o = (TritonOptions){.npu_cores = 40, .npu_ub_kb = 192, .gpu_sms = 132, .gpu_smem_kb = 228};
}

/* ------------------------------------------------------------- types */

static bool is_half(DType t) { return t == DT_BF16 || t == DT_F16; }
static int rsize(DType t) { return t == DT_BF16 || t == DT_F16 ? 4 : dtype_size(t); }

static int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

static int64_t pow2_floor(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* |c| + sum |coef| * 2 * size over the axes an index reads (atoms count
 * their expression's bound). */
static int64_t index_bound(const Kernel *k, const IExpr *e) {
  int64_t b = abs64(e->c);
  for (int i = 0; i < e->n; i++) {
    const IAtom *at = e->t[i].atom;
    int64_t r = at->kind == IA_AXIS ? 2 * k->axes[at->axis].size : at->kind == IA_MOD ? at->d : index_bound(k, at->e) / at->d + 1;
    if (r > ((int64_t)1 << 40) || abs64(e->t[i].coef) > ((int64_t)1 << 40)) return INT64_MAX / 4;
    b += abs64(e->t[i].coef) * r;
  }
  return b;
}

/* True when every index of the kernel, over tiles padded up to twice the
 * axis sizes, stays below 2^31. */
static bool fits_int32(const Program *p, const Kernel *k) {
  const int64_t lim = (int64_t)1 << 31;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if ((op_is_load(v->op) || v->op == OP_IOTA) && index_bound(k, v->index) >= lim) return false;
    if (v->op == OP_GATHER && index_bound(k, v->index) + (v->gsize - 1) * v->gstride >= lim) return false;
    for (int j = 0; j < v->nguard; j++)
      if (index_bound(k, v->guard[j].e) >= lim) return false;
  }
  for (int s = 0; s < k->nstores; s++) {
    const KStore *st = &k->stores[s];
    if (index_bound(k, st->index) + (st->indexed ? (st->gsize - 1) * st->gstride : 0) >= lim) return false;
  }
  for (int b = 0; b < p->nbufs; b++)
    if (p->bufs[b].numel * 2 >= lim) return false;
  return true;
}

/* ------------------------------------------------------ the tile model */

static int64_t x_numel(const Kernel *k) {
  int64_t n = 1;
  for (int i = 0; i < k->nx; i++) n *= k->axes[k->x[i]].size;
  return n;
}

/* |stride| of the flat x index in a load: its innermost x axis's. */
static int64_t x_stride(const Kernel *k, const KVal *v) {
  for (int i = k->nx - 1; i >= 0; i--) {
    int64_t c = abs64(ix_coef(v->index, k->x[i]));
    if (c) return c;
  }
  return 0;
}

/* The group's heaviest load (most bytes per point; the first on ties). */
static int group_lead(const Kernel *k, int g) {
  int lead = -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope != g) continue;
    if (lead < 0 || dtype_size(v->dtype) > dtype_size(k->vals[lead].dtype)) lead = i;
  }
  return lead;
}

/* Bytes the NPU keeps in its UB per element of group g's sub-tile: loads
 * twice (DMA double buffering), plus an f32 copy of half loads and a
 * permuted copy; every computed value; per reduction the accumulator,
 * the masked value and its reshape (an arg-reduction's int64 positions
 * too); one byte of mask. */
static int64_t npu_elem_bytes(const Kernel *k, int g) {
  int64_t b = 1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->scope != g || v->op == OP_CONST) continue;
    if (op_is_load(v->op)) b += 2 * dtype_size(v->dtype) + (is_half(v->dtype) ? 4 : 0) + rsize(v->dtype);
    else b += rsize(v->dtype);
  }
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].group == g) b += 3 * rsize(k->reds[r].dtype) + (op_is_argred(k->reds[r].op) ? 3 * 8 : 0); /* and its positions */
  return b < 8 ? 8 : b;
}

typedef struct Dim {
  int axis;       /* -1: the flat x dim */
  int64_t size;
  int64_t stride; /* in the lead load; 0: not read by it */
} Dim;

/* The dims of group g (x first, then its axes), ordered innermost first
 * in the lead load's memory order; dims it does not read go last. */
static int fill_order(const Kernel *k, const TKernel *tk, int g, int lead, Dim *d) {
  int n = 0;
  d[n++] = (Dim){-1, tk->xnumel, lead >= 0 ? x_stride(k, &k->vals[lead]) : 0};
  for (int i = 0; i < tk->g[g].naxes; i++) {
    int ax = tk->g[g].axes[i];
    d[n++] = (Dim){ax, k->axes[ax].size, lead >= 0 ? abs64(ix_coef(k->vals[lead].index, ax)) : 0};
  }
  /* stable insertion sort: stride ascending, 0 last; the reversed IR
   * order among unread dims (inner axes first) */
  for (int i = 1; i < n; i++) {
    Dim t = d[i];
    int j = i;
    while (j > 0) {
      int64_t a = d[j - 1].stride, b = t.stride;
      bool before = b && (!a || b < a);
      if (!before) break;
      d[j] = d[j - 1];
      j--;
    }
    d[j] = t;
  }
  return n;
}

/* Fill group g's r sub-blocks with `budget` elements per sub-tile, given
 * x's sub-block xs, in fill order. */
static void npu_fill_r(const Kernel *k, TKernel *tk, int g, int64_t budget, int64_t xs) {
  TGroup *G = &tk->g[g];
  Dim d[COIL_MAX_DIMS + 1];
  int n = fill_order(k, tk, g, group_lead(k, g), d);
  int64_t rem = budget / xs;
  if (rem < 1) rem = 1;
  for (int i = 0; i < n; i++) {
    if (d[i].axis < 0) continue;
    int64_t s = pow2_ceil(d[i].size);
    if (s > rem) s = rem;
    rem /= s;
    for (int j = 0; j < G->naxes; j++)
      if (G->axes[j] == d[i].axis) G->sub[j] = s;
  }
}

/* Given the x sub-block xs: the r sub-blocks, X0BLOCK, and the split. */
static void npu_layout(const Kernel *k, const TritonOptions *o, TKernel *tk, int64_t xs) {
  const int64_t cores = o->npu_cores;
  tk->x0sub = xs;
  for (int g = 0; g < k->ngroups; g++) {
    npu_fill_r(k, tk, g, tk->g[g].budget, xs);
    tk->g[g].split_axis = -1;
  }
  int64_t xt = cdiv(tk->xnumel, xs);
  tk->nsplit = 1;
  if (xt >= cores) {
    tk->x0block = xs * cdiv(xt, cores);
    tk->xprogs = cdiv(tk->xnumel, tk->x0block);
    return;
  }
  tk->x0block = xs;
  tk->xprogs = xt;
  int64_t work = 0;
  for (int g = 0; g < k->ngroups; g++)
    if (tk->g[g].numel * tk->xnumel > work) work = tk->g[g].numel * tk->xnumel;
  /* as many parts as idle cores, each still worth 16384 elements */
  int64_t want = cores / xt, by_work = work / (((int64_t)1 << 14) * xt);
  if (want > by_work) want = by_work;
  if (!k->ngroups || want < 2) return;
  /* Split each group along its axis with the most sub-blocks. */
  int64_t ns = 1;
  for (int g = 0; g < k->ngroups; g++) {
    TGroup *G = &tk->g[g];
    int best = 0;
    for (int i = 1; i < G->naxes; i++)
      if (cdiv(k->axes[G->axes[i]].size, G->sub[i]) > cdiv(k->axes[G->axes[best]].size, G->sub[best])) best = i;
    G->split_axis = best;
    int64_t size = k->axes[G->axes[best]].size, sub = G->sub[best];
    int64_t iters = cdiv(size, sub);
    int64_t w = want < iters ? want : iters;
    G->split_chunk = cdiv(iters, w) * sub;
    int64_t parts = cdiv(size, G->split_chunk);
    if (parts > ns) ns = parts;
  }
  if (ns >= 2) tk->nsplit = ns;
  else
    for (int g = 0; g < k->ngroups; g++) tk->g[g].split_axis = -1;
}

static double npu_cost(const Kernel *k, const TKernel *tk, int64_t cores) {
  int64_t loops_x = cdiv(tk->x0block, tk->x0sub);
  double elems = 0, steps = 0;
  for (int g = 0; g < k->ngroups; g++) {
    const TGroup *G = &tk->g[g];
    double e = 1, n = 1;
    for (int i = 0; i < G->naxes; i++) {
      int64_t len = G->split_axis == i && tk->nsplit > 1 ? G->split_chunk : k->axes[G->axes[i]].size;
      int64_t it = cdiv(len, G->sub[i]);
      n *= (double)it;
      e *= (double)(it * G->sub[i]);
    }
    elems += e;
    steps += n;
  }
  if (!k->ngroups) steps = 1, elems = 1;
  double waves = (double)cdiv(tk->xprogs * tk->nsplit, cores);
  return waves * (double)loops_x * ((double)tk->x0sub * elems + 1024.0 * steps);
}

static void npu_model(const Kernel *k, const TritonOptions *o, TKernel *tk) {
  const int64_t ub = (int64_t)o->npu_ub_kb * 1024, cores = o->npu_cores;
  const int64_t cap = (int64_t)1 << 15;
  int64_t xs = pow2_ceil(tk->xnumel), xs_min = 1;
  for (int g = 0; g < k->ngroups; g++) {
    TGroup *G = &tk->g[g];
    G->elem_bytes = npu_elem_bytes(k, g);
    G->budget = pow2_floor(ub / G->elem_bytes);
    if (G->budget > cap) G->budget = cap;
    if (G->budget < 1) G->budget = 1;
    int lead = group_lead(k, g);
    Dim d[COIL_MAX_DIMS + 1];
    int n = fill_order(k, tk, g, lead, d);
    int64_t rem = G->budget;
    for (int i = 0; i < n; i++) {
      int64_t s = pow2_ceil(d[i].size);
      if (s > rem) s = rem;
      rem /= s;
      if (d[i].axis < 0 && s < xs) xs = s;
      /* the x sub-block keeps DMA runs of 32 bytes when x is innermost */
      if (d[i].axis < 0 && i == 0 && d[i].stride == 1 && lead >= 0) {
        int64_t m = 32 / dtype_size(k->vals[lead].dtype);
        if (m > xs_min) xs_min = m;
      }
    }
  }
  if (!k->ngroups) {
    /* pointwise: every value of the kernel lives in the sub-tile */
    int64_t b = 1;
    for (int i = 0; i < k->nvals; i++)
      if (k->vals[i].op != OP_CONST) b += op_is_load(k->vals[i].op) ? 2 * dtype_size(k->vals[i].dtype) + 4 : rsize(k->vals[i].dtype);
    int64_t budget = pow2_floor(ub / b);
    if (budget > cap) budget = cap;
    if (xs > budget) xs = budget;
  }
  if (xs_min > xs) xs_min = xs;
  /* The x sub-block of least modelled time: per wave of cores, the
   * elements a program processes (masked padding included) plus 1024
   * element-times per sub-tile step; the larger on ties, for longer DMA
   * runs. */
  double best = -1;
  int64_t best_xs = xs;
  for (int64_t cand = xs; cand >= xs_min; cand /= 2) {
    npu_layout(k, o, tk, cand);
    double cost = npu_cost(k, tk, cores);
    if (best < 0 || cost < best * (1 - 1e-9)) {
      best = cost;
      best_xs = cand;
    }
  }
  npu_layout(k, o, tk, best_xs);
  if (tk->nsplit > 1) {
    tk->csub_s = pow2_ceil(tk->nsplit) < 64 ? pow2_ceil(tk->nsplit) : 64;
    int64_t cx = 4096 / tk->csub_s, px = pow2_ceil(tk->xnumel);
    tk->csub_x = cx < px ? cx : px;
    int64_t ct = cdiv(tk->xnumel, tk->csub_x);
    tk->cx0block = tk->csub_x * (ct > cores ? cdiv(ct, cores) : 1);
  }
}

/* GPU: the machine (an H200 by default; TritonOptions gives the SMs).
 * Per multiprocessor: 64K 32-bit registers, 2048 threads.  A tile is
 * spread over num_warps * 32 threads; accumulators of [XBLOCK, RBLOCK]
 * take tile / threads registers each per thread (two for 64-bit). */
enum {
  GPU_ACC_REGS = 64,        /* accumulator registers per thread the model allows */
  GPU_COL_TILE = 8192,      /* column tiles: elements a step (64 per thread at 4 warps) */
  GPU_ROW_TILE = 2048,      /* row tiles: elements a step */
  GPU_BLOCKS_PER_SM = 4,    /* blocks per multiprocessor the grid aims for */
  GPU_PERSIST_MAX = 8192,   /* chains: the most elements of a row a block holds */
  GPU_LAST_COMBINE = 4096,  /* the most bytes of parts per x block that its last part's block combines */
};

/* Registers per element of the reductions' accumulators, summed, a 64-bit
 * one counted as four: two registers, and the f64 adds and conversions
 * that run at a fraction of the f32 rate (a variance over 160 columns in
 * f64: 67% of a read at 8 points a thread, 42% at 16); an arg-reduction's
 * int64 positions as another 64-bit one. */
static int64_t acc_words(const Kernel *k) {
  int64_t w = 0;
  for (int r = 0; r < k->nreds; r++) w += (dtype_size(k->reds[r].dtype) > 4 ? 4 : 1) + (op_is_argred(k->reds[r].op) ? 4 : 0); /* int64 positions */
  return w < 1 ? 1 : w;
}

/* Are the reductions two f64 sums, as var and std of f32 accumulate? */
static bool variance_sums(const Kernel *k) {
  if (k->nreds != 2) return false;
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].op != OP_SUM || k->reds[r].dtype != DT_F64) return false;
  return true;
}

/* The x block of a column tile: rows of at least 128 bytes of the lead
 * load (a warp's coalesced segment), up to 128 outputs; among those that
 * pad x the least, the largest that still gives GPU_BLOCKS_PER_SM blocks
 * per multiprocessor without splitting the reduction, else the largest
 * (the reduction is then split); narrow: the smallest of them. */
static int64_t col_xblock(const Kernel *k, const TKernel *tk, int64_t sms, bool narrow) {
  int64_t px = pow2_ceil(tk->xnumel);
  int64_t eb = tk->lead_load >= 0 ? dtype_size(k->vals[tk->lead_load].dtype) : 4;
  int64_t lo = 128 / (eb < 1 ? 1 : eb);
  if (lo > 128) lo = 128;
  if (lo > px) lo = px;
  int64_t pad = INT64_MAX;
  for (int64_t xb = lo; xb <= 128 && xb <= px; xb *= 2)
    if (cdiv(tk->xnumel, xb) * xb < pad) pad = cdiv(tk->xnumel, xb) * xb;
  int64_t best = 0, any = lo;
  for (int64_t xb = lo; xb <= 128 && xb <= px; xb *= 2) {
    if (cdiv(tk->xnumel, xb) * xb != pad) continue;
    if (narrow) return xb;
    any = xb;
    if (cdiv(tk->xnumel, xb) >= GPU_BLOCKS_PER_SM * sms) best = xb;
  }
  return best ? best : any;
}

/* Can the lead load of a row tile be read in 16-byte vectors?  Not when a
 * row starts off a 16-byte boundary: some stride other than the unit one,
 * or the offset, is no multiple of 16 bytes (13001 bf16 values a row). */
static bool rows_aligned(const Kernel *k, const TKernel *tk) {
  if (tk->lead_load < 0) return true;
  const KVal *v = &k->vals[tk->lead_load];
  int64_t es = dtype_size(v->dtype);
  if (v->index->c * es % 16) return false;
  for (int i = 0; i < v->index->n; i++) {
    int64_t c = abs64(v->index->t[i].coef);
    if (c != 1 && c * es % 16) return false;
  }
  return true;
}

/* A split into parts that each take the same whole number of RBLOCK steps
 * needs no rmask (gpu.c drops it where RSPLIT_CHUNK * RSPLIT is rnumel):
 * the largest such part count in [3/4 want, want], where every group's
 * length is a multiple of its RBLOCK and has that many steps in every part;
 * else want.  No more parts than want, so no more waves of blocks.  (An
 * NHWC variance, 200704 rows in 3136 steps of 64: 105 parts of 1920 rows,
 * masked, against 98 of 2048 unmasked; docs/gpu.md, 2026-12-02.) */
static int64_t even_split(const Kernel *k, const TKernel *tk, int64_t want) {
  for (int64_t s = want; 4 * s >= 3 * want && s >= 2; s--) {
    bool even = true;
    for (int g = 0; g < k->ngroups && even; g++) {
      const TGroup *G = &tk->g[g];
      even = G->numel % G->rblock == 0 && (G->numel / G->rblock) % s == 0;
    }
    if (even) return s;
  }
  return want;
}

/* Bytes a point of the reduction loads: the loads inside its groups. */
static int64_t reduced_load_bytes(const Kernel *k) {
  int64_t b = 0;
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_INPUT && k->vals[i].scope >= 0) b += dtype_size(k->vals[i].dtype);
  return b;
}

/* GPU: bytes of the loads of group g that are unit-stride along the
 * innermost x axis (wx) or the group's innermost r axis (wr). */
static void gpu_model(const Kernel *k, const TritonOptions *o, TKernel *tk) {
  const int64_t sms = o->gpu_sms;
  int64_t wx = 0, wr = 0;
  int xin = k->nx ? k->x[k->nx - 1] : -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope < 0) continue;
    const KGroup *G = &k->groups[v->scope];
    if (xin >= 0 && ix_coef(v->index, xin) == 1) wx += dtype_size(v->dtype);
    if (ix_coef(v->index, G->axes[G->naxes - 1]) == 1) wr += dtype_size(v->dtype);
  }
  tk->x_contig = wx > 0 && wx >= wr;
  int64_t px = pow2_ceil(tk->xnumel);
  tk->nsplit = 1;
  tk->chain = -1;
  if (!k->ngroups) {
    tk->xblock = px < 1024 ? px : 1024;
    tk->num_warps = tk->xblock >= 1024 ? 4 : tk->xblock >= 256 ? 2 : 1;
    if (o->gpu_tile[0]) tk->xblock = o->gpu_tile[0];
    if (o->gpu_tile[3]) tk->num_warps = (int)o->gpu_tile[3];
    tk->xprogs = cdiv(tk->xnumel, tk->xblock);
    return;
  }
  int64_t rmax = 1;
  bool f64_tile = false; /* a column tile that a variance's f64 sums shrank */
  if (tk->x_contig) {
    /* column tiles: x along the unit stride, GPU_COL_TILE elements a step
     * at 4 warps, less where the accumulators would pass GPU_ACC_REGS
     * registers a thread (f64 sums: var, std) */
    tk->xblock = o->gpu_tile[0] ? o->gpu_tile[0] : col_xblock(k, tk, sms, false);
    /* Many x blocks: 4096-point tiles at 8 warps, 16 points a thread
     * (20011 columns: 93% of a read, against 75% at 64 a thread).  Few (the
     * reduction is split, each block a long loop): 8192-point tiles at 4
     * warps, 64 a thread (the seed's best), with more warps, then smaller
     * tiles, while the accumulators take more than GPU_ACC_REGS registers
     * a thread (f64 sums: var, std). */
    int64_t tile = GPU_COL_TILE, warps = 4;
    if (cdiv(tk->xnumel, tk->xblock) >= GPU_BLOCKS_PER_SM * sms) tile = GPU_COL_TILE / 2, warps = 8;
    int64_t full = tile;
    while (tile > 1024 && tile / (32 * warps) * acc_words(k) > GPU_ACC_REGS) {
      if (warps < 8) warps = 8;
      else tile /= 2;
    }
    /* A tile the accumulators shrank keeps its r steps: the narrowest x
     * block (128-byte rows), not 128 outputs of a few rows each (f32
     * variances over 256-1024 columns, 2048-point tiles at 8 warps: 62-71%
     * of a read at 32 x 64 against 58-64% at 128 x 16; an argmax, an f64
     * sum and an amax beside an f64 mean over columns: 3-16 points more;
     * docs/gpu.md, 2026-12-03, evening and night). */
    if (tile < full && !o->gpu_tile[0]) tk->xblock = col_xblock(k, tk, sms, true);
    f64_tile = tile < full && variance_sums(k);
    tk->num_warps = (int)warps;
    for (int g = 0; g < k->ngroups; g++) {
      TGroup *G = &tk->g[g];
      int64_t r = tile / tk->xblock, pr = pow2_ceil(G->numel);
      if (r < 1) r = 1;
      if (o->gpu_tile[1]) r = o->gpu_tile[1];
      G->rblock = r < pr ? r : pr;
      if (G->rblock > rmax) rmax = G->rblock;
    }
    /* short columns: fewer warps, the same points a thread */
    int64_t w = tk->xblock * rmax * warps / tile;
    if (w < warps) tk->num_warps = (int)(w < 2 ? 2 : w);
  } else {
    /* row tiles: a whole row when it fits in 4096, else steps of 4096 or
     * 2048, whichever pads the row less (13001 points: 2048) */
    for (int g = 0; g < k->ngroups; g++) {
      TGroup *G = &tk->g[g];
      int64_t pr = pow2_ceil(G->numel);
      G->rblock = pr <= 2 * GPU_ROW_TILE ? pr : cdiv(G->numel, 2 * GPU_ROW_TILE) * 2 * GPU_ROW_TILE <= cdiv(G->numel, GPU_ROW_TILE) * GPU_ROW_TILE ? 2 * GPU_ROW_TILE : GPU_ROW_TILE;
      /* rows that take one load instruction per element: 1024-point steps
       * (two loads a thread at 16 warps: 13001 bf16 values a row, 93% of a
       * read, against 82% in 2048-point steps) */
      if (!rows_aligned(k, tk) && G->rblock > GPU_ROW_TILE / 2) G->rblock = GPU_ROW_TILE / 2;
      if (o->gpu_tile[1]) G->rblock = o->gpu_tile[1] < pr ? o->gpu_tile[1] : pr;
      if (G->rblock > rmax) rmax = G->rblock;
    }
    int64_t rt = rows_aligned(k, tk) ? GPU_ROW_TILE : GPU_ROW_TILE / 2;
    int64_t xb = rmax < rt ? rt / rmax : 1;
    tk->xblock = xb < px ? xb : px;
    if (tk->xblock < 1) tk->xblock = 1;
    /* more blocks for the multiprocessors, down to 256-element tiles */
    while (tk->xblock > 1 && tk->xblock * rmax > 256 && cdiv(tk->xnumel, tk->xblock) < 2 * sms) tk->xblock /= 2;
    if (o->gpu_tile[0]) tk->xblock = o->gpu_tile[0];
  }
  for (int g = 0; g < k->ngroups; g++) {
    TGroup *G = &tk->g[g];
    G->persistent = G->rblock >= G->numel;
    G->rchunk = G->numel;
  }
  tk->xprogs = cdiv(tk->xnumel, tk->xblock);
  int64_t work = 0;
  for (int g = 0; g < k->ngroups; g++)
    if (tk->g[g].numel * tk->xnumel > work) work = tk->g[g].numel * tk->xnumel;
  /* About four blocks per multiprocessor, each still worth 32768 points of
   * one 4-byte load (128 KiB): a grid of fewer blocks leaves
   * multiprocessors idle, or a last wave half empty (20011 columns in
   * blocks of 128: 157 blocks on 132).  A point that loads more counts as
   * more: a backward's five weight gradients at once, 17 f32 loads a point
   * over 2048 x 256, took 8 parts (16 blocks, 0.9 TB/s) by points alone. */
  int64_t per_point = reduced_load_bytes(k);
  if (per_point > 4) work = work / 4 * per_point;
  int64_t want = cdiv(GPU_BLOCKS_PER_SM * sms, tk->xprogs), by_work = work / (((int64_t)1 << 15) * tk->xprogs);
  if (want > by_work) want = by_work;
  if (o->gpu_tile[2]) want = o->gpu_tile[2];
  if (tk->xprogs < GPU_BLOCKS_PER_SM * sms && want >= 2) {
    if (!o->gpu_tile[2]) want = even_split(k, tk, want);
    int64_t ns = 1;
    for (int g = 0; g < k->ngroups; g++) {
      TGroup *G = &tk->g[g];
      int64_t c = cdiv(cdiv(G->numel, want), G->rblock) * G->rblock;
      G->rchunk = c;
      if (cdiv(G->numel, c) > ns) ns = cdiv(G->numel, c);
    }
    if (ns >= 2) {
      tk->nsplit = ns;
      for (int g = 0; g < k->ngroups; g++) tk->g[g].persistent = false;
    } else {
      for (int g = 0; g < k->ngroups; g++) tk->g[g].rchunk = tk->g[g].numel;
    }
  }
  /* row tiles: 16 points a thread (2048-point rows: 4 warps; 84% of a
   * read at 8 points a thread, 104% at 16 for layer norm's statistics);
   * a split reduction's blocks, about four a multiprocessor, take 8 warps
   * so that enough loads are in flight (a sum over 32M-point rows: 97% of
   * a read in 4096-point steps at 8 warps, 80% in 2048 at 4) */
  int64_t tile = tk->xblock * rmax;
  if (!tk->x_contig) {
    int64_t w = tk->nsplit > 1 ? 8 : tile / 512;
    /* a block that holds its rows whole does one step: 32 points a thread,
     * at least 4 warps (entropy's 4096-point rows: 88% of a read at 4
     * warps, 81% at 8), as the chains */
    if (tk->nsplit <= 1 && rmax >= 4096) {
      bool whole = true;
      for (int g = 0; g < k->ngroups; g++) whole &= tk->g[g].persistent;
      if (whole) w = tile / 1024 < 4 ? 4 : tile / 1024;
    }
    tk->num_warps = (int)(w < 2 ? 2 : w > 8 ? 8 : w);
    if (!rows_aligned(k, tk) && tile >= 512) tk->num_warps = (int)(tile / 64 < 16 ? tile / 64 : 16);
  }
  /* Unrolled loops measured no faster on the H200 (2 and 4 times, at 4
   * and 8 warps: docs/gpu.md, 2026-12-03), so the model does not unroll,
   * but for one kind of loop: a split column tile that two f64 sums shrank
   * to 2048 points (var, std of f32) runs at half the warps, unrolled
   * twice, 32 loads in flight a thread (five variances over 96-1024
   * columns: 84-91% of a read against 68-85% at 8 warps; a var_mean's
   * 1024-point tile, three sums, lost: 54% against 78%; other kernels
   * were not measured so). */
  tk->unroll = 1;
  if (f64_tile && tk->nsplit > 1 && tk->num_warps >= 2) {
    tk->num_warps /= 2;
    tk->unroll = 2;
  }
  if (o->gpu_tile[3]) tk->num_warps = (int)o->gpu_tile[3];
  if (o->gpu_unroll) tk->unroll = o->gpu_unroll;
  if (tk->nsplit > 1) {
    /* Who combines.  A second launch costs its start and a pass in which
     * the parts' blocks have drained; the block whose part ends last can
     * combine its x block instead, but alone, so only where that block's
     * parts are few.  On the H200, splits of 16 B to 4 KiB of parts an x
     * block (bench cases 03-07) ran 1.1-2.0 us faster in one launch (03,
     * 8 parts of 128 f32 columns, 4 KiB: 99% of a read to 101%), and
     * splits of 49 and 256 KiB (case 14, the seed) 10-17 us slower
     * (docs/gpu.md, 2026-12-03, evening and night). */
    tk->part_bytes = 0;
    for (int r = 0; r < k->nreds; r++)
      tk->part_bytes += dtype_size(k->reds[r].dtype) + (op_is_argred(k->reds[r].op) ? 8 : 0);
    tk->part_bytes *= tk->nsplit * tk->xblock;
    tk->last_combine = o->gpu_combine == TRITON_COMBINE_MODEL ? tk->part_bytes <= GPU_LAST_COMBINE
                                                              : o->gpu_combine == TRITON_COMBINE_LAST;
    /* the combine: 8 outputs a block (the last part's: its own XBLOCK),
     * all parts in one step when they fit */
    tk->cxblock = tk->last_combine ? tk->xblock : px < 8 ? px : 8;
    int64_t s = pow2_ceil(tk->nsplit), cap = 4096 / tk->cxblock;
    if (cap < 1) cap = 1;
    tk->csblock = s < cap ? s : cap;
    tk->cnum_warps = tk->last_combine ? tk->num_warps : 4;
  }
}

/* ------------------------------------------- GPU: tensor descriptors */

/* The box that an aligned block of `block` consecutive flat indices covers
 * on each of n axes (outer to inner; flat = row-major over them): the
 * inner axes whole, then a divisor of the next, 1 beyond.  The outermost
 * axis may be passed (a tail, or a block larger than the range): its box
 * is then the rest and *oob is set.  False when the block is no box (it
 * would wrap around an inner axis).  Blocks are powers of two, so boxes
 * are too. */
static bool flat_box(const Kernel *k, const int *axes, int n, int64_t block, int64_t *box, bool *oob) {
  int64_t b = block;
  for (int i = n - 1; i >= 0; i--) {
    int64_t s = k->axes[axes[i]].size;
    oob[axes[i]] = false;
    if (b == 1) box[axes[i]] = 1;
    else if (b % s == 0) box[axes[i]] = s, b /= s;
    else if (s % b == 0) box[axes[i]] = b, b = 1;
    else if (i == 0) box[axes[i]] = b, oob[axes[i]] = true, b = 1;
    else return false;
  }
  if (b > 1 && n > 0) {
    box[axes[0]] *= b;
    oob[axes[0]] = true;
  }
  return n > 0 || b == 1;
}

/* Load v through a tensor descriptor, or NULL with *why.  The tile's
 * block of v must be one box of the buffer seen as a tensor over the axes
 * v reads: an affine index with positive coefficients, one of them 1 (the
 * copy's contiguous dim, at least 16 bytes of box), and on each side of
 * the tile (x, r) either every axis whose box is more than 1 read or none
 * (a broadcast).  What TMA needs besides: 2 to 5 dims, boxes of at most
 * 256, 16-byte aligned strides and base offset; Triton: int32 sizes. */
static TDesc *gpu_desc(Arena *a, const Kernel *k, const TKernel *tk, int v, const char **why) {
  const KVal *val = &k->vals[v];
  int64_t es = dtype_size(val->dtype);
  const IExpr *ix = val->index;
  if (val->dtype == DT_BOOL) return *why = "bool (Triton keeps i1 tensors as bytes)", NULL;
  if (val->nguard) return *why = "a padded read (its guard is a mask)", NULL;
  if (ix->c < 0 || ix->c * es % 16) return *why = "base offset not 16-byte aligned", NULL;
  TDescDim d[2 * COIL_MAX_DIMS];
  bool oob[2 * COIL_MAX_DIMS];
  int n = 0;
  int64_t sidebox[2] = {1, 1}; /* x, r: the product of the boxes v reads */
  for (int i = 0; i < ix->n; i++) {
    const IAtom *at = ix->t[i].atom;
    if (at->kind != IA_AXIS) return *why = "index not affine (// or %)", NULL;
    if (ix->t[i].coef <= 0) return *why = "negative stride", NULL;
    for (int j = 0; j < n; j++)
      if (d[j].axes[0] == at->axis) return *why = "an axis read twice", NULL;
    if (n == 2 * COIL_MAX_DIMS) return *why = "too many axes", NULL;
    const KAxis *ax = &k->axes[at->axis];
    d[n] = (TDescDim){.size = ax->size, .stride = ix->t[i].coef, .box = tk->axbox[at->axis], .naxes = 1};
    d[n].axes[0] = at->axis;
    oob[n] = tk->axoob[at->axis];
    sidebox[ax->kind == AX_R] *= d[n].box;
    n++;
  }
  int64_t rblock = 1;
  for (int g = 0; g < k->ngroups; g++)
    if (val->scope == g) rblock = tk->g[g].rblock;
  if ((sidebox[0] != 1 && sidebox[0] != tk->xblock) || (sidebox[1] != 1 && sidebox[1] != rblock))
    return *why = "reads part of the tile's axes", NULL;
  /* outer to inner: stride descending (insertion sort, stable) */
  for (int i = 1; i < n; i++) {
    TDescDim t = d[i];
    bool to = oob[i];
    int j = i;
    for (; j > 0 && d[j - 1].stride < t.stride; j--) d[j] = d[j - 1], oob[j] = oob[j - 1];
    d[j] = t;
    oob[j] = to;
  }
  if (n == 0 || d[n - 1].stride != 1) return *why = "no unit-stride axis", NULL;
  if (n >= 2 && d[n - 2].stride == 1) return *why = "two unit-stride axes", NULL;
  /* Merge dim i into dim i+1 when they are one run of memory and the box
   * stays a block of it: the outer box 1, or the inner whole.  An inner
   * dim whose box can pass its size must keep its own bounds. */
  for (int i = n - 2; i >= 0; i--) {
    TDescDim *o = &d[i], *in = &d[i + 1];
    if (o->stride != in->stride * in->size || oob[i + 1]) continue;
    if (o->box != 1 && in->box != in->size) continue;
    if (o->box * in->box > 256 || o->size * in->size >= ((int64_t)1 << 31)) continue;
    TDescDim m = {.size = o->size * in->size, .stride = in->stride, .box = o->box * in->box, .naxes = o->naxes + in->naxes};
    memcpy(m.axes, o->axes, sizeof(int) * (size_t)o->naxes);
    memcpy(m.axes + o->naxes, in->axes, sizeof(int) * (size_t)in->naxes);
    oob[i + 1] = oob[i];
    *in = m;
    for (int j = i; j < n - 1; j++) d[j] = d[j + 1], oob[j] = oob[j + 1];
    n--;
  }
  if (n < 2) return *why = "one dim (Triton's descriptors take 2 to 5)", NULL;
  if (n > TDESC_MAX_DIMS) return *why = "more than 5 dims", NULL;
  int64_t bytes = es;
  for (int i = 0; i < n; i++) {
    if (d[i].box > 256) return *why = "a box of more than 256", NULL;
    if (d[i].size >= ((int64_t)1 << 31)) return *why = "a dim of 2^31 or more", NULL;
    if (i < n - 1 && d[i].stride * es % 16) return *why = "a stride not 16-byte aligned", NULL;
    bytes *= d[i].box;
  }
  if (d[n - 1].box * es % 16) return *why = "contiguous box under 16 bytes", NULL;
  TDesc *t = ARENA_ARRAY(a, TDesc, 1);
  t->ndims = n;
  memcpy(t->d, d, sizeof(TDescDim) * (size_t)n);
  t->offset = ix->c;
  t->bytes = bytes;
  return t;
}

/* --gpu-loads tma: descriptors for the loads of the reduction loops, and
 * the loops' software-pipeline depth.  Each stage holds a box of every
 * descriptor load (and the tiles of the pointer loads, which the pipeline
 * copies asynchronously too); Triton keeps num_stages - 1 of them in
 * shared memory.  With the blocks that will share a multiprocessor (all of
 * them at once, up to 4), as many stages as fit, 2 to 4. */
static void gpu_descriptors(Arena *a, const Kernel *k, const TritonOptions *o, TKernel *tk) {
  tk->desc = ARENA_ARRAY(a, TDesc *, k->nvals + 1);
  tk->desc_why = ARENA_ARRAY(a, const char *, k->nvals + 1);
  tk->axbox = ARENA_ARRAY(a, int64_t, k->naxes + 1);
  tk->axoob = ARENA_ARRAY(a, bool, k->naxes + 1);
  if (!k->ngroups) return;
  bool xok = flat_box(k, k->x, k->nx, tk->xblock, tk->axbox, tk->axoob);
  int64_t most = 0;
  for (int g = 0; g < k->ngroups; g++) {
    const TGroup *G = &tk->g[g];
    /* blocks start at multiples of RBLOCK: chunks are whole blocks */
    bool rok = (tk->nsplit <= 1 || G->rchunk % G->rblock == 0) && flat_box(k, G->axes, G->naxes, G->rblock, tk->axbox, tk->axoob);
    int64_t stage = 0;
    int ndesc = 0;
    for (int i = 0; i < k->nvals; i++) {
      const KVal *v = &k->vals[i];
      if (v->op != OP_INPUT || v->scope != g) continue;
      if (!xok) tk->desc_why[i] = "XBLOCK is no box of the x axes";
      else if (!rok) tk->desc_why[i] = "RBLOCK is no box of the group's axes";
      else tk->desc[i] = gpu_desc(a, k, tk, i, &tk->desc_why[i]);
      if (tk->desc[i]) {
        stage += tk->desc[i]->bytes;
        ndesc++;
      } else {
        int64_t e = dtype_size(v->dtype);
        for (int ax = 0; ax < k->naxes; ax++)
          if (ix_mentions(v->index, ax)) e *= tk->axbox[ax];
        stage += e;
      }
    }
    if (ndesc && !G->persistent && stage > most) most = stage; /* a loop to pipeline */
  }
  if (!most) return;
  int64_t blocks = tk->xprogs * tk->nsplit, sms = o->gpu_sms;
  int64_t per = cdiv(blocks, sms);
  if (per > 4) per = 4;
  /* a block's share, less 8 KiB for barriers and the reductions' scratch */
  int64_t room = (int64_t)o->gpu_smem_kb * 1024 / per - 8192;
  int64_t bufs = room / most;
  tk->num_stages = (int)(bufs < 1 ? 2 : bufs > 3 ? 4 : bufs + 1);
  tk->stage_bytes = most;
  tk->ctas_per_sm = (int)per;
}

static void model_kernel(Arena *a, const Program *p, const Kernel *k, TritonTarget t, const TritonOptions *o,
                         TKernel *tk) {
  memset(tk, 0, sizeof *tk);
  tk->xnumel = x_numel(k);
  tk->g = ARENA_ARRAY(a, TGroup, k->ngroups + 1);
  for (int g = 0; g < k->ngroups; g++) {
    TGroup *G = &tk->g[g];
    G->naxes = k->groups[g].naxes;
    G->numel = 1;
    G->split_axis = -1;
    for (int i = 0; i < G->naxes; i++) {
      G->axes[i] = k->groups[g].axes[i];
      G->sub[i] = 1;
      G->numel *= k->axes[G->axes[i]].size;
    }
  }
  tk->lead_load = -1;
  tk->chain = -1;
  for (int g = 0; g < k->ngroups && tk->lead_load < 0; g++) tk->lead_load = group_lead(k, g);
  tk->wide = !fits_int32(p, k);
  if (t == TRITON_NPU) npu_model(k, o, tk);
  else gpu_model(k, o, tk);
  if (t == TRITON_GPU && o->gpu_loads == TRITON_LOADS_TMA) gpu_descriptors(a, k, o, tk);
  tk->ws = ARENA_ARRAY(a, int, 2 * k->nreds + 1);
}

/* ------------------------------------------------------- GPU: chains */

/* A normalisation (softmax, RMSNorm, layer norm) is a row statistic that
 * a later kernel broadcasts back over the row: fused, each kernel reads
 * the row again from memory.  Consecutive kernels whose later members read
 * what earlier ones store per O point (a row: the x axes of a reduction
 * kernel) run as one launch: a block takes XBLOCK O points and runs each
 * kernel in turn over the inner range (the reduction's r axes; the x axes
 * of a pointwise kernel that O leaves).  The statistics pass in
 * registers.  When RBLOCK holds the row (cpersist), every phase works on
 * the same tile and a load of the same element is made once: the row is
 * read from memory once.  Otherwise each phase loops over the row and
 * reads it again, from L2 while the block's rows stay there. */

/* e, an index of kernel k, with k's axes renamed to their chain places. */
static IExpr *chain_index(Arena *a, const Kernel *k, const int *cpos, const int64_t *csize, const IExpr *e) {
  IExpr **sub = ARENA_ARRAY(a, IExpr *, k->naxes + 1);
  for (int ax = 0; ax < k->naxes; ax++)
    if (cpos[ax] >= 0) sub[ax] = ix_axis(a, cpos[ax]);
  return ix_subst(a, (IRange){csize}, e, sub);
}

/* The places of kernel k's axes: a reduction's x axes are O and its
 * group's axes the inner ones, in order; a pointwise kernel's x axes in
 * oset are O, the others inner, in order.  False when the sizes differ. */
static bool chain_map(const Kernel *k, const bool *oset, int no, int ni, const int64_t *csize, int *cpos) {
  int o = 0, in = 0;
  for (int ax = 0; ax < k->naxes; ax++) cpos[ax] = -1;
  for (int j = 0; j < k->nx; j++) {
    int ax = k->x[j];
    bool outer = k->ngroups ? true : oset[ax];
    if (outer) {
      if (o >= no || k->axes[ax].size != csize[o]) return false;
      cpos[ax] = o++;
    } else {
      if (in >= ni || k->axes[ax].size != csize[no + in]) return false;
      cpos[ax] = no + in++;
    }
  }
  if (k->ngroups)
    for (int j = 0; j < k->groups[0].naxes; j++) {
      int ax = k->groups[0].axes[j];
      if (in >= ni || k->axes[ax].size != csize[no + in]) return false;
      cpos[ax] = no + in++;
    }
  return o == no && in == ni;
}

static bool reads_buf(const Kernel *k, int buf) {
  for (int i = 0; i < k->nvals; i++)
    if (op_is_load(k->vals[i].op) && k->vals[i].buf == buf) return true;
  return false;
}

static bool writes_buf(const Kernel *k, int buf) {
  for (int s = 0; s < k->nstores; s++)
    if (k->stores[s].buf == buf) return true;
  return false;
}

/* Can kernel j join the chain of kernels head..j-1?  Sets its cpos,
 * hand_k and hand_s. */
/* Indexed loads and stores stay out of chains: a member reads what an
 * earlier one stores only through values handed on at the same point. */
static bool has_indexed_load(const Kernel *k) {
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_GATHER) return true;
  return kernel_has_indexed_store(k);
}

static bool chain_join(Arena *a, const Program *p, TritonPlan *plan, int head, int j) {
  const Kernel *k = &p->kernels[j];
  TKernel *tk = &plan->kern[j], *h = &plan->kern[head];
  if (k->nx < 1 || k->ngroups > 1 || tk->nsplit > 1 || has_indexed_load(k)) return false;
  tk->hand_k = ARENA_ARRAY(a, int, k->nvals + 1);
  tk->hand_s = ARENA_ARRAY(a, int, k->nvals + 1);
  bool *oset = ARENA_ARRAY(a, bool, k->naxes + 1);
  bool any = false;
  for (int i = 0; i < k->nvals; i++) {
    tk->hand_k[i] = tk->hand_s[i] = -1;
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT) continue;
    for (int m = j - 1; m >= head && tk->hand_k[i] < 0; m--) {
      const Kernel *km = &p->kernels[m];
      for (int s = 0; s < km->nstores; s++)
        if (km->stores[s].buf == v->buf) {
          /* only a reduction's per-row values pass in registers */
          if (!km->ngroups) return false;
          tk->hand_k[i] = m;
          tk->hand_s[i] = s;
        }
    }
    if (tk->hand_k[i] < 0) continue;
    any = true;
    for (int ax = 0; ax < k->naxes; ax++)
      if (ix_mentions(v->index, ax)) oset[ax] = true;
  }
  if (!any) return false;
  /* no member writes what a member reads from memory (or what it writes) */
  for (int s = 0; s < k->nstores; s++)
    for (int m = head; m <= j; m++)
      if ((m < j && writes_buf(&p->kernels[m], k->stores[s].buf)) || (reads_buf(&p->kernels[m], k->stores[s].buf))) return false;
  tk->cpos = ARENA_ARRAY(a, int, k->naxes + 1);
  if (!chain_map(k, oset, h->no, h->ni, h->csize, tk->cpos)) return false;
  /* each value passed is the one stored for the same O point */
  for (int i = 0; i < k->nvals; i++) {
    if (tk->hand_k[i] < 0) continue;
    const Kernel *km = &p->kernels[tk->hand_k[i]];
    const TKernel *tm = &plan->kern[tk->hand_k[i]];
    const KStore *st = &km->stores[tk->hand_s[i]];
    if (k->vals[i].dtype != p->bufs[st->buf].dtype) return false;
    IExpr *want = chain_index(a, km, tm->cpos, h->csize, st->index);
    IExpr *got = chain_index(a, k, tk->cpos, h->csize, k->vals[i].index);
    if (!ix_equal(want, got)) return false;
  }
  return true;
}

/* The chain's tile: RBLOCK holds the row when it has at most
 * GPU_PERSIST_MAX points (XBLOCK rows of it, a tile of about 2048 to 4096
 * points, 16 points a thread); else 4096-point steps along a row.  Column
 * chains (the O axes' innermost is unit-stride: softmax over NCHW's
 * channels) take up to 128 O points along it.  Blocks halve XBLOCK until
 * the grid has two blocks per multiprocessor; false when it still has
 * fewer than one (the kernels then run apart, split as their models say). */
static bool chain_tile(const TritonOptions *o, TKernel *h, int64_t onumel) {
  int64_t pc = pow2_ceil(h->cinner), po = pow2_ceil(onumel), sms = o->gpu_sms;
  int64_t xb, rb;
  if (!h->x_contig) {
    rb = pc <= GPU_PERSIST_MAX ? pc : 4096;
    xb = rb < 2048 ? 2048 / rb : 1;
  } else {
    rb = pc * 32 <= GPU_PERSIST_MAX ? pc : GPU_PERSIST_MAX / 128;
    xb = 1024 / rb;
    if (xb > 128) xb = 128;
    if (xb < 32) xb = 32;
  }
  if (xb > po) xb = po;
  while (xb > 1 && cdiv(onumel, xb) < 2 * sms) xb /= 2;
  if (o->gpu_tile[0]) xb = o->gpu_tile[0];
  if (o->gpu_tile[1]) rb = o->gpu_tile[1] < pc ? o->gpu_tile[1] : pc;
  if (cdiv(onumel, xb) < sms) return false;
  /* row chains: 32 points a thread (RMSNorm's 4096-point rows: 4 warps,
   * 101% of a read against 95% at 8); column chains: 16, in 32 x 32 tiles
   * (softmax over 21 channels: 104% of a read at 2 warps) */
  int64_t w = xb * rb / (h->x_contig ? 512 : 1024);
  h->num_warps = (int)(w < 1 ? 1 : w > 16 ? 16 : w);
  if (o->gpu_tile[3]) h->num_warps = (int)o->gpu_tile[3];
  h->xblock = xb;
  h->crblock = rb;
  h->cpersist = rb >= h->cinner;
  h->xprogs = cdiv(onumel, xb);
  return true;
}

/* ko: per kernel, the options of its model (autotune candidates), or NULL:
 * o for every kernel; a chain's tile takes its head's. */
static void gpu_chains(Arena *a, const Program *p, const TritonOptions *o, const TritonOptions *ko, TritonPlan *plan) {
  for (int head = 0; head < p->nkernels;) {
    const Kernel *k = &p->kernels[head];
    TKernel *h = &plan->kern[head];
    if (k->ngroups != 1 || k->nx < 1 || h->nsplit > 1 || has_indexed_load(k)) {
      head++;
      continue;
    }
    h->no = k->nx;
    h->ni = k->groups[0].naxes;
    h->csize = ARENA_ARRAY(a, int64_t, h->no + h->ni + 1);
    h->cinner = 1;
    for (int j = 0; j < h->no; j++) h->csize[j] = k->axes[k->x[j]].size;
    for (int j = 0; j < h->ni; j++) h->cinner *= h->csize[h->no + j] = k->axes[k->groups[0].axes[j]].size;
    h->cpos = ARENA_ARRAY(a, int, k->naxes + 1);
    chain_map(k, NULL, h->no, h->ni, h->csize, h->cpos);
    h->hand_k = ARENA_ARRAY(a, int, k->nvals + 1);
    h->hand_s = ARENA_ARRAY(a, int, k->nvals + 1);
    for (int i = 0; i < k->nvals; i++) h->hand_k[i] = h->hand_s[i] = -1;
    int n = 1;
    while (head + n < p->nkernels && chain_join(a, p, plan, head, head + n)) n++;
    TKernel saved = *h;
    if (n < 2 || !chain_tile(ko ? &ko[head] : o, h, h->xnumel)) {
      *h = saved;
      head++;
      continue;
    }
    h->nchain = n;
    /* cpersist: a load of an element an earlier member loads reuses it */
    for (int j = head; j < head + n; j++) {
      const Kernel *kj = &p->kernels[j];
      TKernel *tj = &plan->kern[j];
      tj->share_k = ARENA_ARRAY(a, int, kj->nvals + 1);
      tj->share_v = ARENA_ARRAY(a, int, kj->nvals + 1);
      for (int i = 0; i < kj->nvals; i++) {
        tj->share_k[i] = tj->share_v[i] = -1;
        const KVal *v = &kj->vals[i];
        if (!h->cpersist || v->op != OP_INPUT || tj->hand_k[i] >= 0) continue;
        IExpr *e = chain_index(a, kj, tj->cpos, h->csize, v->index);
        for (int m = head; m < j && tj->share_k[i] < 0; m++) {
          const Kernel *km = &p->kernels[m];
          const TKernel *tm = &plan->kern[m];
          for (int u = 0; u < km->nvals; u++) {
            const KVal *w = &km->vals[u];
            if (w->op != OP_INPUT || w->buf != v->buf || w->dtype != v->dtype || tm->hand_k[u] >= 0 || tm->share_k[u] >= 0) continue;
            if (!tm->need_grp[u] && !tm->need_post[u]) continue;
            if (!ix_equal(e, chain_index(a, km, tm->cpos, h->csize, w->index))) continue;
            tj->share_k[i] = m;
            tj->share_v[i] = u;
            break;
          }
        }
      }
    }
    bool wide = false;
    for (int j = head; j < head + n; j++) wide |= plan->kern[j].wide;
    for (int j = head; j < head + n; j++) {
      const Kernel *kj = &p->kernels[j];
      TKernel *tj = &plan->kern[j];
      tj->chain = head;
      tj->wide = wide;
      tj->desc = NULL; /* pointer loads */
      tj->num_stages = 0;
      tj->cstore = ARENA_ARRAY(a, bool, kj->nstores + 1);
      for (int s = 0; s < kj->nstores; s++) {
        int b = kj->stores[s].buf;
        bool outside = p->bufs[b].kind != BUF_TEMP;
        for (int m = 0; m < p->nkernels && !outside; m++)
          if ((m < head || m >= head + n) && reads_buf(&p->kernels[m], b)) outside = true;
        tj->cstore[s] = outside;
      }
    }
    head += n;
  }
}

/* ------------------------------------------------------------- scratch */

static void add_scratch(Arena *a, TritonPlan *plan, const Kernel *k, TKernel *tk) {
  if (tk->nsplit <= 1) return;
  TritonScratch *ns = ARENA_ARRAY(a, TritonScratch, plan->nscratch + 2 * k->nreds + 2);
  if (plan->nscratch) memcpy(ns, plan->scratch, sizeof(TritonScratch) * (size_t)plan->nscratch);
  plan->scratch = ns;
  for (int r = 0; r < k->nreds; r++) {
    tk->ws[r] = plan->nbufs + plan->nscratch;
    plan->scratch[plan->nscratch++] =
        (TritonScratch){arena_printf(a, "%s_part%d", k->name, r), k->reds[r].dtype, tk->nsplit * tk->xnumel, false};
  }
  for (int r = 0; r < k->nreds; r++) { /* an arg-reduction's partial positions */
    if (!op_is_argred(k->reds[r].op)) continue;
    tk->ws[k->nreds + r] = plan->nbufs + plan->nscratch;
    plan->scratch[plan->nscratch++] = (TritonScratch){arena_printf(a, "%s_part%d_i", k->name, r), DT_I64, tk->nsplit * tk->xnumel, false};
  }
  if (tk->last_combine) {
    tk->done = plan->nbufs + plan->nscratch;
    plan->scratch[plan->nscratch++] = (TritonScratch){arena_printf(a, "%s_done", k->name), DT_I32, tk->xprogs, .zeroed = true};
  }
}

/* The status buffer, where any kernel has an indexed load or store. */
static void add_status(Arena *a, TritonPlan *plan, const Program *p) {
  plan->status = -1;
  bool gathers = false;
  for (int i = 0; i < p->nkernels; i++) {
    for (int j = 0; j < p->kernels[i].nvals; j++) gathers |= p->kernels[i].vals[j].op == OP_GATHER;
    gathers |= kernel_has_indexed_store(&p->kernels[i]);
  }
  if (!gathers) return;
  TritonScratch *ns = ARENA_ARRAY(a, TritonScratch, plan->nscratch + 1);
  if (plan->nscratch) memcpy(ns, plan->scratch, sizeof(TritonScratch) * (size_t)plan->nscratch);
  plan->scratch = ns;
  plan->status = plan->nbufs + plan->nscratch;
  plan->scratch[plan->nscratch++] = (TritonScratch){"coil_status", DT_I32, 1, false};
}

/* ------------------------------------------------------------ launches */

/* Mark value i and everything it reads. */
static void mark(const Kernel *k, bool *m, int i) {
  if (m[i]) return;
  m[i] = true;
  const KVal *v = &k->vals[i];
  for (int j = 0; j < v->narg; j++) mark(k, m, v->arg[j]);
}

/* A launch under construction: its arguments are the kernel's parameters. */
typedef struct Sig {
  TritonLaunch L;
  int cap;
} Sig;

static void arg(Arena *a, Sig *s, const char *name, bool is_ptr, int buf, int64_t value) {
  if (s->L.nargs == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    TritonArg *n = ARENA_ARRAY(a, TritonArg, cap);
    if (s->L.nargs) memcpy(n, s->L.args, sizeof(TritonArg) * (size_t)s->L.nargs);
    s->L.args = n;
    s->cap = cap;
  }
  s->L.args[s->L.nargs++] = (TritonArg){arena_strdup(a, name), is_ptr, buf, value};
}

static void constexpr_arg(Arena *a, Sig *s, const char *name, int64_t value) { arg(a, s, name, false, -1, value); }

static void ws_args(Arena *a, const Kernel *k, const TKernel *tk, Sig *s);

/* Pointer parameters: in_ptrN for the buffers the `loads` read (a buffer
 * the kernel also writes is its out_ptr), out_ptrN for the buffers the
 * kernel's stores write (when `stores`), ws_ptrR for the split partials
 * (when `ws`). */
static void pointer_args(Arena *a, const Program *p, const Kernel *k, const TKernel *tk, Sig *s, const bool *loads, bool stores,
                         bool ws, int status) {
  bool *written = ARENA_ARRAY(a, bool, p->nbufs + 1);
  bool *named = ARENA_ARRAY(a, bool, p->nbufs + 1);
  if (stores)
    for (int i = 0; i < k->nstores; i++) written[k->stores[i].buf] = true;
  int nin = 0, nout = 0;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (!op_is_load(v->op) || !loads[i] || named[v->buf] || written[v->buf]) continue;
    named[v->buf] = true;
    arg(a, s, arena_printf(a, "in_ptr%d", nin++), true, v->buf, 0);
  }
  for (int b = 0; b < p->nbufs; b++)
    if (written[b]) arg(a, s, arena_printf(a, "out_ptr%d", nout++), true, b, 0);
  if (ws) ws_args(a, k, tk, s);
  bool gathers = false; /* status_ptr: where its index checks report (TritonPlan.status) */
  for (int i = 0; i < k->nvals; i++) gathers |= loads[i] && k->vals[i].op == OP_GATHER;
  gathers |= stores && kernel_has_indexed_store(k);
  if (gathers) arg(a, s, "status_ptr", true, status, 0);
}

/* The combine's partials come first: ws_ptrR, one per reduction, and
 * ws_ptrR_i for an arg-reduction's positions. */
static void ws_args(Arena *a, const Kernel *k, const TKernel *tk, Sig *s) {
  for (int r = 0; r < k->nreds; r++) {
    arg(a, s, arena_printf(a, "ws_ptr%d", r), true, tk->ws[r], 0);
    if (op_is_argred(k->reds[r].op)) arg(a, s, arena_printf(a, "ws_ptr%d_i", r), true, tk->ws[k->nreds + r], 0);
  }
}

static int add_launch(Arena *a, TritonPlan *plan, const Sig *s) {
  TritonLaunch *n = ARENA_ARRAY(a, TritonLaunch, plan->nlaunches + 1);
  if (plan->nlaunches) memcpy(n, plan->launches, sizeof(TritonLaunch) * (size_t)plan->nlaunches);
  n[plan->nlaunches] = s->L;
  plan->launches = n;
  return plan->nlaunches++;
}

/* The values the main kernel computes: the groups', and the epilogue's
 * unless a combine kernel runs it. */
static bool *main_values(Arena *a, const Kernel *k, const TKernel *tk) {
  bool *need = ARENA_ARRAY(a, bool, k->nvals + 1);
  for (int i = 0; i < k->nvals; i++) need[i] = tk->need_grp[i] || (tk->nsplit <= 1 && tk->need_post[i]);
  return need;
}

static const char *upper_axis(Arena *a, const char *name) {
  char *s = arena_strdup(a, name);
  if (s[0] >= 'a' && s[0] <= 'z') s[0] = (char)(s[0] - 'a' + 'A');
  return s;
}

/* NPU: x0_numel, the r axes' NAME_numel, X0BLOCK, X0BLOCK_SUB, their
 * R<k>BLOCK_SUB and (split) R<k>_CHUNK of each group's split axis; the
 * combine: x0_numel, RSPLIT, X0BLOCK, X0BLOCK_SUB, S_SUB. */
static void npu_launches(Arena *a, const Program *p, const Kernel *k, TKernel *tk, TritonPlan *plan, int kernel) {
  bool split = tk->nsplit > 1;
  Sig s = {{.kernel = k->name, .src = kernel, .num_warps = 4}, 0};
  pointer_args(a, p, k, tk, &s, main_values(a, k, tk), !split, split, plan->status);
  constexpr_arg(a, &s, "x0_numel", tk->xnumel);
  for (int g = 0; g < k->ngroups; g++)
    for (int i = 0; i < tk->g[g].naxes; i++) {
      int ax = tk->g[g].axes[i];
      constexpr_arg(a, &s, arena_printf(a, "%s_numel", k->axes[ax].name), k->axes[ax].size);
    }
  constexpr_arg(a, &s, "X0BLOCK", tk->x0block);
  constexpr_arg(a, &s, "X0BLOCK_SUB", tk->x0sub);
  for (int g = 0; g < k->ngroups; g++)
    for (int i = 0; i < tk->g[g].naxes; i++)
      constexpr_arg(a, &s, arena_printf(a, "%sBLOCK_SUB", upper_axis(a, k->axes[tk->g[g].axes[i]].name)), tk->g[g].sub[i]);
  if (split)
    for (int g = 0; g < k->ngroups; g++) {
      const TGroup *G = &tk->g[g];
      constexpr_arg(a, &s, arena_printf(a, "%s_CHUNK", upper_axis(a, k->axes[G->axes[G->split_axis]].name)), G->split_chunk);
    }
  s.L.grid[0] = tk->xprogs;
  s.L.grid[1] = tk->nsplit;
  s.L.grid[2] = 1;
  tk->launch = add_launch(a, plan, &s);
  if (!split) return;
  Sig c = {{.kernel = arena_printf(a, "%s_combine", k->name), .src = kernel, .combine = true, .num_warps = 4}, 0};
  ws_args(a, k, tk, &c);
  pointer_args(a, p, k, tk, &c, tk->need_post, true, false, plan->status);
  constexpr_arg(a, &c, "x0_numel", tk->xnumel);
  constexpr_arg(a, &c, "RSPLIT", tk->nsplit);
  constexpr_arg(a, &c, "X0BLOCK", tk->cx0block);
  constexpr_arg(a, &c, "X0BLOCK_SUB", tk->csub_x);
  constexpr_arg(a, &c, "S_SUB", tk->csub_s);
  c.L.grid[0] = cdiv(tk->xnumel, tk->cx0block);
  c.L.grid[1] = 1;
  c.L.grid[2] = 1;
  tk->claunch = add_launch(a, plan, &c);
}

/* "rnumel", "rnumel1", ...: group g's name of a per-group parameter. */
static const char *gsfx(Arena *a, const char *base, int g) { return g ? arena_printf(a, "%s%d", base, g) : base; }

/* GPU: xnumel, rnumel<g>, XBLOCK, RBLOCK<g>, (split) RSPLIT_CHUNK<g>, and
 * NUM_STAGES where a loop loads through descriptors; the combine:
 * xnumel, RSPLIT, XBLOCK, SBLOCK. */
static void gpu_launches(Arena *a, const Program *p, const Kernel *k, TKernel *tk, TritonPlan *plan, int kernel) {
  bool split = tk->nsplit > 1;
  Sig s = {{.kernel = k->name, .src = kernel, .num_warps = tk->num_warps}, 0};
  pointer_args(a, p, k, tk, &s, main_values(a, k, tk), !split, split, plan->status);
  constexpr_arg(a, &s, "xnumel", tk->xnumel);
  for (int g = 0; g < k->ngroups; g++) constexpr_arg(a, &s, gsfx(a, "rnumel", g), tk->g[g].numel);
  constexpr_arg(a, &s, "XBLOCK", tk->xblock);
  for (int g = 0; g < k->ngroups; g++) constexpr_arg(a, &s, gsfx(a, "RBLOCK", g), tk->g[g].rblock);
  if (split)
    for (int g = 0; g < k->ngroups; g++) constexpr_arg(a, &s, gsfx(a, "RSPLIT_CHUNK", g), tk->g[g].rchunk);
  bool pipelined = false; /* a loop (not persistent) with a descriptor load */
  for (int i = 0; tk->desc && i < k->nvals; i++) {
    int g = k->vals[i].scope;
    if (tk->need_grp[i] && tk->desc[i] && g >= 0 && g < k->ngroups && !tk->g[g].persistent) pipelined = true;
  }
  if (pipelined) constexpr_arg(a, &s, "NUM_STAGES", tk->num_stages);
  s.L.grid[0] = tk->xprogs;
  s.L.grid[1] = tk->nsplit;
  s.L.grid[2] = 1;
  if (!split) {
    tk->launch = add_launch(a, plan, &s);
    return;
  }
  Sig c = {{.kernel = arena_printf(a, "%s_combine", k->name), .src = kernel, .combine = true, .num_warps = tk->cnum_warps}, 0};
  ws_args(a, k, tk, &c);
  pointer_args(a, p, k, tk, &c, tk->need_post, true, false, plan->status);
  constexpr_arg(a, &c, "xnumel", tk->xnumel);
  constexpr_arg(a, &c, "RSPLIT", tk->nsplit);
  constexpr_arg(a, &c, "XBLOCK", tk->cxblock);
  constexpr_arg(a, &c, "SBLOCK", tk->csblock);
  c.L.grid[0] = cdiv(tk->xnumel, tk->cxblock);
  c.L.grid[1] = 1;
  c.L.grid[2] = 1;
  if (!tk->last_combine) {
    tk->launch = add_launch(a, plan, &s);
    tk->claunch = add_launch(a, plan, &c);
    return;
  }
  /* The part kernel calls the combine: done_ptr and RSPLIT, then each
   * parameter of the combine's that it lacks (a buffer it has under
   * another name passes as that; a name it uses for something else gets
   * the prefix c_). */
  arg(a, &s, "done_ptr", true, tk->done, 0);
  constexpr_arg(a, &s, "RSPLIT", tk->nsplit);
  tk->ccall = ARENA_ARRAY(a, const char *, c.L.nargs + 1);
  for (int j = 0; j < c.L.nargs; j++) {
    const TritonArg *A = &c.L.args[j];
    bool clash = false;
    for (int i = 0; i < s.L.nargs && !tk->ccall[j]; i++) {
      const TritonArg *B = &s.L.args[i];
      if (A->is_ptr ? B->is_ptr && B->buf == A->buf : !B->is_ptr && !strcmp(B->name, A->name) && B->value == A->value)
        tk->ccall[j] = B->name;
      clash |= !strcmp(B->name, A->name);
    }
    if (tk->ccall[j]) continue;
    tk->ccall[j] = clash ? arena_printf(a, "c_%s", A->name) : A->name;
    arg(a, &s, tk->ccall[j], A->is_ptr, A->buf, A->value);
  }
  tk->cfn = ARENA_NEW(a, TritonLaunch);
  *tk->cfn = c.L;
  tk->launch = add_launch(a, plan, &s);
}

/* A chain's one launch: in_ptrN for what its members load from memory,
 * out_ptrN for what they write, xnumel (the O points), rnumel (a row),
 * XBLOCK, RBLOCK.  Needs every member's need_grp and need_post. */
static void chain_launch(Arena *a, const Program *p, TritonPlan *plan, int head) {
  TKernel *h = &plan->kern[head];
  Sig s = {{.kernel = arena_printf(a, "%s_chain", p->kernels[head].name), .src = head, .num_warps = h->num_warps}, 0};
  bool *named = ARENA_ARRAY(a, bool, p->nbufs + 1), *written = ARENA_ARRAY(a, bool, p->nbufs + 1);
  for (int j = head; j < head + h->nchain; j++) {
    const Kernel *k = &p->kernels[j];
    const TKernel *tk = &plan->kern[j];
    for (int st = 0; st < k->nstores; st++)
      if (tk->cstore[st]) written[k->stores[st].buf] = true;
  }
  int nin = 0, nout = 0;
  for (int j = head; j < head + h->nchain; j++) {
    const Kernel *k = &p->kernels[j];
    const TKernel *tk = &plan->kern[j];
    for (int i = 0; i < k->nvals; i++) {
      const KVal *v = &k->vals[i];
      if (!op_is_load(v->op) || !(tk->need_grp[i] || tk->need_post[i]) || tk->hand_k[i] >= 0) continue;
      if (named[v->buf] || written[v->buf]) continue;
      named[v->buf] = true;
      arg(a, &s, arena_printf(a, "in_ptr%d", nin++), true, v->buf, 0);
    }
  }
  for (int b = 0; b < p->nbufs; b++)
    if (written[b]) arg(a, &s, arena_printf(a, "out_ptr%d", nout++), true, b, 0);
  constexpr_arg(a, &s, "xnumel", h->xnumel);
  constexpr_arg(a, &s, "rnumel", h->cinner);
  constexpr_arg(a, &s, "XBLOCK", h->xblock);
  constexpr_arg(a, &s, "RBLOCK", h->crblock);
  s.L.grid[0] = h->xprogs;
  s.L.grid[1] = s.L.grid[2] = 1;
  h->launch = add_launch(a, plan, &s);
}

/* ------------------------------------------------------------ the plan */

/* The plan with every kernel modelled under o, or under ko[i] (kernel i's
 * options: an autotune candidate's tile) where ko is given. */
static void plan_with(Arena *a, const Compiled *c, TritonTarget t, const TritonOptions *o, const TritonOptions *ko,
                      TritonPlan *plan) {
  const Program *p = &c->program;
  *plan = (TritonPlan){.target = t, .opt = *o, .nbufs = p->nbufs};
  plan->kern = ARENA_ARRAY(a, TKernel, p->nkernels + 1);
  for (int i = 0; i < p->nkernels; i++) {
    const Kernel *k = &p->kernels[i];
    TKernel *tk = &plan->kern[i];
    model_kernel(a, p, k, t, ko ? &ko[i] : o, tk);
    tk->need_grp = ARENA_ARRAY(a, bool, k->nvals + 1);
    tk->need_post = ARENA_ARRAY(a, bool, k->nvals + 1);
    for (int r = 0; r < k->nreds; r++) {
      mark(k, tk->need_grp, k->reds[r].src);
      if (op_is_argred(k->reds[r].op)) mark(k, tk->need_grp, k->reds[r].idx);
    }
    for (int s = 0; s < k->nstores; s++) {
      mark(k, tk->need_post, k->stores[s].val);
      if (k->stores[s].indexed) mark(k, tk->need_post, k->stores[s].ival);
    }
  }
  if (t == TRITON_GPU && !o->gpu_nochain) gpu_chains(a, p, o, ko, plan);
  for (int i = 0; i < p->nkernels; i++) add_scratch(a, plan, &p->kernels[i], &plan->kern[i]);
  add_status(a, plan, p);
  for (int i = 0; i < p->nkernels; i++) {
    const Kernel *k = &p->kernels[i];
    TKernel *tk = &plan->kern[i];
    tk->launch = tk->claunch = -1;
    if (t == TRITON_NPU) npu_launches(a, p, k, tk, plan, i);
    else if (tk->chain == i) chain_launch(a, p, plan, i);
    else if (tk->chain < 0) gpu_launches(a, p, k, tk, plan, i);
  }
}

/* ------------------------------------------------------- GPU: autotune */

enum {
  TUNE_MAX = 10,           /* candidates of a kernel, the model's included */
  TUNE_MAX_TILE = 1 << 15, /* elements of a candidate's [XBLOCK, RBLOCK] tile */
};

/* A candidate's tile: XBLOCK, RBLOCK, split parts, num_warps as
 * --gpu-tile gives them (0: the model's), and the launch's num_stages
 * (0: Triton's default). */
typedef struct Tile {
  int64_t x, r, s, w;
  int stages;
  int unroll; /* the loops' loop_unroll_factor (0: the model's) */
  TritonGpuCombine combine; /* who combines a split's parts (0: the model's) */
} Tile;

/* The configurations tried besides the model's: each changes one of its
 * choices by a factor of two (num_warps, RBLOCK, XBLOCK, the split parts),
 * then the software pipeline's depth of a loop (Triton's default is 3
 * stages).  A loop of pointer loads also tries half the warps with the
 * loop unrolled twice, the same loads in flight from half the threads
 * (bench case 14 on the H200: 89-90% of a read against 85%, while other
 * cases lose: docs/gpu.md, 2026-12-03), or, where the model unrolls (f64
 * column sums), twice the warps and no unrolling; a split reduction also
 * tries the other way of combining its parts (a second launch, or, up to
 * 16 KiB of parts an x block, the block whose part ends last).  All as
 * far as the tile stays a valid one: blocks within the padded ranges, at most
 * TUNE_MAX_TILE elements, 1 to 16 warps.  Every candidate is planned as
 * the model plans a --gpu-tile, so masks, tails and splits are as valid as
 * the model's own.  A kernel of a chain is tuned as its chain (XBLOCK
 * rows, RBLOCK of the row, warps), unsplit. */
static int tune_tiles(const Program *p, const TritonPlan *plan, int i, Tile *out) {
  const Kernel *k = &p->kernels[i];
  const TKernel *tk = &plan->kern[i];
  bool chain = tk->chain == i;
  int64_t x = tk->xblock, px = pow2_ceil(tk->xnumel), r = 0, pr = 1; /* a chain's xnumel: its rows */
  bool loop = false;
  if (chain) {
    r = tk->crblock;
    pr = pow2_ceil(tk->cinner);
    loop = !tk->cpersist;
  } else if (k->ngroups) {
    r = tk->g[0].rblock;
    for (int g = 0; g < k->ngroups; g++) {
      if (tk->g[g].rblock != r) r = 0; /* groups of other blocks keep the model's */
      if (pow2_ceil(tk->g[g].numel) > pr) pr = pow2_ceil(tk->g[g].numel);
      loop |= !tk->g[g].persistent;
    }
  }
  /* chains stay unsplit (their head's own model too); a kernel the model
   * does not split stays so unless a candidate changes the parts */
  int64_t s = chain || !k->ngroups ? (chain ? 1 : 0) : tk->nsplit;
  Tile base = {x, r, s, tk->num_warps, 0, 0, TRITON_COMBINE_MODEL};
  int n = 0;
  int64_t rr = r ? r : 1;
#define TUNE_ADD(f, v, ok)                                                                                                   \
  do {                                                                                                                     \
    Tile t_ = base;                                                                                                        \
    t_.f = (v);                                                                                                            \
    if ((ok) && n < 2 * TUNE_MAX) out[n++] = t_;                                                                           \
  } while (0)
  TUNE_ADD(w, base.w * 2, base.w * 2 <= 16);
  TUNE_ADD(w, base.w / 2, base.w / 2 >= 1);
  if (loop && plan->opt.gpu_loads == TRITON_LOADS_POINTER && n < 2 * TUNE_MAX) {
    if (tk->unroll > 1) out[n++] = (Tile){x, r, s, base.w * 2, 0, 1, TRITON_COMBINE_MODEL}; /* the loop as the model ran it before unrolling */
    else if (base.w / 2 >= 1) out[n++] = (Tile){x, r, s, base.w / 2, 0, 2, TRITON_COMBINE_MODEL};
  }
  /* a split's parts combined the other way, near the model's bound on
   * the parts' bytes (measured on a few splits; at 49 KiB and more the
   * last part's block lost 10-17 us) */
  TUNE_ADD(combine, tk->last_combine ? TRITON_COMBINE_LAUNCH : TRITON_COMBINE_LAST,
           !chain && tk->nsplit > 1 && (tk->last_combine || tk->part_bytes <= 4 * GPU_LAST_COMBINE));
  TUNE_ADD(r, r * 2, r && r * 2 <= pr && x * r * 2 <= TUNE_MAX_TILE);
  TUNE_ADD(r, r / 2, r && r / 2 >= 1);
  TUNE_ADD(x, x * 2, x * 2 <= px && x * 2 * rr <= TUNE_MAX_TILE);
  TUNE_ADD(x, x / 2, x / 2 >= 1);
  TUNE_ADD(s, s * 2, s > 1);
  TUNE_ADD(s, s / 2, s > 1);
  TUNE_ADD(stages, 2, loop);
  TUNE_ADD(stages, 4, loop);
#undef TUNE_ADD
  return n;
}

/* The candidate plan's kernels run as the model's do, one launch each or
 * in the same chains: only then do its launches replace the tuned
 * kernel's and nothing else. */
static bool same_chains(const Program *p, const TritonPlan *a, const TritonPlan *b) {
  for (int j = 0; j < p->nkernels; j++) {
    const TKernel *x = &a->kern[j], *y = &b->kern[j];
    if (x->chain != y->chain || (x->chain == j && x->nchain != y->nchain)) return false;
  }
  return true;
}

/* "XBLOCK 64, RBLOCK 128, RSPLIT_CHUNK 4096, grid (2, 256, 1), num_warps 8":
 * the main launch's blocks, grid and options; names the candidate in the
 * module and its cache. */
static const char *tune_label(Arena *a, const TritonLaunch *L) {
  StrBuf sb = {0};
  for (int j = 0; j < L->nargs; j++)
    if (!L->args[j].is_ptr && (strstr(L->args[j].name, "BLOCK") || strstr(L->args[j].name, "CHUNK") || !strcmp(L->args[j].name, "NUM_STAGES")))
      sb_printf(&sb, "%s %lld, ", L->args[j].name, (long long)L->args[j].value);
  sb_printf(&sb, "grid (%lld, %lld, %lld), num_warps %d", (long long)L->grid[0], (long long)L->grid[1], (long long)L->grid[2],
            L->num_warps);
  if (L->num_stages) sb_printf(&sb, ", num_stages %d", L->num_stages);
  const char *s = arena_strdup(a, sb.data);
  sb_free(&sb);
  return s;
}

/* Every launch's grid, options and constexprs, and the loops' unrolling
 * (code the launches do not show): two candidates with the same key run
 * the same code the same way. */
static char *tune_key(const TritonLaunch *L, int n, int unroll) {
  StrBuf sb = {0};
  for (int l = 0; l < n; l++) {
    sb_printf(&sb, "%s %lld %lld %lld %d %d:", L[l].kernel, (long long)L[l].grid[0], (long long)L[l].grid[1],
              (long long)L[l].grid[2], L[l].num_warps, L[l].num_stages);
    for (int j = 0; j < L[l].nargs; j++)
      if (!L[l].args[j].is_ptr) sb_printf(&sb, " %lld", (long long)L[l].args[j].value);
    sb_puts(&sb, ";");
  }
  if (unroll > 1) sb_printf(&sb, " unroll %d", unroll);
  return sb.data;
}

/* A candidate's scratch buffer in the plan: the one of the same name
 * (a reduction's partials), grown to the candidate's parts, or a new one
 * after the rest, so that the model's launches keep their buffer ids. */
static int tune_scratch(Arena *a, TritonPlan *plan, const TritonScratch *S) {
  for (int i = 0; i < plan->nscratch; i++)
    if (!strcmp(plan->scratch[i].name, S->name)) {
      if (S->numel > plan->scratch[i].numel) plan->scratch[i].numel = S->numel;
      return plan->nbufs + i;
    }
  TritonScratch *ns = ARENA_ARRAY(a, TritonScratch, plan->nscratch + 1);
  if (plan->nscratch) memcpy(ns, plan->scratch, sizeof(TritonScratch) * (size_t)plan->nscratch);
  plan->scratch = ns;
  plan->scratch[plan->nscratch++] = *S;
  return plan->nbufs + plan->nscratch - 1;
}

/* --autotune: per launch unit (a kernel, a split kernel's two launches, a
 * chain), the model's choice and up to TUNE_MAX - 1 other tiles (Tile),
 * each planned as a whole plan in which only that unit's options differ;
 * kept when the plan has the same chains, and its launches are not those
 * of an earlier candidate. */
static void gpu_tune(Arena *a, const Compiled *c, TritonPlan *plan) {
  const Program *p = &c->program;
  TritonOptions base = plan->opt;
  base.autotune = false;
  TritonOptions *ko = ARENA_ARRAY(a, TritonOptions, p->nkernels + 1);
  for (int j = 0; j < p->nkernels; j++) ko[j] = base;
  plan->tune = ARENA_ARRAY(a, TritonTune, p->nkernels + 1);
  for (int i = 0; i < p->nkernels; i++) {
    const TKernel *tk = &plan->kern[i];
    if (tk->launch < 0) continue; /* a chain's member: its head tunes the chain */
    TritonTune *T = &plan->tune[plan->ntune];
    *T = (TritonTune){.src = i, .first = tk->launch, .nlaunches = tk->claunch >= 0 ? 2 : 1};
    T->cand = ARENA_ARRAY(a, TritonCandidate, TUNE_MAX);
    T->cand[T->ncand++] = (TritonCandidate){tune_label(a, &plan->launches[T->first]), &plan->launches[T->first], T->nlaunches, plan};
    char *keys[TUNE_MAX] = {tune_key(&plan->launches[T->first], T->nlaunches, tk->unroll)};
    if (tk->unroll > 1) T->cand[0].label = arena_printf(a, "%s, loop unrolled %d times", T->cand[0].label, tk->unroll);
    if (tk->last_combine) T->cand[0].label = arena_printf(a, "%s, combined by the last part's block", T->cand[0].label);
    Tile tiles[2 * TUNE_MAX];
    int nt = tune_tiles(p, plan, i, tiles);
    for (int t = 0; t < nt && T->ncand < TUNE_MAX; t++) {
      int64_t tile[4] = {tiles[t].x, tiles[t].r, tiles[t].s, tiles[t].w};
      memcpy(ko[i].gpu_tile, tile, sizeof tile);
      ko[i].gpu_unroll = tiles[t].unroll;
      ko[i].gpu_combine = tiles[t].combine;
      TritonPlan *cp = ARENA_NEW(a, TritonPlan);
      plan_with(a, c, TRITON_GPU, &base, ko, cp);
      ko[i] = base;
      const TKernel *ck = &cp->kern[i];
      if (!same_chains(p, plan, cp) || ck->launch < 0) continue;
      int n = ck->claunch >= 0 ? 2 : 1;
      TritonLaunch *L = ARENA_ARRAY(a, TritonLaunch, n);
      memcpy(L, &cp->launches[ck->launch], sizeof(TritonLaunch) * (size_t)n);
      for (int l = 0; l < n; l++) {
        L[l].num_stages = tiles[t].stages;
        L[l].args = ARENA_ARRAY(a, TritonArg, L[l].nargs + 1);
        memcpy(L[l].args, cp->launches[ck->launch + l].args, sizeof(TritonArg) * (size_t)L[l].nargs);
      }
      char *key = tune_key(L, n, ck->unroll);
      bool seen = false;
      for (int j = 0; j < T->ncand && !seen; j++) seen = !strcmp(keys[j], key);
      if (seen) {
        free(key);
        continue;
      }
      for (int l = 0; l < n; l++) /* the candidate's scratch in the plan's buffer ids */
        for (int j = 0; j < L[l].nargs; j++) {
          TritonArg *A = &L[l].args[j];
          if (!A->is_ptr || A->buf < cp->nbufs) continue;
          A->buf = A->buf == cp->status ? plan->status : tune_scratch(a, plan, &cp->scratch[A->buf - cp->nbufs]);
        }
      keys[T->ncand] = key;
      const char *label = tune_label(a, &L[0]);
      if (ck->unroll > 1) label = arena_printf(a, "%s, loop unrolled %d times", label, ck->unroll);
      if (ck->last_combine) label = arena_printf(a, "%s, combined by the last part's block", label);
      T->cand[T->ncand++] = (TritonCandidate){label, L, n, cp};
    }
    for (int j = 0; j < T->ncand; j++) free(keys[j]);
    if (T->ncand > 1) plan->ntune++;
  }
}

CoilErr *triton_plan(Arena *a, const Compiled *c, TritonTarget t, const TritonOptions *o, TritonPlan *plan) {
  plan_with(a, c, t, o, NULL, plan);
  if (t == TRITON_GPU && o->autotune) gpu_tune(a, c, plan);
  return NULL;
}

/* ------------------------------------------------------------ the dump */

static void dump_names(StrBuf *sb, const Kernel *k, const int *axes, int n) {
  for (int i = 0; i < n; i++) sb_printf(sb, " %s[%lld]", k->axes[axes[i]].name, (long long)k->axes[axes[i]].size);
}

/* The launches a run makes, in order, on one line; a split combined by
 * its last part's block says so, since its combine is no launch. */
void triton_plan_describe(StrBuf *sb, const Compiled *c, const TritonPlan *plan) {
  sb_printf(sb, "%s through coil's Triton executor on the cpu: %d launch%s:", c->target->name, plan->nlaunches,
            plan->nlaunches == 1 ? "" : "es");
  for (int i = 0; i < plan->nlaunches; i++) {
    const TritonLaunch *L = &plan->launches[i];
    sb_printf(sb, "%s %s (%lld, %lld, %lld)", i ? "," : "", L->kernel, (long long)L->grid[0], (long long)L->grid[1],
              (long long)L->grid[2]);
    if (!L->combine && plan->kern[L->src].last_combine) sb_puts(sb, " combined by the block whose part ends last");
  }
}

void triton_plan_dump(StrBuf *sb, const Compiled *c, const TritonPlan *plan) {
  const Program *p = &c->program;
  const TritonOptions *o = &plan->opt;
  if (plan->target == TRITON_NPU)
    sb_printf(sb, "tile model: triton-npu, %d vector cores, unified buffer %d KiB (%d bytes) per core, 32-byte DMA alignment\n",
              o->npu_cores, o->npu_ub_kb, o->npu_ub_kb * 1024);
  else
    sb_printf(sb, "tile model: triton-gpu, %d multiprocessors; column tiles of %d points at 8 warps with %d x blocks or more, "
                  "else %d at 4 and split; row tiles up to %d points (%d where rows are not 16-byte aligned); "
                  "split below %d blocks\n",
              o->gpu_sms, GPU_COL_TILE / 2, GPU_BLOCKS_PER_SM * o->gpu_sms, GPU_COL_TILE, 2 * GPU_ROW_TILE, GPU_ROW_TILE / 2,
              GPU_BLOCKS_PER_SM * o->gpu_sms);
  if (plan->target == TRITON_GPU)
    sb_printf(sb, "chains: a row statistic and the kernels that read it back, one launch (rows up to %d held in registers)%s\n",
              GPU_PERSIST_MAX, o->gpu_nochain ? ": off (--gpu-no-chain)" : "");
  if (plan->target == TRITON_GPU && o->gpu_loads == TRITON_LOADS_TMA)
    sb_printf(sb, "loads: tma (tensor descriptors where the access allows), %d KiB of shared memory per multiprocessor\n",
              o->gpu_smem_kb);
  for (int i = 0; i < p->nkernels; i++) {
    const Kernel *k = &p->kernels[i];
    const TKernel *tk = &plan->kern[i];
    sb_printf(sb, "kernel %s\n  x:", k->name);
    dump_names(sb, k, k->x, k->nx);
    sb_printf(sb, "%s -> x numel %lld%s\n", k->nx ? "" : " (one point)", (long long)tk->xnumel,
              tk->wide ? ", int64 indices" : "");
    for (int g = 0; g < k->ngroups; g++) {
      const TGroup *G = &tk->g[g];
      sb_printf(sb, "  group %d:", g);
      dump_names(sb, k, G->axes, G->naxes);
      sb_printf(sb, " -> %lld points", (long long)G->numel);
      int lead = group_lead(k, g);
      if (lead >= 0) sb_printf(sb, "; lead load v%d (%s %s)", lead, p->bufs[k->vals[lead].buf].name, dtype_name(k->vals[lead].dtype));
      sb_puts(sb, "\n");
      if (plan->target == TRITON_NPU) {
        Dim d[COIL_MAX_DIMS + 1];
        int n = fill_order(k, tk, g, lead, d);
        sb_printf(sb, "    UB: %lld bytes per element -> %lld elements per sub-tile\n", (long long)G->elem_bytes,
                  (long long)G->budget);
        sb_puts(sb, "    fill order (innermost first):");
        for (int j = 0; j < n; j++)
          sb_printf(sb, " %s(stride %lld)", d[j].axis < 0 ? "x0" : k->axes[d[j].axis].name, (long long)d[j].stride);
        sb_puts(sb, "\n    sub-blocks: X0BLOCK_SUB ");
        sb_printf(sb, "%lld", (long long)tk->x0sub);
        int64_t el = tk->x0sub;
        for (int j = 0; j < G->naxes; j++) {
          sb_printf(sb, " x R%sBLOCK_SUB %lld", k->axes[G->axes[j]].name + 1, (long long)G->sub[j]);
          el *= G->sub[j];
        }
        sb_printf(sb, " = %lld elements, %lld of %lld UB bytes", (long long)el, (long long)(el * G->elem_bytes),
                  (long long)o->npu_ub_kb * 1024);
        if (lead >= 0 && n) {
          int64_t run = d[0].axis < 0 ? tk->x0sub : 1;
          for (int j = 0; j < G->naxes; j++)
            if (G->axes[j] == d[0].axis) run = G->sub[j];
          if (d[0].stride == 1)
            sb_printf(sb, "; innermost DMA run %lld bytes%s", (long long)(run * dtype_size(k->vals[lead].dtype)),
                      run * dtype_size(k->vals[lead].dtype) % 32 == 0 ? " (32-byte aligned)" : "");
        }
        sb_puts(sb, "\n");
        if (G->split_axis >= 0)
          sb_printf(sb, "    split along %s: chunks of %lld (R%s_CHUNK)\n", k->axes[G->axes[G->split_axis]].name,
                    (long long)G->split_chunk, k->axes[G->axes[G->split_axis]].name + 1);
      } else if (tk->chain >= 0) {
        /* the chain's line below says it */
      } else {
        sb_printf(sb, "    RBLOCK %lld%s", (long long)G->rblock, G->persistent ? " (persistent: one block holds the range)" : "");
        if (tk->nsplit > 1) sb_printf(sb, ", chunks of %lld (RSPLIT_CHUNK)", (long long)G->rchunk);
        sb_puts(sb, "\n");
        if (tk->desc)
          for (int v = 0; v < k->nvals; v++) {
            if (k->vals[v].op != OP_INPUT || k->vals[v].scope != g) continue;
            sb_printf(sb, "    load v%d (%s %s): ", v, p->bufs[k->vals[v].buf].name, dtype_name(k->vals[v].dtype));
            const TDesc *t = tk->desc[v];
            if (!t) {
              sb_printf(sb, "pointer (%s)\n", tk->desc_why[v] ? tk->desc_why[v] : "?");
              continue;
            }
            sb_puts(sb, "descriptor");
            for (int f = 0; f < 3; f++) {
              sb_puts(sb, f == 0 ? " shape [" : f == 1 ? " strides [" : " box [");
              for (int j = 0; j < t->ndims; j++) {
                const TDescDim *d = &t->d[j];
                sb_printf(sb, "%s%lld", j ? ", " : "", (long long)(f == 0 ? d->size : f == 1 ? d->stride : d->box));
              }
              sb_puts(sb, "]");
            }
            sb_puts(sb, " over");
            for (int j = 0; j < t->ndims; j++) {
              sb_puts(sb, j ? " |" : "");
              for (int m = 0; m < t->d[j].naxes; m++) sb_printf(sb, " %s", k->axes[t->d[j].axes[m]].name);
            }
            if (t->offset) sb_printf(sb, ", base + %lld", (long long)t->offset);
            sb_printf(sb, "; %lld bytes a box\n", (long long)t->bytes);
          }
      }
    }
    if (plan->target == TRITON_NPU) {
      sb_printf(sb, "  X0BLOCK %lld, X0BLOCK_SUB %lld -> %lld program%s over x", (long long)tk->x0block, (long long)tk->x0sub,
                (long long)tk->xprogs, tk->xprogs == 1 ? "" : "s");
      if (tk->nsplit > 1)
        sb_printf(sb, " < %d cores: split into %lld parts -> %lld programs; combine X0BLOCK %lld, X0BLOCK_SUB %lld, S_SUB %lld",
                  o->npu_cores, (long long)tk->nsplit, (long long)(tk->xprogs * tk->nsplit), (long long)tk->cx0block,
                  (long long)tk->csub_x, (long long)tk->csub_s);
      sb_puts(sb, "\n");
    } else if (tk->chain >= 0) {
      const TKernel *h = &plan->kern[tk->chain];
      if (tk->chain != i) {
        sb_printf(sb, "  in the chain of %s (k%d_)\n", p->kernels[tk->chain].name, i - tk->chain);
        continue;
      }
      sb_printf(sb, "  %s chain of %d kernels: O", h->x_contig ? "column" : "row", h->nchain);
      for (int j = 0; j < h->no; j++) sb_printf(sb, "%s%lld", j ? "x" : "[", (long long)h->csize[j]);
      sb_puts(sb, "] points, rows of");
      for (int j = 0; j < h->ni; j++) sb_printf(sb, "%s%lld", j ? "x" : " [", (long long)h->csize[h->no + j]);
      sb_printf(sb, "]; XBLOCK %lld, RBLOCK %lld%s -> %lld blocks, num_warps %d\n", (long long)h->xblock, (long long)h->crblock,
                h->cpersist ? " (persistent: the row is read once)" : " (each kernel loops over the row)", (long long)h->xprogs,
                h->num_warps);
    } else {
      sb_printf(sb, "  %s; XBLOCK %lld -> %lld block%s over x, num_warps %d", !k->ngroups ? "pointwise" : tk->x_contig ? "column tile (x is unit-stride)" : "row tile",
                (long long)tk->xblock, (long long)tk->xprogs, tk->xprogs == 1 ? "" : "s", tk->num_warps);
      if (tk->nsplit > 1)
        sb_printf(sb, "; split into %lld parts -> %lld blocks; combine XBLOCK %lld, SBLOCK %lld", (long long)tk->nsplit,
                  (long long)(tk->xprogs * tk->nsplit), (long long)tk->cxblock, (long long)tk->csblock);
      sb_puts(sb, "\n");
      if (tk->nsplit > 1)
        sb_printf(sb, "  combine: %s (%lld bytes of parts an x block%s)\n",
                  tk->last_combine ? "in the block whose part ends last" : "a second launch", (long long)tk->part_bytes,
                  plan->opt.gpu_combine ? ", --gpu-combine" : tk->last_combine ? " <= 4096" : " > 4096");
      if (tk->num_stages)
        sb_printf(sb, "  pipeline: NUM_STAGES %d (%lld bytes a stage, %d block%s per multiprocessor)\n", tk->num_stages,
                  (long long)tk->stage_bytes, tk->ctas_per_sm, tk->ctas_per_sm == 1 ? "" : "s");
    }
    if (plan->target == TRITON_GPU && k->ngroups && tk->unroll > 1)
      sb_printf(sb, "  loops unrolled %d times%s\n", tk->unroll, plan->opt.gpu_unroll ? " (--gpu-unroll)" : "");
  }
  sb_puts(sb, "launches:\n");
  for (int i = 0; i < plan->nlaunches; i++) {
    const TritonLaunch *L = &plan->launches[i];
    sb_printf(sb, "  %d. %s grid (%lld, %lld, %lld) num_warps %d:", i, L->kernel, (long long)L->grid[0], (long long)L->grid[1],
              (long long)L->grid[2], L->num_warps);
    for (int j = 0; j < L->nargs; j++) {
      const TritonArg *A = &L->args[j];
      if (A->is_ptr)
        sb_printf(sb, " %s=%s", A->name, A->buf < plan->nbufs ? p->bufs[A->buf].name : plan->scratch[A->buf - plan->nbufs].name);
      else sb_printf(sb, " %s=%lld", A->name, (long long)A->value);
    }
    sb_puts(sb, "\n");
  }
  for (int i = 0; i < plan->nscratch; i++)
    sb_printf(sb, "scratch %d: %s %s[%lld]\n", plan->nbufs + i, plan->scratch[i].name, dtype_name(plan->scratch[i].dtype),
              (long long)plan->scratch[i].numel);
  if (plan->opt.autotune)
    sb_printf(sb, "autotune: %d kernel%s with candidates (the model's first), timed on the module's first call\n", plan->ntune,
              plan->ntune == 1 ? "" : "s");
  for (int u = 0; u < plan->ntune; u++) {
    const TritonTune *T = &plan->tune[u];
    sb_printf(sb, "  %s (launches %d-%d):\n", plan->launches[T->first].kernel, T->first, T->first + T->nlaunches - 1);
    for (int j = 0; j < T->ncand; j++) {
      const TritonCandidate *C = &T->cand[j];
      sb_printf(sb, "    %d. %s", j, C->label);
      if (C->nlaunches > 1) sb_printf(sb, "; %s grid (%lld, %lld, %lld) num_warps %d", C->launches[1].kernel, (long long)C->launches[1].grid[0],
                                     (long long)C->launches[1].grid[1], (long long)C->launches[1].grid[2], C->launches[1].num_warps);
      sb_puts(sb, "\n");
    }
  }
}
