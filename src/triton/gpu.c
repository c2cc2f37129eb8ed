/* The GPU dialect: one Program kernel as Inductor-style [XBLOCK, RBLOCK]
 * tiles.
 *
 *   xindex = program_id(0) * XBLOCK + arange(XBLOCK)[:, None]   x axes by // %
 *   x values                                                  [XBLOCK, 1]
 *   _acc = tl.full([XBLOCK, RBLOCK], id)
 *   for roffset in range(0, rnumel, RBLOCK):      (none: persistent)
 *       rindex = roffset + arange(RBLOCK)[None, :]            r axes by // %
 *       body; _acc = combine(_acc, where(rmask, value, id))
 *   tmp = reduce(_acc, 1)[:, None]; epilogue; tl.store
 *
 * A group's r axes are flattened in the IR's order (outer to inner), so
 * the innermost is the one the heaviest load streams along.  Masks are
 * printed only where a block can pass the end (numel not a multiple of
 * the block), which keeps the seed's loads unmasked and vectorised along
 * x.  Lanes past the end of x are computed on masked loads and never
 * stored; lanes past the end of r contribute the identity.
 *
 * Split (plan.c): program_id(1) takes RSPLIT_CHUNK points of the
 * flat r range; NAME_combine reduces the parts and runs the epilogue,
 * launched after the parts, or (TKernel.last_combine) called by the
 * block whose part ends last, which counts the x block's parts done:
 *
 *   tl.debug_barrier()
 *   done = tl.atomic_add(done_ptr + tl.program_id(0), 1, sem='acq_rel')
 *   if done == RSPLIT - 1:
 *       tl.store(done_ptr + tl.program_id(0), 0)
 *       NAME_combine(ws_ptr0, out_ptr0, xnumel, RSPLIT, XBLOCK, SBLOCK)
 *
 * --gpu-loads tma: a load the tile model gave a descriptor (TDesc) is a
 * bulk copy of one box, made once per program and loaded at the tile's
 * start in every step:
 *
 *   desc0 = tl.make_tensor_descriptor(in_ptr0, shape=[524288, 128], strides=[128, 1], block_shape=[64, 128])
 *   for roffset in tl.range(0, RSPLIT_CHUNK, RBLOCK, num_stages=NUM_STAGES):
 *       rstart = rsplit * RSPLIT_CHUNK + roffset
 *       r3_t = rstart % 4096 ...                 axes at the tile's start
 *       tmp0 = tl.permute(desc0.load([262144*r1_t + 4096*r2_t + r3_t, x0_t]), (1, 0))
 *
 * The box arrives in memory order (dims by stride, the unit stride last);
 * it is split into its axes where dims were merged, permuted to the
 * tile's order (x axes, then r axes) and reshaped to [XBLOCK, RBLOCK]
 * ([1, RBLOCK] when it reads no x axis).  Copies past a dim's end read
 * zeros, as masked loads do.  tl.range software-pipelines the copies.
 *
 * Requires: the plan of the kernel (tiles, descriptors, the values to
 * print, launches whose arguments are this dialect's parameters).
 * Guarantees: prints only, with print.c's value printing; the functions'
 * parameters are the launches' arguments. */
#include <string.h>

#include "triton/triton.h"

typedef struct Gpu {
  TPrint *P;
  const TritonPlan *plan;
  const Kernel *k;
  const TKernel *tk;
  Arena *a;
  bool xmask;       /* XBLOCK can pass xnumel */
  bool *rmask;      /* per group */
  const bool *need_grp, *need_post; /* the plan's (TKernel) */
  const char **ptr;        /* per buffer: its parameter in this function */
  const char **names; /* per axis */
  /* chains: the head's plan, this member's offset in the chain, and the
   * inner range held by one tile (no loop, no per-phase r variables) */
  const TKernel *h;
  int q;
  bool persist;
} Gpu;

static const char *gsfx(Gpu *E, const char *base, int g) {
  return g ? arena_printf(E->a, "%s%d", base, g) : base;
}

static void print_index(Gpu *E, StrBuf *sb, const IExpr *ix) {
  bool any = false;
  for (int ax = 0; ax < E->k->naxes; ax++)
    if (ix_mentions(ix, ax)) any = true;
  sb_puts(sb, "(");
  ix_print(sb, ix, E->names, false);
  sb_puts(sb, ")");
  if (!any) sb_puts(sb, " + tl.zeros([1, 1], tl.int32)");
}

static const char *index_mask(Gpu *E, const IExpr *ix) {
  const Kernel *k = E->k;
  bool x = false;
  bool *r = ARENA_ARRAY(E->a, bool, k->ngroups + 1);
  for (int ax = 0; ax < k->naxes; ax++) {
    if (!ix_mentions(ix, ax)) continue;
    if (E->h) { /* a chain: O axes, then inner axes (a pointwise member's x axes among them) */
      if (E->tk->cpos[ax] < E->h->no) x = E->xmask;
      else r[0] |= E->rmask[0];
    } else if (k->axes[ax].kind == AX_X) x = E->xmask;
    else if (E->rmask[k->axes[ax].group]) r[k->axes[ax].group] = true;
  }
  StrBuf sb = {0};
  if (x) sb_puts(&sb, "xmask");
  if (E->h && r[0]) sb_printf(&sb, "%srmask", sb.len ? " & " : "");
  for (int g = 0; g < k->ngroups && !E->h; g++)
    if (r[g]) sb_printf(&sb, "%s%s", sb.len ? " & " : "", gsfx(E, "rmask", g));
  char *s = sb.len ? arena_strdup(E->a, sb.data) : NULL;
  sb_free(&sb);
  return s;
}

