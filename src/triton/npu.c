/* The NPU dialect: one Program kernel as the seed's fixed DSL has it.
 *
 *   x0_offset = tl.program_id(0) * X0BLOCK
 *   for loop_x0 in range(loops_x0):            X0BLOCK_SUB outputs a step
 *       x values                               [X0BLOCK_SUB, 1, ..., 1]
 *       _acc = tl.full([X0BLOCK_SUB, R1BLOCK_SUB * R2BLOCK_SUB...], id)
 *       for loop_r1 in range(loops_r1):        one loop per reduction axis
 *           for loop_r2 in range(loops_r2):
 *               loads, each in its own memory order, permuted to
 *               [x0, r1, r2, ...]; the body
 *               _acc = combine(_acc, reshape(where(mask, value, id)))
 *       tmp = reshape(reduce(_acc, 1), [X0BLOCK_SUB, 1, ...])
 *       epilogue; tl.store
 *
 * The tile's axis order is the kernel's canonical one: the flat x index
 * x0 (all x axes, row-major), then each group's r axes in the IR's order,
 * padded with size-1 dims to the kernel's largest group.  Accumulators are
 * created before a group's first loop and reduced after its last; the
 * flatten is a plain tl.reshape of that order.  Masked lanes contribute
 * the reduction's identity, so tails of any size are right.
 *
 * With a split (plan.c), program_id(1) picks a chunk of one axis
 * per group; the parts go to scratch and NAME_combine reduces them and
 * runs the epilogue.
 *
 * Requires: the plan of the kernel (tiles, the values to print, launches
 * whose arguments are this dialect's parameters).  Guarantees: prints
 * only, with print.c's value printing; the functions' parameters are the
 * launches' arguments, so the tables and the executor bind them right. */
#include <string.h>

#include "triton/triton.h"

typedef struct Npu {
  TPrint *P;
  const TritonPlan *plan;
  const Kernel *k;
  const TKernel *tk;
  Arena *a;
  int N;                   /* tile rank */
  const char **xnames;     /* IR x axis names as printed (canonical) */
  int nlayouts;
  int *layout_of;          /* per value: 0 canonical, else a layout id */
  int ord[64][COIL_MAX_DIMS + 1]; /* per layout: position -> canonical dim */
  int layout_group[64];
  bool layout_x[64];       /* the layout's loads read x */
  const bool *need_grp, *need_post; /* the plan's (TKernel) */
  const char **ptr;        /* per buffer: its parameter in this function */
} Npu;

static const char *upper_axis(Arena *a, const char *name) {
  char *s = arena_strdup(a, name);
  if (s[0] >= 'a' && s[0] <= 'z') s[0] = (char)(s[0] - 'a' + 'A');
  return s;
}

/* "[None, :, None]": an arange placed at position pos of rank n. */
static const char *place(Arena *a, int pos, int n) {
  StrBuf sb = {0};
  sb_putc(&sb, '[');
  for (int i = 0; i < n; i++) sb_puts(&sb, i == pos ? (i ? ", :" : ":") : (i ? ", None" : "None"));
  sb_putc(&sb, ']');
  char *s = arena_strdup(a, sb.data);
  sb_free(&sb);
  return s;
}

/* An axis variable: the canonical one where the position is its canonical
 * dim, else NAME_<position>, as the seed's r2_1. */
static const char *var_at(Arena *a, const char *name, int canon, int pos) {
  return pos == canon ? name : arena_printf(a, "%s_%d", name, pos);
}

static int pos_in(const Npu *E, int L, int d);

/* The canonical dim of an axis in its group's tile (x axes: 0). */
static int canon_dim(const Npu *E, int ax) {
  const Kernel *k = E->k;
  if (k->axes[ax].kind == AX_X) return 0;
  const TGroup *G = &E->tk->g[k->axes[ax].group];
  for (int i = 0; i < G->naxes; i++)
    if (G->axes[i] == ax) return 1 + i;
  return 0;
}

/* Per-axis names in a layout, indexed by axis id. */
static const char **layout_names(Npu *E, int layout) {
  const Kernel *k = E->k;
  const char **n = ARENA_ARRAY(E->a, const char *, k->naxes + 1);
  for (int ax = 0; ax < k->naxes; ax++) {
    int d = canon_dim(E, ax);
    n[ax] = var_at(E->a, k->axes[ax].name ? k->axes[ax].name : "?", d, pos_in(E, layout, d));
  }
  for (int i = 0; i < k->nx; i++) n[k->x[i]] = var_at(E->a, E->xnames[i], 0, pos_in(E, layout, 0));
  return n;
}