/* A chain member's index reads an inner (row) axis. */
static bool ix_mentions_inner(const Gpu *E, const IExpr *ix) {
  for (int ax = 0; ax < E->k->naxes; ax++)
    if (ix_mentions(ix, ax) && E->tk->cpos[ax] >= E->h->no) return true;
  return false;
}

static bool has_desc(const Gpu *E, int i) { return E->tk->desc && E->tk->desc[i]; }

/* Does load u of kernel k read along the range a block walks (the loop of
 * its group, or a chain's row)?  Under plan tm; chains (h) only for rows. */
static bool walks(const Kernel *k, const TKernel *tm, const TKernel *h, int u) {
  if (k->vals[u].scope >= 0) return true;
  if (!h) return false;
  for (int ax = 0; ax < k->naxes; ax++)
    if (ix_mentions(k->vals[u].index, ax) && tm->cpos[ax] >= h->no) return true;
  return false;
}

/* Is load i streamed: read by one point of the kernel each (its index names
 * every axis the kernel walks where it is read), and the only load of its
 * buffer along the walked range in this function (a chain's members count
 * together; a value one member hands another in registers is no load)?
 * Its lines will not be read here again.  A load the points share
 * (RMSNorm's weight, read by every row) or a row read twice is not; a
 * variance's shift, the row's first element read once before the loop,
 * does not count. */
static bool streamed(const Gpu *E, int i) {
  const Kernel *k = E->k;
  const KVal *v = &k->vals[i];
  for (int j = 0; j < k->nx; j++)
    if (k->axes[k->x[j]].size > 1 && !ix_mentions(v->index, k->x[j])) return false;
  if (v->scope >= 0) {
    const KGroup *G = &k->groups[v->scope];
    for (int j = 0; j < G->naxes; j++)
      if (k->axes[G->axes[j]].size > 1 && !ix_mentions(v->index, G->axes[j])) return false;
  }
  int loads = 0;
  if (!E->h) {
    for (int u = 0; u < k->nvals; u++) loads += k->vals[u].op == OP_INPUT && k->vals[u].buf == v->buf && walks(k, E->tk, NULL, u);
    return loads == 1;
  }
  int head = E->tk->chain;
  for (int j = head; j < head + E->h->nchain; j++) {
    const Kernel *km = &E->P->p->kernels[j];
    const TKernel *tm = &E->plan->kern[j];
    for (int u = 0; u < km->nvals; u++)
      loads += km->vals[u].op == OP_INPUT && km->vals[u].buf == v->buf && tm->hand_k[u] < 0 &&
               (!tm->share_k || tm->share_k[u] < 0) && walks(km, tm, E->h, u);
  }
  return loads == 1;
}

/* Value i (a load) through its descriptor: the box at the tile's start,
 * then in the tile's shape. */
static void print_desc_load(Gpu *E, int i, const char *indent) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  const TDesc *t = tk->desc[i];
  StrBuf *sb = E->P->sb;
  StrBuf ex = {0};
  sb_printf(&ex, "desc%d.load([", i);
  /* the axes with a box of more than 1, in memory order, and the dims */
  int L[2 * COIL_MAX_DIMS * TDESC_MAX_DIMS], nl = 0;
  for (int j = 0; j < t->ndims; j++) {
    /* a merged dim's coordinate: its axes' starts, row-major */
    const TDescDim *d = &t->d[j];
    int64_t coef[2 * COIL_MAX_DIMS], inner = 1;
    for (int m = d->naxes - 1; m >= 0; m--) {
      coef[m] = inner;
      inner *= k->axes[d->axes[m]].size;
    }
    sb_puts(&ex, j ? ", " : "");
    for (int m = 0; m < d->naxes; m++) {
      sb_puts(&ex, m ? " + " : "");
      if (coef[m] != 1) sb_printf(&ex, "%lld*", (long long)coef[m]);
      sb_printf(&ex, "%s_t", E->names[d->axes[m]]);
    }
    for (int m = 0; m < d->naxes; m++)
      if (tk->axbox[d->axes[m]] > 1) L[nl++] = d->axes[m];
  }
  sb_puts(&ex, "])");
  char *e = arena_strdup(E->a, ex.data);
  sb_free(&ex);
  /* Each axis's place in the tile: x axes, then the group's r axes, outer
   * to inner (only those of L count). */
  const TGroup *G = &tk->g[k->vals[i].scope];
  int tp[2 * COIL_MAX_DIMS * TDESC_MAX_DIMS];
  int64_t xs = 1, rs = 1;
  int np = 0;
  for (int side = 0; side < 2; side++)
    for (int q = 0; q < (side ? G->naxes : k->nx); q++) {
      int ax = side ? G->axes[q] : k->x[q];
      for (int j = 0; j < nl; j++)
        if (L[j] == ax) {
          tp[j] = np++;
          *(side ? &rs : &xs) *= tk->axbox[ax];
        }
    }
  /* Runs of L that are consecutive in the tile too stay together; the
   * others are split apart (a reshape), permuted to the tile's order and
   * flattened to [XBLOCK, RBLOCK]. */
  int first[2 * COIL_MAX_DIMS * TDESC_MAX_DIMS], nrun = 0;
  int64_t rbox[2 * COIL_MAX_DIMS * TDESC_MAX_DIMS];
  for (int j = 0; j < nl; j++) {
    if (j == 0 || tp[j] != tp[j - 1] + 1) {
      first[nrun] = j;
      rbox[nrun++] = 1;
    }
    rbox[nrun - 1] *= tk->axbox[L[j]];
  }
  bool same = nrun == t->ndims;
  for (int j = 0; j < t->ndims && same; j++)
    if (rbox[j] != t->d[j].box) same = false;
  if (!same && nrun > 0) {
    StrBuf r = {0};
    sb_printf(&r, "tl.reshape(%s, [", e);
    for (int j = 0; j < nrun; j++) sb_printf(&r, "%s%lld", j ? ", " : "", (long long)rbox[j]);
    sb_puts(&r, "])");
    e = arena_strdup(E->a, r.data);
    sb_free(&r);
  }
  int perm[2 * COIL_MAX_DIMS * TDESC_MAX_DIMS];
  for (int j = 0; j < nrun; j++) perm[j] = j;
  for (int j = 1; j < nrun; j++) /* runs by tile place: insertion sort */
    for (int m = j; m > 0 && tp[first[perm[m - 1]]] > tp[first[perm[m]]]; m--) {
      int tmp = perm[m];
      perm[m] = perm[m - 1];
      perm[m - 1] = tmp;
    }
  bool ident = true;
  for (int j = 0; j < nrun; j++)
    if (perm[j] != j) ident = false;
  if (!ident) {
    StrBuf r = {0};
    sb_printf(&r, "tl.permute(%s, (", e);
    for (int j = 0; j < nrun; j++) sb_printf(&r, "%s%d", j ? ", " : "", perm[j]);
    sb_puts(&r, "))");
    e = arena_strdup(E->a, r.data);
    sb_free(&r);
  }
  /* [XBLOCK, RBLOCK], [1, RBLOCK], [XBLOCK, 1] or [1, 1] */
  bool two = nrun == 2 && xs > 1 && rs > 1;
  if (!two) e = arena_printf(E->a, "tl.reshape(%s, [%lld, %lld])", e, (long long)xs, (long long)rs);
  sb_printf(sb, "%stmp%d = %s", indent, i, e);
  if (k->vals[i].dtype == DT_BF16 || k->vals[i].dtype == DT_F16) sb_puts(sb, ".to(tl.float32)");
  sb_puts(sb, "\n");
}

/* The value name of chain member m's value i ("k1_tmp3"). */
static const char *member_pfx(Gpu *E, int m) { return arena_printf(E->a, "k%d_", m - E->tk->chain); }

/* A chain member's load of what an earlier member stores for the same O
 * point: that store's value, converted as the store and the load would;
 * or of an element an earlier member loaded: that load. */
static bool print_chain_load(Gpu *E, int i, const char *indent) {
  const TKernel *tk = E->tk;
  StrBuf *sb = E->P->sb;
  const KVal *v = &E->k->vals[i];
  if (tk->hand_k[i] >= 0) {
    const Kernel *km = &E->P->p->kernels[tk->hand_k[i]];
    const KStore *st = &km->stores[tk->hand_s[i]];
    StrBuf e = {0};
    TPrint Q = *E->P;
    Q.sb = &e;
    Q.k = km;
    Q.tk = &E->plan->kern[tk->hand_k[i]];
    Q.vpfx = member_pfx(E, tk->hand_k[i]);
    DType bt = E->P->p->bufs[st->buf].dtype;
    tri_store_value(&Q, st->val, bt);
    sb_printf(sb, "%s%s = %s%s  # %s, as stored by %s\n", indent, tri_vname(E->P, i), e.data,
              bt == DT_BF16 || bt == DT_F16 ? ".to(tl.float32)" : "", E->P->p->bufs[st->buf].name, km->name);
    sb_free(&e);
    return true;
  }
  if (tk->share_k[i] >= 0) {
    sb_printf(sb, "%s%s = %s%stmp%d\n", indent, tri_vname(E->P, i), member_pfx(E, tk->share_k[i]), "", tk->share_v[i]);
    (void)v;
    return true;
  }
  return false;
}

/* An indexed load (tri_gather): masked by every axis its access spans. */
static void print_gather(Gpu *E, int i, const char *indent) {
  const KVal *v = &E->k->vals[i];
  StrBuf ix = {0}, m = {0};
  print_index(E, &ix, v->index);
  const char *span = index_mask(E, kval_access_span(E->a, E->k, i));
  if (span) sb_puts(&m, span);
  if (v->nguard) {
    sb_puts(&m, span ? " & " : "");
    kval_print_guard(&m, v, E->names, GUARD_PY);
  }
  tri_gather(E->P, i, indent, E->ptr[v->buf], ix.data, m.len ? arena_strdup(E->a, m.data) : NULL);
  sb_free(&ix);
  sb_free(&m);
}