/* Decide the memory order of load i: its dims sorted by decreasing
 * stride over the positions they occupy in the canonical order.  Returns
 * 0 (canonical) or a layout id. */
static int load_layout(Npu *E, int i) {
  const Kernel *k = E->k;
  const KVal *v = &k->vals[i];
  if (v->scope < 0 || !ix_is_affine(v->index)) return 0;
  const TGroup *G = &E->tk->g[v->scope];
  int used[COIL_MAX_DIMS + 1], nu = 0;
  int64_t stride[COIL_MAX_DIMS + 1] = {0};
  int64_t xs = 0;
  for (int j = k->nx - 1; j >= 0 && !xs; j--) xs = ix_coef(v->index, k->x[j]);
  if (xs) { used[nu++] = 0; stride[0] = xs < 0 ? -xs : xs; }
  for (int j = 0; j < G->naxes; j++) {
    int64_t c = ix_coef(v->index, G->axes[j]);
    if (!c) continue;
    used[nu++] = 1 + j;
    stride[1 + j] = c < 0 ? -c : c;
  }
  int sorted[COIL_MAX_DIMS + 1];
  memcpy(sorted, used, sizeof(int) * (size_t)nu);
  for (int a = 1; a < nu; a++) {
    int t = sorted[a], b = a;
    while (b > 0 && stride[sorted[b - 1]] < stride[t]) { sorted[b] = sorted[b - 1]; b--; }
    sorted[b] = t;
  }
  int ord[COIL_MAX_DIMS + 1];
  for (int p = 0; p < E->N; p++) ord[p] = p;
  bool ident = true;
  for (int a = 0; a < nu; a++) {
    ord[used[a]] = sorted[a];
    if (sorted[a] != used[a]) ident = false;
  }
  if (ident) return 0;
  for (int L = 1; L <= E->nlayouts; L++)
    if (!memcmp(E->ord[L], ord, sizeof(int) * (size_t)E->N) && E->layout_group[L] == v->scope) {
      if (xs) E->layout_x[L] = true;
      return L;
    }
  coil_assert(E->nlayouts + 1 < 64);
  int L = ++E->nlayouts;
  memcpy(E->ord[L], ord, sizeof(int) * (size_t)E->N);
  E->layout_group[L] = v->scope;
  E->layout_x[L] = xs != 0;
  return L;
}

/* position of canonical dim d in layout L */
static int pos_in(const Npu *E, int L, int d) {
  if (!L) return d;
  for (int p = 0; p < E->N; p++)
    if (E->ord[L][p] == d) return p;
  coil_unreachable("dim not in layout");
}

static void print_index(Npu *E, StrBuf *sb, const IExpr *ix, const char **names) {
  bool any = false;
  for (int ax = 0; ax < E->k->naxes; ax++)
    if (ix_mentions(ix, ax)) any = true;
  sb_puts(sb, "(");
  ix_print(sb, ix, names, false);
  sb_puts(sb, ")");
  if (!any) sb_printf(sb, " + tl.zeros(%s, tl.int32)", tri_ones(E->a, E->N));
}

/* "x0_mask & r1_mask": the masks of the dims an index reads, in layout L. */
static const char *index_mask(Npu *E, const IExpr *ix, int L) {
  const Kernel *k = E->k;
  StrBuf sb = {0};
  bool xdone = false;
  for (int ax = 0; ax < k->naxes; ax++) {
    if (!ix_mentions(ix, ax)) continue;
    if (k->axes[ax].kind == AX_X) {
      if (xdone) continue;
      xdone = true;
      sb_printf(&sb, "%s%s_mask", sb.len ? " & " : "", var_at(E->a, "x0", 0, pos_in(E, L, 0)));
    } else {
      sb_printf(&sb, "%s%s_mask", sb.len ? " & " : "", var_at(E->a, k->axes[ax].name, canon_dim(E, ax), pos_in(E, L, canon_dim(E, ax))));
    }
  }
  char *s = sb.len ? arena_strdup(E->a, sb.data) : NULL;
  sb_free(&sb);
  return s;
}