static void print_val(Gpu *E, int i, const char *indent) {
  const KVal *v = &E->k->vals[i];
  if (v->op == OP_GATHER) {
    print_gather(E, i, indent);
    return;
  }
  if (v->op != OP_INPUT) {
    tri_value(E->P, i, indent);
    return;
  }
  if (E->h && print_chain_load(E, i, indent)) return;
  if (has_desc(E, i)) {
    print_desc_load(E, i, indent);
    return;
  }
  StrBuf *sb = E->P->sb;
  sb_printf(sb, "%s%s = tl.load(%s + ", indent, tri_vname(E->P, i), E->ptr[v->buf]);
  print_index(E, sb, v->index);
  const char *m = index_mask(E, v->index);
  if (v->nguard) { /* a padded read: the guard joins the mask, the fill is other= */
    sb_printf(sb, ", %s%s", m ? m : "", m ? " & " : "");
    kval_print_guard(sb, v, E->names, GUARD_PY);
    sb_puts(sb, ", other=");
    tri_fill(sb, v);
  } else if (m) {
    sb_printf(sb, ", %s, other=0", m);
  }
  /* a streamed load, in a group's loop or a chain's row: its lines leave
   * the cache first (Inductor's rule, for reductions' loads) */
  if (E->plan->opt.gpu_evict && (v->scope >= 0 || (E->h && ix_mentions_inner(E, v->index))) && streamed(E, i))
    sb_puts(sb, ", eviction_policy='evict_first'");
  sb_puts(sb, ")");
  if (v->dtype == DT_BF16 || v->dtype == DT_F16) sb_puts(sb, ".to(tl.float32)");
  sb_puts(sb, "\n");
}

static const char *res_name(Gpu *E, int r) {
  int v = tri_red_value(E->k, r);
  return v >= 0 ? tri_vname(E->P, v) : arena_printf(E->a, "%sred%d", E->P->vpfx ? E->P->vpfx : "", r);
}

/* The x axes from xindex: x_k = (xindex // stride) % size. */
static void x_vars(Gpu *E, const char *indent) {
  const Kernel *k = E->k;
  StrBuf *sb = E->P->sb;
  int64_t stride = 1;
  for (int i = k->nx - 1; i >= 0; i--) {
    int64_t size = k->axes[k->x[i]].size;
    const char *nm = E->names[k->x[i]];
    if (k->nx == 1) sb_printf(sb, "%s%s = xindex\n", indent, nm);
    else if (i == k->nx - 1) sb_printf(sb, "%s%s = xindex %% %lld\n", indent, nm, (long long)size);
    else if (i == 0) sb_printf(sb, "%s%s = xindex // %lld\n", indent, nm, (long long)stride);
    else sb_printf(sb, "%s%s = (xindex // %lld) %% %lld\n", indent, nm, (long long)stride, (long long)size);
    stride *= size;
  }
}

/* The starts of a tile's axes (descriptor coordinates), name_t, from the
 * flat start `from` of the block: (from // stride) % size.  `cast`: from
 * is int64 (wide kernels), and coordinates are int32 (every axis's start
 * is below its size, which is below 2^31). */
static void axis_starts(Gpu *E, const char *from, const int *axes, int n, bool cast, const char *indent) {
  StrBuf *sb = E->P->sb;
  int64_t stride = 1;
  for (int i = n - 1; i >= 0; i--) {
    int64_t size = E->k->axes[axes[i]].size;
    const char *nm = E->names[axes[i]];
    const char *e;
    if (n == 1) e = from;
    else if (i == n - 1) e = arena_printf(E->a, "%s %% %lld", from, (long long)size);
    else if (i == 0) e = arena_printf(E->a, "%s // %lld", from, (long long)stride);
    else e = arena_printf(E->a, "(%s // %lld) %% %lld", from, (long long)stride, (long long)size);
    if (cast) sb_printf(sb, "%s%s_t = (%s).to(tl.int32)\n", indent, nm, e);
    else sb_printf(sb, "%s%s_t = %s\n", indent, nm, e);
    stride *= size;
  }
}

static bool group_has_desc(const Gpu *E, int g) {
  for (int i = 0; i < E->k->nvals; i++)
    if (E->need_grp[i] && E->k->vals[i].scope == g && has_desc(E, i)) return true;
  return false;
}

static void x_head(Gpu *E) {
  StrBuf *sb = E->P->sb;
  sb_printf(sb, "    xoffset = tl.program_id(0)%s * XBLOCK\n", E->tk->wide ? ".to(tl.int64)" : "");
  sb_puts(sb, "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]\n");
  if (E->xmask) sb_puts(sb, "    xmask = xindex < xnumel\n");
  x_vars(E, "    ");
}

static void print_stores(Gpu *E, const char *indent) {
  const Kernel *k = E->k;
  StrBuf *sb = E->P->sb;
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && k->vals[i].scope == SCOPE_POST && op_info[k->vals[i].op].kind != OK_REDUCE) print_val(E, i, indent);
  for (int s = 0; s < k->nstores; s++) {
    const KStore *st = &k->stores[s];
    if (st->indexed) {
      StrBuf ix = {0};
      print_index(E, &ix, st->index);
      tri_indexed_add(E->P, s, indent, E->ptr[st->buf], ix.data, E->xmask ? "xmask" : NULL);
      sb_free(&ix);
      continue;
    }
    sb_printf(sb, "%stl.store(%s + ", indent, E->ptr[st->buf]);
    print_index(E, sb, st->index);
    sb_puts(sb, ", ");
    tri_store_value(E->P, st->val, E->P->p->bufs[st->buf].dtype);
    sb_puts(sb, E->xmask ? ", xmask)\n" : ")\n");
  }
}

static void group(Gpu *E, int g) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  const TGroup *G = &tk->g[g];
  StrBuf *sb = E->P->sb;
  TPrint *P = E->P;
  bool split = tk->nsplit > 1;
  const char *RB = gsfx(E, "RBLOCK", g), *rindex = gsfx(E, "rindex", g), *rbase = gsfx(E, "rbase", g);
  const char *rmask = gsfx(E, "rmask", g), *rnumel = gsfx(E, "rnumel", g), *roffset = gsfx(E, "roffset", g);
  bool persistent = E->h ? E->persist : G->persistent;
  int unroll = E->h ? E->h->unroll : tk->unroll;
  if (!E->h) sb_printf(sb, "    %s = tl.arange(0, %s)[None, :]%s\n", rbase, RB, tk->wide ? ".to(tl.int64)" : "");
  const char *ind = "    ";
  bool desc = group_has_desc(E, g);
  if (!persistent) {
    for (int r = 0; r < k->nreds; r++)
      if (k->reds[r].group == g) {
        sb_printf(sb, "    _%s = tl.full([XBLOCK, %s], %s, %s)\n", res_name(E, r), RB, tri_identity(&k->reds[r]),
                  tri_rtype(k->reds[r].dtype));
        if (op_is_argred(k->reds[r].op)) sb_printf(sb, "    _%s_i = tl.full([XBLOCK, %s], " TRI_ARG_NONE ", tl.int64)\n", res_name(E, r), RB);
      }
    const char *bound = split ? gsfx(E, "RSPLIT_CHUNK", g) : rnumel;
    /* the bulk copies of later steps are issued while this one computes */
    if (desc) sb_printf(sb, "    for %s in tl.range(0, %s, %s, num_stages=NUM_STAGES):\n", roffset, bound, RB);
    else if (unroll > 1) sb_printf(sb, "    for %s in tl.range(0, %s, %s, loop_unroll_factor=%d):\n", roffset, bound, RB, unroll);
    else sb_printf(sb, "    for %s in range(0, %s, %s):\n", roffset, bound, RB);
    ind = "        ";
    if (desc) {
      const char *rstart = gsfx(E, "rstart", g);
      if (split) sb_printf(sb, "%s%s = rsplit * %s + %s\n", ind, rstart, gsfx(E, "RSPLIT_CHUNK", g), roffset);
      else sb_printf(sb, "%s%s = %s\n", ind, rstart, roffset);
      sb_printf(sb, "%s%s = %s + %s\n", ind, rindex, rstart, rbase);
      axis_starts(E, rstart, G->axes, G->naxes, split && tk->wide, ind);
    } else if (split) sb_printf(sb, "%s%s = rsplit * %s + %s + %s\n", ind, rindex, gsfx(E, "RSPLIT_CHUNK", g), roffset, rbase);
    else sb_printf(sb, "%s%s = %s + %s\n", ind, rindex, roffset, rbase);
  } else if (!E->h) {
    sb_printf(sb, "%s%s = %s\n", ind, rindex, rbase);
    if (desc)
      for (int i = 0; i < G->naxes; i++) sb_printf(sb, "%s%s_t = 0\n", ind, E->names[G->axes[i]]);
  }
  bool rvars = !(E->h && persistent); /* a persistent chain printed them once */
  if (E->rmask[g] && rvars) sb_printf(sb, "%s%s = %s < %s\n", ind, rmask, rindex, rnumel);
  int64_t stride = 1;
  for (int i = G->naxes - 1; i >= 0 && rvars; i--) {
    int64_t size = k->axes[G->axes[i]].size;
    const char *nm = E->names[G->axes[i]];
    if (G->naxes == 1) sb_printf(sb, "%s%s = %s\n", ind, nm, rindex);
    else if (i == G->naxes - 1) sb_printf(sb, "%s%s = %s %% %lld\n", ind, nm, rindex, (long long)size);
    else if (i == 0) sb_printf(sb, "%s%s = %s // %lld\n", ind, nm, rindex, (long long)stride);
    else sb_printf(sb, "%s%s = (%s // %lld) %% %lld\n", ind, nm, rindex, (long long)stride, (long long)size);
    stride *= size;
  }
  for (int v = 0; v < k->nvals; v++)
    if (E->need_grp[v] && k->vals[v].scope == g) print_val(E, v, ind);
  for (int r = 0; r < k->nreds; r++) {
    const KRed *rd = &k->reds[r];
    if (rd->group != g) continue;
    const char *res = res_name(E, r);
    StrBuf val = {0};
    TPrint Q = *P;
    Q.sb = &val;
    tri_operand(&Q, rd->src, rd->dtype);
    if (E->rmask[g])
      sb_printf(sb, "%s%s_in = tl.broadcast_to(tl.where(%s, %s, %s), [XBLOCK, %s])\n", ind, res, rmask, val.data, tri_identity(rd), RB);
    else sb_printf(sb, "%s%s_in = tl.broadcast_to(%s, [XBLOCK, %s])\n", ind, res, val.data, RB);
    sb_free(&val);
    if (op_is_argred(rd->op)) { /* the pair: each r point's position beside its value */
      const char *pos = tri_vname(P, rd->idx);
      if (E->rmask[g])
        sb_printf(sb, "%s%s_in_i = tl.broadcast_to(tl.where(%s, %s, " TRI_ARG_NONE "), [XBLOCK, %s])\n", ind, res, rmask, pos, RB);
      else sb_printf(sb, "%s%s_in_i = tl.broadcast_to(%s, [XBLOCK, %s])\n", ind, res, pos, RB);
      if (persistent) tri_arg_finish(P, r, arena_printf(E->a, "%s_in", res), res, "", "[:, None]", ind);
      else tri_accumulate(P, r, res, ind);
      continue;
    }
    if (persistent) {
      sb_printf(sb, "%s%s = ", ind, res);
      tri_reduce(P, rd, arena_printf(E->a, "%s_in", res));
      sb_puts(sb, "[:, None]\n");
    } else {
      tri_accumulate(P, r, res, ind);
    }
  }
  if (!persistent)
    for (int r = 0; r < k->nreds; r++)
      if (k->reds[r].group == g) tri_finish(P, r, res_name(E, r), "", "[:, None]", "    ");
}