static void print_load(Npu *E, int i, const char *indent) {
  const Kernel *k = E->k;
  const KVal *v = &k->vals[i];
  StrBuf *sb = E->P->sb;
  int L = E->layout_of[i];
  const char **names = layout_names(E, L);
  sb_printf(sb, "%stmp%d = tl.load(%s + ", indent, i, E->ptr[v->buf]);
  print_index(E, sb, v->index, names);
  const char *m = index_mask(E, v->index, L);
  if (v->nguard) { /* a padded read: the guard joins the mask, the fill is other= */
    sb_printf(sb, ", %s%s", m ? m : "", m ? " & " : "");
    kval_print_guard(sb, v, names, GUARD_PY);
    sb_puts(sb, ", other=");
    tri_fill(sb, v);
  } else if (m) {
    sb_printf(sb, ", %s, other=0", m);
  }
  sb_puts(sb, ")");
  if (v->dtype == DT_BF16 || v->dtype == DT_F16) sb_puts(sb, ".to(tl.float32)");
  if (L) {
    sb_puts(sb, ".permute([");
    for (int d = 0; d < E->N; d++) sb_printf(sb, "%s%d", d ? ", " : "", pos_in(E, L, d));
    sb_puts(sb, "])");
  }
  sb_puts(sb, "\n");
}

/* An indexed load (tri_gather), in the canonical layout: masked by every
 * axis its access spans. */
static void print_gather(Npu *E, int i, const char *indent) {
  const KVal *v = &E->k->vals[i];
  const char **names = layout_names(E, 0);
  StrBuf ix = {0}, m = {0};
  print_index(E, &ix, v->index, names);
  const char *span = index_mask(E, kval_access_span(E->a, E->k, i), 0);
  if (span) sb_puts(&m, span);
  if (v->nguard) {
    sb_puts(&m, span ? " & " : "");
    kval_print_guard(&m, v, names, GUARD_PY);
  }
  tri_gather(E->P, i, indent, E->ptr[v->buf], ix.data, m.len ? arena_strdup(E->a, m.data) : NULL);
  sb_free(&ix);
  sb_free(&m);
}

static void print_val(Npu *E, int i, const char *indent) {
  if (E->k->vals[i].op == OP_INPUT) print_load(E, i, indent);
  else if (E->k->vals[i].op == OP_GATHER) print_gather(E, i, indent);
  else tri_value(E->P, i, indent);
}

static const char *res_name(Npu *E, int r) {
  int v = tri_red_value(E->k, r);
  return v >= 0 ? arena_printf(E->a, "tmp%d", v) : arena_printf(E->a, "red%d", r);
}

static const char *rprod(Npu *E, int g) {
  const TGroup *G = &E->tk->g[g];
  StrBuf sb = {0};
  for (int i = 0; i < G->naxes; i++)
    sb_printf(&sb, "%s%sBLOCK_SUB", i ? " * " : "", upper_axis(E->a, E->k->axes[G->axes[i]].name));
  char *s = arena_strdup(E->a, sb.data);
  sb_free(&sb);
  return s;
}

/* "[X0BLOCK_SUB, 1, 1]" */
static const char *xshape(Npu *E, int rank) {
  StrBuf sb = {0};
  sb_puts(&sb, "[X0BLOCK_SUB");
  for (int i = 1; i < rank; i++) sb_puts(&sb, ", 1");
  sb_puts(&sb, "]");
  char *s = arena_strdup(E->a, sb.data);
  sb_free(&sb);
  return s;
}

/* ---------------------------------------------------------- the body */

/* x0 (and its IR axes) with the arange at position pos of rank n. */
static void x_vars(Npu *E, int pos, int n, const char *indent) {
  StrBuf *sb = E->P->sb;
  const Kernel *k = E->k;
  const char *x0 = var_at(E->a, "x0", 0, pos);
  sb_printf(sb, "%s%s = x0_offset + (loop_x0 * X0BLOCK_SUB) + base_x0%s\n", indent, x0, place(E->a, pos, n));
  sb_printf(sb, "%s%s_mask = %s < min(X0BLOCK + x0_offset, x0_numel)\n", indent, x0, x0);
  if (k->nx > 1) {
    int64_t stride = 1;
    for (int i = k->nx - 1; i >= 0; i--) {
      int64_t size = k->axes[k->x[i]].size;
      const char *nm = var_at(E->a, E->xnames[i], 0, pos);
      if (i == k->nx - 1) sb_printf(sb, "%s%s = %s %% %lld\n", indent, nm, x0, (long long)size);
      else if (i == 0) sb_printf(sb, "%s%s = %s // %lld\n", indent, nm, x0, (long long)stride);
      else sb_printf(sb, "%s%s = (%s // %lld) %% %lld\n", indent, nm, x0, (long long)stride, (long long)size);
      stride *= size;
    }
  }
}