static void main_kernel(Gpu *E) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  StrBuf *sb = E->P->sb;
  bool split = tk->nsplit > 1;
  bool *need = ARENA_ARRAY(E->a, bool, k->nvals + 1);
  for (int i = 0; i < k->nvals; i++) need[i] = E->need_grp[i] || (!split && E->need_post[i]);
  const TritonLaunch *L = &E->plan->launches[tk->launch];
  E->ptr = tri_launch_ptrs(E->a, E->plan, L);
  tri_signature(sb, L);
  if (split) sb_printf(sb, "    # part rsplit of a split reduction: %s_combine finishes it\n", k->name);
  x_head(E);
  if (split) sb_printf(sb, "    rsplit = tl.program_id(1)%s\n", tk->wide ? ".to(tl.int64)" : "");
  bool any = false;
  for (int i = 0; i < k->nvals; i++) {
    if (!need[i] || !has_desc(E, i)) continue;
    const TDesc *t = tk->desc[i];
    StrBuf dims[3] = {{0}, {0}, {0}};
    for (int j = 0; j < t->ndims; j++) {
      sb_printf(&dims[0], "%s%lld", j ? ", " : "", (long long)t->d[j].size);
      sb_printf(&dims[1], "%s%lld", j ? ", " : "", (long long)t->d[j].stride);
      sb_printf(&dims[2], "%s%lld", j ? ", " : "", (long long)t->d[j].box);
    }
    const char *base = t->offset ? arena_printf(E->a, "%s + %lld", E->ptr[k->vals[i].buf], (long long)t->offset)
                                 : E->ptr[k->vals[i].buf];
    sb_printf(sb, "    desc%d = tl.make_tensor_descriptor(%s, shape=[%s], strides=[%s], block_shape=[%s])\n", i, base,
              dims[0].data, dims[1].data, dims[2].data);
    for (int j = 0; j < 3; j++) sb_free(&dims[j]);
    any = true;
  }
  *E->P->helpers |= any ? TH_DESCRIPTORS : 0;
  if (any) axis_starts(E, "xoffset", k->x, k->nx, tk->wide, "    ");
  for (int i = 0; i < k->nvals; i++)
    if (need[i] && k->vals[i].scope == SCOPE_X) print_val(E, i, "    ");
  for (int g = 0; g < k->ngroups; g++) group(E, g);
  if (split) {
    for (int r = 0; r < k->nreds; r++) {
      if (op_is_argred(k->reds[r].op)) { /* the pair's values and positions (tri_arg_finish's res_v, res_x) */
        const char *res = res_name(E, r), *m = E->xmask ? ", xmask" : "";
        sb_printf(sb, "    tl.store(%s + (rsplit * xnumel + xindex), %s_v[:, None]%s)\n", E->ptr[tk->ws[r]], res, m);
        sb_printf(sb, "    tl.store(%s + (rsplit * xnumel + xindex), %s_x[:, None]%s)\n", E->ptr[tk->ws[k->nreds + r]], res, m);
        continue;
      }
      sb_printf(sb, "    tl.store(%s + (rsplit * xnumel + xindex), %s%s)\n", E->ptr[tk->ws[r]], res_name(E, r), E->xmask ? ", xmask" : "");
    }
    if (tk->last_combine) {
      /* the barrier orders every thread's stores of the part before the
       * count; acq_rel makes them visible to the block that counts last,
       * and that block's loads of the parts come after its count */
      sb_puts(sb, "    # the block whose part ends last combines the x block's parts, and sets its count back to 0\n");
      sb_puts(sb, "    tl.debug_barrier()\n");
      sb_puts(sb, "    done = tl.atomic_add(done_ptr + tl.program_id(0), 1, sem='acq_rel')\n");
      sb_puts(sb, "    if done == RSPLIT - 1:\n");
      sb_puts(sb, "        tl.store(done_ptr + tl.program_id(0), 0)\n");
      sb_printf(sb, "        %s(", tk->cfn->kernel);
      for (int j = 0; j < tk->cfn->nargs; j++) sb_printf(sb, "%s%s", j ? ", " : "", tk->ccall[j]);
      sb_puts(sb, ")\n");
    }
  } else {
    print_stores(E, "    ");
  }
}