static void print_x_values(Npu *E, const bool *need, const char *indent) {
  for (int i = 0; i < E->k->nvals; i++)
    if (need[i] && E->k->vals[i].scope == SCOPE_X) print_val(E, i, indent);
}

static void print_post(Npu *E, const char *indent) {
  const Kernel *k = E->k;
  StrBuf *sb = E->P->sb;
  for (int i = 0; i < k->nvals; i++)
    if (E->need_post[i] && k->vals[i].scope == SCOPE_POST && op_info[k->vals[i].op].kind != OK_REDUCE) print_val(E, i, indent);
  const char **names = layout_names(E, 0);
  for (int s = 0; s < k->nstores; s++) {
    const KStore *st = &k->stores[s];
    if (st->indexed) {
      StrBuf ix = {0};
      print_index(E, &ix, st->index, names);
      tri_indexed_add(E->P, s, indent, E->ptr[st->buf], ix.data, "x0_mask");
      sb_free(&ix);
      continue;
    }
    sb_printf(sb, "%stl.store(%s + ", indent, E->ptr[st->buf]);
    print_index(E, sb, st->index, names);
    sb_puts(sb, ", ");
    tri_store_value(E->P, st->val, E->P->p->bufs[st->buf].dtype);
    sb_puts(sb, ", x0_mask)\n");
  }
}

static void group_loops(Npu *E, int g, const char *indent0) {
  const Kernel *k = E->k;
  const TGroup *G = &E->tk->g[g];
  StrBuf *sb = E->P->sb;
  TPrint *P = E->P;
  const char *prod = rprod(E, g);
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    sb_printf(sb, "%s_%s = tl.full([X0BLOCK_SUB, %s], %s, %s)\n", indent0, res_name(E, r), prod, tri_identity(&k->reds[r]),
              tri_rtype(k->reds[r].dtype));
    if (op_is_argred(k->reds[r].op))
      sb_printf(sb, "%s_%s_i = tl.full([X0BLOCK_SUB, %s], " TRI_ARG_NONE ", tl.int64)\n", indent0, res_name(E, r), prod);
  }
  char indent[256];
  snprintf(indent, sizeof indent, "%s", indent0);
  for (int i = 0; i < G->naxes; i++) {
    const char *nm = k->axes[G->axes[i]].name;
    bool split = G->split_axis == i && E->tk->nsplit > 1;
    sb_printf(sb, "%sfor loop_%s in range(loops_%s):\n", indent, nm, nm);
    strcat(indent, "    ");
    bool done[COIL_MAX_DIMS + 1] = {false};
    for (int L = 0; L <= E->nlayouts; L++) {
      if (L && E->layout_group[L] != g) continue;
      /* does a load in layout L read this axis? (the canonical variable is always there) */
      if (L) {
        bool used = false;
        for (int v = 0; v < k->nvals; v++)
          if (E->layout_of[v] == L && E->need_grp[v] && ix_mentions(k->vals[v].index, G->axes[i])) used = true;
        if (!used) continue;
      }
      int pos = pos_in(E, L, 1 + i);
      if (done[pos]) continue;
      done[pos] = true;
      const char *var = var_at(E->a, nm, 1 + i, pos);
      sb_printf(sb, "%s%s = %s(loop_%s * %sBLOCK_SUB) + base_%s%s\n", indent, var,
                split ? arena_printf(E->a, "rsplit * %s_CHUNK + ", upper_axis(E->a, nm)) : "", nm,
                upper_axis(E->a, nm), nm, place(E->a, pos, E->N));
      sb_printf(sb, "%s%s_mask = %s < %s_numel\n", indent, var, var, nm);
    }
  }
  for (int v = 0; v < k->nvals; v++)
    if (E->need_grp[v] && k->vals[v].scope == g) print_val(E, v, indent);
  StrBuf mask = {0};
  sb_puts(&mask, "x0_mask");
  for (int i = 0; i < G->naxes; i++) sb_printf(&mask, " & %s_mask", k->axes[G->axes[i]].name);
  for (int r = 0; r < k->nreds; r++) {
    const KRed *rd = &k->reds[r];
    if (rd->group != g) continue;
    const char *res = res_name(E, r);
    StrBuf val = {0};
    TPrint Q = *P;
    Q.sb = &val;
    tri_operand(&Q, rd->src, rd->dtype);
    sb_printf(sb, "%s%s_in = tl.reshape(tl.where(%s, %s, %s), [X0BLOCK_SUB, %s])\n", indent, res, mask.data, val.data,
              tri_identity(rd), prod);
    sb_free(&val);
    if (op_is_argred(rd->op)) /* the pair: each r point's position beside its value */
      sb_printf(sb, "%s%s_in_i = tl.reshape(tl.where(%s, %s, " TRI_ARG_NONE "), [X0BLOCK_SUB, %s])\n", indent, res, mask.data,
                tri_vname(P, rd->idx), prod);
    tri_accumulate(P, r, res, indent);
  }
  sb_free(&mask);
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].group == g) tri_finish(P, r, res_name(E, r), "tl.reshape(", arena_printf(E->a, ", %s)", xshape(E, E->N)), indent0);
}

static void main_kernel(Npu *E) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  StrBuf *sb = E->P->sb;
  bool split = tk->nsplit > 1;
  /* the values this function computes */
  bool *need = ARENA_ARRAY(E->a, bool, k->nvals + 1);
  for (int i = 0; i < k->nvals; i++) need[i] = E->need_grp[i] || (!split && E->need_post[i]);
  const TritonLaunch *L = &E->plan->launches[tk->launch];
  E->ptr = tri_launch_ptrs(E->a, E->plan, L);
  tri_signature(sb, L);
  if (split)
    sb_printf(sb, "    # part rsplit of a split reduction: %s_combine finishes it\n", k->name);
  sb_printf(sb, "    x0_offset = tl.program_id(0)%s * X0BLOCK\n", tk->wide ? ".to(tl.int64)" : "");
  if (split) sb_printf(sb, "    rsplit = tl.program_id(1)%s\n", tk->wide ? ".to(tl.int64)" : "");
  sb_printf(sb, "    base_x0 = tl.arange(0, X0BLOCK_SUB)%s\n", tk->wide ? ".to(tl.int64)" : "");
  sb_puts(sb, "    loops_x0 = (X0BLOCK + X0BLOCK_SUB - 1) // X0BLOCK_SUB\n");
  for (int g = 0; g < k->ngroups; g++) {
    const TGroup *G = &tk->g[g];
    for (int i = 0; i < G->naxes; i++) {
      const char *nm = k->axes[G->axes[i]].name, *up = upper_axis(E->a, nm);
      sb_printf(sb, "    base_%s = tl.arange(0, %sBLOCK_SUB)%s\n", nm, up, tk->wide ? ".to(tl.int64)" : "");
      if (split && G->split_axis == i)
        sb_printf(sb, "    loops_%s = (%s_CHUNK + %sBLOCK_SUB - 1) // %sBLOCK_SUB\n", nm, up, up, up);
      else sb_printf(sb, "    loops_%s = (%s_numel + %sBLOCK_SUB - 1) // %sBLOCK_SUB\n", nm, nm, up, up);
    }
  }
  sb_puts(sb, "    for loop_x0 in range(loops_x0):\n");
  x_vars(E, 0, E->N, "        ");
  bool xpos[COIL_MAX_DIMS + 1] = {true};
  for (int L = 1; L <= E->nlayouts; L++) {
    int p = pos_in(E, L, 0);
    if (E->layout_x[L] && !xpos[p]) {
      xpos[p] = true;
      x_vars(E, p, E->N, "        ");
    }
  }
  print_x_values(E, need, "        ");
  for (int g = 0; g < k->ngroups; g++) group_loops(E, g, "        ");
  if (split) {
    for (int r = 0; r < k->nreds; r++) {
      if (op_is_argred(k->reds[r].op)) { /* the pair's values and positions (tri_arg_finish's res_v, res_x) */
        const char *res = res_name(E, r), *xs = xshape(E, E->N);
        sb_printf(sb, "        tl.store(%s + (rsplit * x0_numel + x0), tl.reshape(%s_v, %s), x0_mask)\n", E->ptr[tk->ws[r]], res, xs);
        sb_printf(sb, "        tl.store(%s + (rsplit * x0_numel + x0), tl.reshape(%s_x, %s), x0_mask)\n", E->ptr[tk->ws[k->nreds + r]], res,
                  xs);
        continue;
      }
      sb_printf(sb, "        tl.store(%s + (rsplit * x0_numel + x0), %s, x0_mask)\n", E->ptr[tk->ws[r]], res_name(E, r));
    }
  } else {
    print_post(E, "        ");
  }
}