static void combine_kernel(Gpu *E) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  StrBuf *sb = E->P->sb;
  const TritonLaunch *L = tk->last_combine ? tk->cfn : &E->plan->launches[tk->claunch];
  E->ptr = tri_launch_ptrs(E->a, E->plan, L);
  bool save = E->xmask;
  E->xmask = tk->xnumel % tk->cxblock != 0;
  /* called by the block whose part ended last: the parts other blocks
   * stored are read from the L2 (.cg), past this multiprocessor's L1 */
  const char *cg = tk->last_combine ? ", cache_modifier='.cg'" : "";
  tri_signature(sb, L);
  if (tk->last_combine) sb_printf(sb, "    # called by %s's last part: combine the RSPLIT parts in order, then the epilogue\n", k->name);
  else sb_printf(sb, "    # combine the RSPLIT parts of %s in order, then the epilogue\n", k->name);
  x_head(E);
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && k->vals[i].scope == SCOPE_X) print_val(E, i, "    ");
  sb_puts(sb, "    sbase = tl.arange(0, SBLOCK)[None, :]\n");
  for (int r = 0; r < k->nreds; r++) {
    sb_printf(sb, "    _%s = tl.full([XBLOCK, SBLOCK], %s, %s)\n", res_name(E, r), tri_identity(&k->reds[r]), tri_rtype(k->reds[r].dtype));
    if (op_is_argred(k->reds[r].op)) sb_printf(sb, "    _%s_i = tl.full([XBLOCK, SBLOCK], " TRI_ARG_NONE ", tl.int64)\n", res_name(E, r));
  }
  sb_puts(sb, "    for soffset in range(0, RSPLIT, SBLOCK):\n");
  sb_puts(sb, "        sindex = soffset + sbase\n");
  sb_puts(sb, "        smask = sindex < RSPLIT\n");
  for (int r = 0; r < k->nreds; r++) {
    const char *res = res_name(E, r), *id = tri_identity(&k->reds[r]);
    sb_printf(sb, "        %s_in = tl.load(%s + (sindex * xnumel + xindex), %ssmask, other=%s%s)\n", res, E->ptr[tk->ws[r]], E->xmask ? "xmask & " : "",
              id, cg);
    if (op_is_argred(k->reds[r].op))
      sb_printf(sb, "        %s_in_i = tl.load(%s + (sindex * xnumel + xindex), %ssmask, other=" TRI_ARG_NONE "%s)\n", res,
                E->ptr[tk->ws[k->nreds + r]], E->xmask ? "xmask & " : "", cg);
    tri_accumulate(E->P, r, res, "        ");
  }
  for (int r = 0; r < k->nreds; r++) tri_finish(E->P, r, res_name(E, r), "", "[:, None]", "    ");
  print_stores(E, "    ");
  E->xmask = save;
}

/* ------------------------------------------------------------- chains */

/* name_k = (flat // stride) % size for n axes of sizes `size`, outer to inner. */
static void flat_vars(StrBuf *sb, const char *flat, const int64_t *size, const char *const *nm, int n, const char *indent) {
  int64_t stride = 1;
  for (int i = n - 1; i >= 0; i--) {
    if (n == 1) sb_printf(sb, "%s%s = %s\n", indent, nm[i], flat);
    else if (i == n - 1) sb_printf(sb, "%s%s = %s %% %lld\n", indent, nm[i], flat, (long long)size[i]);
    else if (i == 0) sb_printf(sb, "%s%s = %s // %lld\n", indent, nm[i], flat, (long long)stride);
    else sb_printf(sb, "%s%s = (%s // %lld) %% %lld\n", indent, nm[i], flat, (long long)stride, (long long)size[i]);
    stride *= size[i];
  }
}

/* The stores of a chain member that leave the chain (tl.store broadcasts
 * a row's value over the tile where the index asks for it). */
static void chain_stores(Gpu *E, const char *indent) {
  const Kernel *k = E->k;
  StrBuf *sb = E->P->sb;
  for (int s = 0; s < k->nstores; s++) {
    const KStore *st = &k->stores[s];
    if (!E->tk->cstore[s]) continue;
    sb_printf(sb, "%stl.store(%s + ", indent, E->ptr[st->buf]);
    print_index(E, sb, st->index);
    sb_puts(sb, ", ");
    tri_store_value(E->P, st->val, E->P->p->bufs[st->buf].dtype);
    const char *m = index_mask(E, st->index);
    sb_printf(sb, "%s%s)\n", m ? ", " : "", m ? m : "");
  }
}

/* A reduction member: its values per row, its group over the row (one
 * tile, or a loop), what follows the reductions, its stores. */
static void chain_reduction(Gpu *E) {
  const Kernel *k = E->k;
  for (int i = 0; i < k->nvals; i++)
    if ((E->need_grp[i] || E->need_post[i]) && k->vals[i].scope == SCOPE_X) print_val(E, i, "    ");
  group(E, 0);
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && k->vals[i].scope == SCOPE_POST && op_info[k->vals[i].op].kind != OK_REDUCE) print_val(E, i, "    ");
  chain_stores(E, "    ");
}

/* A pointwise member over the row: on the one tile, or in a loop with the
 * values that do not vary along the row before it. */
static void chain_pointwise(Gpu *E, const char *const *cname) {
  const Kernel *k = E->k;
  const TKernel *h = E->h;
  StrBuf *sb = E->P->sb;
  if (E->persist) {
    for (int i = 0; i < k->nvals; i++)
      if (E->need_post[i]) print_val(E, i, "    ");
    chain_stores(E, "    ");
    return;
  }
  bool *inner = ARENA_ARRAY(E->a, bool, k->nvals + 1), *v = ARENA_ARRAY(E->a, bool, k->nvals + 1);
  for (int ax = 0; ax < k->naxes; ax++) {
    if (E->tk->cpos[ax] < h->no) continue;
    kernel_varies_along(k, ax, v);
    for (int i = 0; i < k->nvals; i++) inner[i] |= v[i];
  }
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && !inner[i]) print_val(E, i, "    ");
  if (h->unroll > 1) sb_printf(sb, "    for roffset in tl.range(0, rnumel, RBLOCK, loop_unroll_factor=%d):\n", h->unroll);
  else sb_puts(sb, "    for roffset in range(0, rnumel, RBLOCK):\n");
  sb_puts(sb, "        rindex = roffset + rbase\n");
  if (E->rmask[0]) sb_puts(sb, "        rmask = rindex < rnumel\n");
  flat_vars(sb, "rindex", h->csize + h->no, cname + h->no, h->ni, "        ");
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && inner[i]) print_val(E, i, "        ");
  chain_stores(E, "        ");
}

/* The chain whose head is kernel `head`: one function, each member a
 * phase (see plan.c, GPU: chains). */
static void chain_kernel(TPrint *P, const TritonPlan *plan, int head) {
  const Program *p = P->p;
  const TKernel *h = &plan->kern[head];
  const TritonLaunch *L = &plan->launches[h->launch];
  StrBuf *sb = P->sb;
  Arena *a = P->a;
  const char **ptr = tri_launch_ptrs(a, plan, L);
  bool xmask = h->xnumel % h->xblock != 0, rmask = h->cinner % h->crblock != 0;
  const char **cname = ARENA_ARRAY(a, const char *, h->no + h->ni + 1);
  for (int j = 0; j < h->no + h->ni; j++) cname[j] = arena_printf(a, "%s%d", j < h->no ? "x" : "r", j);
  tri_signature(sb, L);
  sb_puts(sb, "    # one launch for");
  for (int j = head; j < head + h->nchain; j++) sb_printf(sb, "%s %s (k%d_)", j > head ? "," : "", p->kernels[j].name, j - head);
  sb_printf(sb, ":\n    # XBLOCK rows a block, each kernel in turn over the row (%s); row values pass in registers\n",
            h->cpersist ? "one tile holds it: it is read once" : "a loop each");
  const char *wide = P->tk->wide ? ".to(tl.int64)" : "";
  sb_printf(sb, "    xoffset = tl.program_id(0)%s * XBLOCK\n", wide);
  sb_puts(sb, "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]\n");
  if (xmask) sb_puts(sb, "    xmask = xindex < xnumel\n");
  flat_vars(sb, "xindex", h->csize, cname, h->no, "    ");
  sb_printf(sb, "    rbase = tl.arange(0, RBLOCK)[None, :]%s\n", wide);
  if (h->cpersist) {
    sb_puts(sb, "    rindex = rbase\n");
    if (rmask) sb_puts(sb, "    rmask = rindex < rnumel\n");
    flat_vars(sb, "rindex", h->csize + h->no, cname + h->no, h->ni, "    ");
  }
  for (int j = head; j < head + h->nchain; j++) {
    const Kernel *k = &p->kernels[j];
    const TKernel *tk = &plan->kern[j];
    TPrint Q = *P;
    Q.k = k;
    Q.tk = tk;
    Q.rank = 2;
    Q.vpfx = arena_printf(a, "k%d_", j - head);
    Gpu E = {.P = &Q, .plan = plan, .k = k, .tk = tk, .a = a, .xmask = xmask, .h = h, .q = j - head, .persist = h->cpersist};
    E.rmask = ARENA_ARRAY(a, bool, 2);
    E.rmask[0] = rmask;
    E.ptr = ptr;
    E.need_grp = tk->need_grp;
    E.need_post = tk->need_post;
    E.names = ARENA_ARRAY(a, const char *, k->naxes + 1);
    for (int ax = 0; ax < k->naxes; ax++) E.names[ax] = tk->cpos[ax] >= 0 ? cname[tk->cpos[ax]] : "?";
    Q.names = E.names; /* index values spell their axes so too */
    sb_printf(sb, "    # %s\n", k->name);
    if (k->ngroups) chain_reduction(&E);
    else chain_pointwise(&E, cname);
  }
}

void emit_triton_gpu_kernel(TPrint *P, const TritonPlan *plan, int kernel) {
  if (P->tk->chain >= 0) { /* the head prints the chain; the other members nothing */
    if (P->tk->chain == kernel) chain_kernel(P, plan, kernel);
    return;
  }
  const Kernel *k = P->k;
  const TKernel *tk = P->tk;
  Gpu E = {.P = P, .plan = plan, .k = k, .tk = tk, .a = P->a};
  P->rank = 2;
  E.xmask = tk->xnumel % tk->xblock != 0;
  E.rmask = ARENA_ARRAY(E.a, bool, k->ngroups + 1);
  for (int g = 0; g < k->ngroups; g++) {
    const TGroup *G = &tk->g[g];
    if (tk->nsplit > 1) E.rmask[g] = G->rchunk % G->rblock != 0 || G->rchunk * tk->nsplit != G->numel;
    else E.rmask[g] = G->numel % G->rblock != 0;
  }
  E.names = ARENA_ARRAY(E.a, const char *, k->naxes + 1);
  for (int ax = 0; ax < k->naxes; ax++) E.names[ax] = k->axes[ax].name ? k->axes[ax].name : "?";
  P->names = E.names;
  E.need_grp = tk->need_grp;
  E.need_post = tk->need_post;
  main_kernel(&E);
  if (tk->nsplit > 1) combine_kernel(&E);
}