static void combine_kernel(Npu *E) {
  const Kernel *k = E->k;
  const TKernel *tk = E->tk;
  StrBuf *sb = E->P->sb;
  int saveN = E->N;
  E->N = 2;
  E->P->rank = 2;
  int save_layouts = E->nlayouts;
  E->nlayouts = 0;
  const TritonLaunch *L = &E->plan->launches[tk->claunch];
  E->ptr = tri_launch_ptrs(E->a, E->plan, L);
  tri_signature(sb, L);
  sb_printf(sb, "    # combine the RSPLIT parts of %s in order, then the epilogue\n", k->name);
  sb_printf(sb, "    x0_offset = tl.program_id(0)%s * X0BLOCK\n", tk->wide ? ".to(tl.int64)" : "");
  sb_printf(sb, "    base_x0 = tl.arange(0, X0BLOCK_SUB)%s\n", tk->wide ? ".to(tl.int64)" : "");
  sb_puts(sb, "    loops_x0 = (X0BLOCK + X0BLOCK_SUB - 1) // X0BLOCK_SUB\n");
  sb_puts(sb, "    base_s = tl.arange(0, S_SUB)\n");
  sb_puts(sb, "    loops_s = (RSPLIT + S_SUB - 1) // S_SUB\n");
  sb_puts(sb, "    for loop_x0 in range(loops_x0):\n");
  x_vars(E, 0, 2, "        ");
  print_x_values(E, E->need_post, "        ");
  for (int r = 0; r < k->nreds; r++) {
    sb_printf(sb, "        _%s = tl.full([X0BLOCK_SUB, S_SUB], %s, %s)\n", res_name(E, r), tri_identity(&k->reds[r]),
              tri_rtype(k->reds[r].dtype));
    if (op_is_argred(k->reds[r].op))
      sb_printf(sb, "        _%s_i = tl.full([X0BLOCK_SUB, S_SUB], " TRI_ARG_NONE ", tl.int64)\n", res_name(E, r));
  }
  sb_puts(sb, "        for loop_s in range(loops_s):\n");
  sb_puts(sb, "            s = (loop_s * S_SUB) + base_s[None, :]\n");
  sb_puts(sb, "            s_mask = s < RSPLIT\n");
  for (int r = 0; r < k->nreds; r++) {
    const char *res = res_name(E, r);
    const char *id = tri_identity(&k->reds[r]);
    sb_printf(sb, "            %s_in = tl.where(x0_mask & s_mask, tl.load(%s + (s * x0_numel + x0), x0_mask & s_mask, other=%s), %s)\n",
              res, E->ptr[tk->ws[r]], id, id);
    if (op_is_argred(k->reds[r].op))
      sb_printf(sb, "            %s_in_i = tl.where(x0_mask & s_mask, tl.load(%s + (s * x0_numel + x0), x0_mask & s_mask, other=0), "
                    TRI_ARG_NONE ")\n", res, E->ptr[tk->ws[k->nreds + r]]);
    tri_accumulate(E->P, r, res, "            ");
  }
  for (int r = 0; r < k->nreds; r++) tri_finish(E->P, r, res_name(E, r), "tl.reshape(", ", [X0BLOCK_SUB, 1])", "        ");
  print_post(E, "        ");
  E->N = saveN;
  E->P->rank = saveN;
  E->nlayouts = save_layouts;
}

void emit_triton_npu_kernel(TPrint *P, const TritonPlan *plan, int kernel) {
  const Kernel *k = P->k;
  Npu E = {.P = P, .plan = plan, .k = k, .tk = P->tk, .a = P->a};
  E.layout_of = ARENA_ARRAY(E.a, int, k->nvals + 1);
  int maxr = 0;
  for (int g = 0; g < k->ngroups; g++)
    if (k->groups[g].naxes > maxr) maxr = k->groups[g].naxes;
  E.N = 1 + maxr;
  P->rank = E.N;
  E.xnames = ARENA_ARRAY(E.a, const char *, k->nx + 1);
  for (int i = 0; i < k->nx; i++) E.xnames[i] = k->nx == 1 ? "x0" : arena_printf(E.a, "x0_d%d", i);
  E.need_grp = P->tk->need_grp;
  E.need_post = P->tk->need_post;
  P->names = layout_names(&E, 0);
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_INPUT && E.need_grp[i]) E.layout_of[i] = load_layout(&E, i);
  main_kernel(&E);
  if (P->tk->nsplit > 1) combine_kernel(&E);
}
