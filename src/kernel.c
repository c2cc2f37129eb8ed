/* Kernel IR: scopes, the verifier and the text dump.
 *
 * The verifier checks what every printer relies on: values in topological
 * order, one reduction group per value, reductions fed from their own
 * group, stores only of finished values, and every load and store inside
 * its buffer (from the index ranges), so a lowering bug is caught here and
 * not as a wrong answer. */
#include <string.h>

#include "coil.h"

IRange kernel_range(Arena *a, const Kernel *k) {
  int64_t *sz = ARENA_ARRAY(a, int64_t, k->naxes + 1);
  for (int i = 0; i < k->naxes; i++) sz[i] = k->axes[i].size;
  return (IRange){sz};
}

const char *const *kernel_axis_names(Arena *a, const Kernel *k) {
  const char **names = ARENA_ARRAY(a, const char *, k->naxes + 1);
  for (int i = 0; i < k->naxes; i++) names[i] = k->axes[i].name ? k->axes[i].name : arena_printf(a, "a%d", i);
  return names;
}

/* The reduction group an index reads (-1: none), or -2 if it mixes two. */
static int index_group(const Kernel *k, const IExpr *e) {
  int g = -1;
  for (int ax = 0; ax < k->naxes; ax++) {
    if (k->axes[ax].kind != AX_R || !ix_mentions(e, ax)) continue;
    if (g >= 0 && g != k->axes[ax].group) return -2;
    g = k->axes[ax].group;
  }
  return g;
}

/* The reduction group a load or an index value reads, its guard
 * included (-1: none; -2: two). */
static int access_group(const Kernel *k, const KVal *v) {
  int g = index_group(k, v->index);
  for (int j = 0; j < v->nguard && g != -2; j++) {
    int h = index_group(k, v->guard[j].e);
    if (h == -2 || (h >= 0 && g >= 0 && h != g)) g = -2;
    else if (h >= 0) g = h;
  }
  return g;
}

static bool reads_axes(Op op) { return op_is_load(op) || op == OP_IOTA; }

bool kval_mentions(const KVal *v, int ax) {
  if (!reads_axes(v->op)) return false;
  if (ix_mentions(v->index, ax)) return true;
  for (int j = 0; j < v->nguard; j++)
    if (ix_mentions(v->guard[j].e, ax)) return true;
  return false;
}

IExpr *kval_access_span(Arena *a, const Kernel *k, int i) {
  const KVal *v = &k->vals[i];
  IExpr *e = ix_const(a, 0); /* a sum of the axes, each once: terms never cancel */
  bool *varies = v->op == OP_GATHER ? ARENA_ARRAY(a, bool, k->nvals + 1) : NULL;
  for (int ax = 0; ax < k->naxes; ax++) {
    bool m = kval_mentions(v, ax);
    /* the index value varies along x axes, and the r axes of its own
     * group (a reduction's result counts as varying along every axis, but
     * after its loop no r axis exists) */
    if (!m && varies && (k->axes[ax].kind == AX_X || k->axes[ax].group == v->scope)) {
      kernel_varies_along(k, ax, varies);
      m = varies[v->arg[0]];
    }
    if (m) e = ix_add(a, e, ix_axis(a, ax));
  }
  return e;
}

IExpr **const *kernel_indices(Arena *a, Kernel *k, int *n) {
  int cap = k->nstores + 1;
  for (int i = 0; i < k->nvals; i++)
    if (reads_axes(k->vals[i].op)) cap += 1 + k->vals[i].nguard;
  IExpr ***list = ARENA_ARRAY(a, IExpr **, cap);
  int m = 0;
  for (int i = 0; i < k->nvals; i++) {
    KVal *v = &k->vals[i];
    if (!reads_axes(v->op)) continue;
    list[m++] = &v->index;
    for (int j = 0; j < v->nguard; j++) list[m++] = &v->guard[j].e;
  }
  for (int s = 0; s < k->nstores; s++) list[m++] = &k->stores[s].index;
  *n = m;
  return list;
}

void kernel_subst(Arena *a, Kernel *k, IExpr *const *sub) {
  IRange r = kernel_range(a, k);
  for (int i = 0; i < k->nvals; i++) {
    KVal *v = &k->vals[i];
    if (!reads_axes(v->op)) continue;
    v->index = ix_subst(a, r, v->index, sub);
    if (!v->nguard) continue;
    IRangeCond *g = ARENA_ARRAY(a, IRangeCond, v->nguard);
    for (int j = 0; j < v->nguard; j++) g[j] = (IRangeCond){ix_subst(a, r, v->guard[j].e, sub), v->guard[j].lo, v->guard[j].hi};
    v->guard = g;
  }
  for (int t = 0; t < k->nstores; t++) k->stores[t].index = ix_subst(a, r, k->stores[t].index, sub);
}

bool kval_same_access(Arena *a, IRange rv, const KVal *u, const KVal *v, IExpr *const *sub) {
  if (u->op != v->op || u->nguard != v->nguard) return false;
  if (op_is_load(u->op) && (u->buf != v->buf || (u->nguard && (memcmp(&u->fval, &v->fval, sizeof u->fval) || u->ival != v->ival))))
    return false;
  /* indexed loads: the same only as the same value (their index values are
   * other values, which this does not follow) */
  if (u->op == OP_GATHER && u != v) return false;
  if (!ix_equal(u->index, ix_subst(a, rv, v->index, sub))) return false;
  for (int j = 0; j < u->nguard; j++)
    if (u->guard[j].lo != v->guard[j].lo || u->guard[j].hi != v->guard[j].hi ||
        !ix_equal(u->guard[j].e, ix_subst(a, rv, v->guard[j].e, sub)))
      return false;
  return true;
}

void kval_print_guard(StrBuf *sb, const KVal *v, const char *const *names, GuardStyle style) {
  if (style == GUARD_C) sb_putc(sb, '(');
  for (int j = 0; j < v->nguard; j++) {
    const IRangeCond *c = &v->guard[j];
    if (style == GUARD_DUMP) { /* "lo <= e < hi" */
      sb_puts(sb, j ? " and " : "");
      if (c->lo != INT64_MIN) sb_printf(sb, "%lld <= ", (long long)c->lo);
      ix_print(sb, c->e, names, false);
      if (c->hi != INT64_MAX) sb_printf(sb, " < %lld", (long long)c->hi);
      continue;
    }
    for (int side = 0; side < 2; side++) {
      int64_t b = side ? c->hi : c->lo;
      if (b == (side ? INT64_MAX : INT64_MIN)) continue;
      const char *op = side ? "<" : ">=";
      if (style == GUARD_C) {
        sb_puts(sb, j || (side && c->lo != INT64_MIN) ? " && " : "");
        ix_print(sb, c->e, names, true);
        sb_printf(sb, " %s %lld", op, (long long)b);
      } else {
        sb_puts(sb, j || (side && c->lo != INT64_MIN) ? " & ((" : "((");
        ix_print(sb, c->e, names, false);
        sb_printf(sb, ") %s %lld)", op, (long long)b);
      }
    }
  }
  if (style == GUARD_C) sb_putc(sb, ')');
}

void kernel_set_scopes(Kernel *k) {
  for (int i = 0; i < k->nvals; i++) {
    KVal *v = &k->vals[i];
    if (reads_axes(v->op)) {
      int g = access_group(k, v);
      v->scope = g >= 0 ? g : SCOPE_X;
      if (v->narg && k->vals[v->arg[0]].scope != SCOPE_X) v->scope = k->vals[v->arg[0]].scope; /* an indexed load's index */
    } else if (op_info[v->op].kind == OK_REDUCE) {
      v->scope = SCOPE_POST;
    } else {
      v->scope = SCOPE_X;
      for (int j = 0; j < v->narg; j++) {
        int s = k->vals[v->arg[j]].scope;
        if (s == SCOPE_POST || v->scope == SCOPE_POST) v->scope = SCOPE_POST;
        else if (s >= 0) v->scope = s;
      }
    }
  }
}

#define VERR(...) return coil_err("kernel verifier: %s: " __VA_ARGS__)

static CoilErr *check_bounds(Arena *a, const Program *p, const Kernel *k, const IExpr *e, const IRangeCond *g, int ng, int buf,
                             const char *what) {
  int64_t lo, hi;
  ix_bounds_where(kernel_range(a, k), e, g, ng, &lo, &hi);
  if (lo < 0 || hi >= p->bufs[buf].numel)
    return coil_err("kernel verifier: %s: %s of %s reaches [%lld, %lld] outside [0, %lld)", k->name, what,
                      p->bufs[buf].name, (long long)lo, (long long)hi, (long long)p->bufs[buf].numel);
  return NULL;
}

/* An arg-reduction's positions (KRed.idx): an index value of its group
 * alone (no x axis: the same at every output point) whose range is
 * exactly [0, the group's points): each r point one place, and the place
 * the lowest one of ties is picked by. */
static CoilErr *verify_argred(Arena *a, const Kernel *k, int r) {
  const KRed *rd = &k->reds[r];
  if (rd->idx < 0 || rd->idx >= k->nvals || k->vals[rd->idx].op != OP_IOTA)
    return coil_err("kernel verifier: %s: arg-reduction %d has no index value for its positions", k->name, r);
  const KVal *v = &k->vals[rd->idx];
  if (v->scope != rd->group) return coil_err("kernel verifier: %s: arg-reduction %d's positions are not of its group", k->name, r);
  for (int i = 0; i < k->nx; i++)
    if (ix_mentions(v->index, k->x[i]))
      return coil_err("kernel verifier: %s: arg-reduction %d's positions depend on the output point", k->name, r);
  int64_t n = 1, lo, hi;
  const KGroup *G = &k->groups[rd->group];
  for (int i = 0; i < G->naxes; i++) n *= k->axes[G->axes[i]].size;
  ix_bounds(kernel_range(a, k), v->index, &lo, &hi);
  if (lo != 0 || hi != n - 1)
    return coil_err("kernel verifier: %s: arg-reduction %d's positions span [%lld, %lld], not [0, %lld)", k->name, r, (long long)lo,
                    (long long)hi, (long long)n);
  return NULL;
}

CoilErr *kernel_verify(const Program *p, const Kernel *k) {
  Arena a = {0};
  CoilErr *e = NULL;
  for (int i = 0; i < k->nvals && !e; i++) {
    const KVal *v = &k->vals[i];
    for (int j = 0; j < v->narg; j++)
      if (v->arg[j] < 0 || v->arg[j] >= i) { e = coil_err("kernel verifier: %s: v%d uses a later value", k->name, i); break; }
    if (e) break;
    if (v->nonpos && !dtype_is_float(v->dtype)) { e = coil_err("kernel verifier: %s: v%d is marked <= 0 but is not a float", k->name, i); break; }
    if (v->nguard && !op_is_load(v->op)) { e = coil_err("kernel verifier: %s: v%d has a guard but is no load", k->name, i); break; }
    for (int j = 0; j < v->nguard && !e; j++) {
      const IRangeCond *c = &v->guard[j];
      if (c->lo == INT64_MIN && c->hi == INT64_MAX) e = coil_err("kernel verifier: %s: v%d: guard %d bounds nothing", k->name, i, j);
      else if (c->lo != INT64_MIN && c->hi != INT64_MAX && c->lo >= c->hi)
        e = coil_err("kernel verifier: %s: v%d: guard %d is never true", k->name, i, j);
    }
    if (e) break;
    if (v->op == OP_INPUT) {
      if (access_group(k, v) == -2) { e = coil_err("kernel verifier: %s: v%d reads two reduction groups", k->name, i); break; }
      if (p->bufs[v->buf].dtype != v->dtype) { e = coil_err("kernel verifier: %s: v%d loads with the wrong dtype", k->name, i); break; }
      e = check_bounds(&a, p, k, v->index, v->guard, v->nguard, v->buf, arena_printf(&a, "load v%d", i));
    } else if (v->op == OP_GATHER) {
      /* the index value is checked in [0, gsize) when the kernel runs: the
       * load stays inside the buffer for any value in that range */
      const KVal *ix = &k->vals[v->arg[0]];
      if (v->narg != 1 || !(ix->dtype == DT_I64 || ix->dtype == DT_I32) || v->gsize < 1) {
        e = coil_err("kernel verifier: %s: v%d: an indexed load takes one integer index value and a size", k->name, i);
        break;
      }
      if (access_group(k, v) == -2) { e = coil_err("kernel verifier: %s: v%d reads two reduction groups", k->name, i); break; }
      int ag = access_group(k, v);
      if (ag >= 0 && (ix->scope == SCOPE_POST || (ix->scope >= 0 && ix->scope != ag))) {
        e = coil_err("kernel verifier: %s: v%d: an indexed load's index mixes scopes", k->name, i);
        break;
      }
      if (p->bufs[v->buf].dtype != v->dtype) { e = coil_err("kernel verifier: %s: v%d loads with the wrong dtype", k->name, i); break; }
      IExpr *last = ix_add(&a, v->index, ix_const(&a, (v->gsize - 1) * v->gstride));
      e = check_bounds(&a, p, k, v->index, v->guard, v->nguard, v->buf, arena_printf(&a, "indexed load v%d", i));
      if (!e) e = check_bounds(&a, p, k, last, v->guard, v->nguard, v->buf, arena_printf(&a, "indexed load v%d", i));
    } else if (v->op == OP_IOTA) {
      if (v->dtype != DT_I64 || v->narg) { e = coil_err("kernel verifier: %s: v%d: an index value is an int64 leaf", k->name, i); break; }
      if (index_group(k, v->index) == -2) { e = coil_err("kernel verifier: %s: v%d reads two reduction groups", k->name, i); break; }
    } else if (op_info[v->op].kind != OK_REDUCE) {
      int g = -1;
      bool post = false;
      for (int j = 0; j < v->narg; j++) {
        int s = k->vals[v->arg[j]].scope;
        if (s == SCOPE_POST) post = true;
        if (s >= 0) {
          if (g >= 0 && g != s) { e = coil_err("kernel verifier: %s: v%d mixes two reduction groups", k->name, i); break; }
          g = s;
        }
      }
      if (!e && post && g >= 0)
        e = coil_err("kernel verifier: %s: v%d uses a reduction result inside a reduction loop", k->name, i);
    }
  }
  for (int r = 0; r < k->nreds && !e; r++) {
    const KRed *rd = &k->reds[r];
    int s = k->vals[rd->src].scope;
    if (s == SCOPE_POST || (s >= 0 && s != rd->group))
      e = coil_err("kernel verifier: %s: reduction %d reads outside its group", k->name, r);
    else if (op_is_argred(rd->op)) e = verify_argred(&a, k, r);
  }
  for (int i = 0; i < k->nvals && !e; i++) {
    const KVal *v = &k->vals[i];
    if (op_info[v->op].kind != OK_REDUCE) continue;
    if (v->red < 0 || v->red >= k->nreds || k->reds[v->red].op != v->op) {
      e = coil_err("kernel verifier: %s: v%d is the result of no reduction of its op", k->name, i);
      break;
    }
    const KRed *rd = &k->reds[v->red];
    if (op_is_argred(v->op) ? v->dtype != (v->argval ? rd->dtype : DT_I64) : v->argval)
      e = coil_err("kernel verifier: %s: v%d: an arg-reduction gives its values' dtype or int64 indices, no other reduction either", k->name, i);
  }
  for (int s = 0; s < k->nstores && !e; s++) {
    const KStore *st = &k->stores[s];
    if (k->vals[st->val].scope >= 0) e = coil_err("kernel verifier: %s: store %d of an unfinished value", k->name, s);
    else if (index_group(k, st->index) != -1) e = coil_err("kernel verifier: %s: store %d indexed by an r axis", k->name, s);
    else e = check_bounds(&a, p, k, st->index, NULL, 0, st->buf, arena_printf(&a, "store %d", s));
    if (e || !st->indexed) continue;
    /* the index value is checked in [0, gsize) when the kernel runs: the
     * add stays inside the buffer for any value in that range */
    const KVal *ix = st->ival >= 0 && st->ival < k->nvals ? &k->vals[st->ival] : NULL;
    if (!ix || !(ix->dtype == DT_I64 || ix->dtype == DT_I32) || st->gsize < 1)
      e = coil_err("kernel verifier: %s: store %d: an indexed store takes one integer index value and a size", k->name, s);
    else if (ix->scope >= 0) e = coil_err("kernel verifier: %s: store %d's index is unfinished", k->name, s);
    else if (k->vals[st->val].dtype != p->bufs[st->buf].dtype)
      e = coil_err("kernel verifier: %s: store %d adds a value of another dtype than its buffer's", k->name, s);
    else
      e = check_bounds(&a, p, k, ix_add(&a, st->index, ix_const(&a, (st->gsize - 1) * st->gstride)), NULL, 0, st->buf,
                       arena_printf(&a, "indexed store %d", s));
  }
  for (int ax = 0; ax < k->naxes && !e; ax++)
    if (k->axes[ax].size < 1) e = coil_err("kernel verifier: %s: axis %d has size %lld", k->name, ax, (long long)k->axes[ax].size);
  arena_free(&a);
  return e;
}

static void dump_val(StrBuf *sb, const Program *p, const Kernel *k, const char *const *names, int i) {
  const KVal *v = &k->vals[i];
  sb_printf(sb, "    v%d = ", i);
  if (op_is_load(v->op)) {
    sb_printf(sb, "load %s[", p->bufs[v->buf].name);
    ix_print(sb, v->index, names, false);
    if (v->op == OP_GATHER)
      sb_printf(sb, " + %lld*(v%d%s, checked in [0, %lld))", (long long)v->gstride, v->arg[0], v->gwrap ? " wrapped" : "", (long long)v->gsize);
    sb_puts(sb, "]");
    if (v->nguard) {
      sb_puts(sb, " if ");
      kval_print_guard(sb, v, names, GUARD_DUMP);
      if (dtype_is_float(v->dtype)) sb_printf(sb, " else %.17g", v->fval);
      else sb_printf(sb, " else %lld", (long long)v->ival);
    }
  } else if (v->op == OP_CONST) {
    if (dtype_is_float(v->dtype)) sb_printf(sb, "const %.17g", v->fval);
    else sb_printf(sb, "const %lld", (long long)v->ival);
  } else if (v->op == OP_IOTA) {
    sb_puts(sb, "index ");
    ix_print(sb, v->index, names, false);
  } else if (op_info[v->op].kind == OK_REDUCE) {
    sb_printf(sb, "result acc%d%s", v->red, !op_is_argred(v->op) ? "" : v->argval ? ".value" : ".index");
  } else {
    const char *nm = op_info[v->op].name;
    for (const char *c = nm; *c; c++) sb_putc(sb, (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c));
    for (int j = 0; j < v->narg; j++) sb_printf(sb, " v%d", v->arg[j]);
  }
  sb_printf(sb, " : %s", dtype_name(v->dtype));
  if (v->cdtype != v->dtype && v->op != OP_CAST) sb_printf(sb, " in %s", dtype_name(v->cdtype));
  if (v->nonpos) sb_puts(sb, " (<= 0)");
  sb_puts(sb, "\n");
}

void kernel_dump(StrBuf *sb, const Program *p, const Kernel *k) {
  Arena a = {0};
  const char *const *names = kernel_axis_names(&a, k);
  sb_printf(sb, "kernel %s\n  x:", k->name);
  for (int i = 0; i < k->nx; i++) sb_printf(sb, " %s[%lld]", names[k->x[i]], (long long)k->axes[k->x[i]].size);
  if (!k->nx) sb_puts(sb, " (one point)");
  sb_puts(sb, "\n  x scope:\n");
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].scope == SCOPE_X) dump_val(sb, p, k, names, i);
  for (int g = 0; g < k->ngroups; g++) {
    sb_printf(sb, "  reduce group %d over", g);
    for (int i = 0; i < k->groups[g].naxes; i++) {
      int ax = k->groups[g].axes[i];
      sb_printf(sb, " %s[%lld]", names[ax], (long long)k->axes[ax].size);
    }
    sb_puts(sb, ":\n");
    for (int i = 0; i < k->nvals; i++)
      if (k->vals[i].scope == g) dump_val(sb, p, k, names, i);
    for (int r = 0; r < k->nreds; r++) {
      const KRed *rd = &k->reds[r];
      if (rd->group != g) continue;
      const char *nm = op_info[rd->op].name;
      sb_printf(sb, "    acc%d = ", r);
      for (const char *c = nm; *c; c++) sb_putc(sb, (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c));
      sb_printf(sb, " v%d", rd->src);
      if (op_is_argred(rd->op)) sb_printf(sb, " at v%d", rd->idx);
      sb_printf(sb, " : %s%s\n", dtype_name(rd->dtype), rd->nan_quiet ? " nan-quiet" : "");
    }
  }
  sb_puts(sb, "  after reductions:\n");
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].scope == SCOPE_POST) dump_val(sb, p, k, names, i);
  for (int s = 0; s < k->nstores; s++) {
    const KStore *st = &k->stores[s];
    sb_printf(sb, "    store %s[", p->bufs[st->buf].name);
    ix_print(sb, st->index, names, false);
    if (st->indexed)
      sb_printf(sb, " + %lld*(v%d%s, checked in [0, %lld))] += v%d\n", (long long)st->gstride, st->ival, st->gwrap ? " wrapped" : "",
                (long long)st->gsize, st->val);
    else
      sb_printf(sb, "] = v%d\n", st->val);
  }
  arena_free(&a);
}

void program_dump(StrBuf *sb, const Program *p) {
  for (int i = 0; i < p->nkernels; i++) kernel_dump(sb, p, &p->kernels[i]);
}

void kernel_mark_from(const Kernel *k, int root, bool *mark, const int *stop) {
  if (mark[root]) return;
  mark[root] = true;
  if (stop && stop[root] >= 0) return;
  const KVal *v = &k->vals[root];
  for (int j = 0; j < v->narg; j++) kernel_mark_from(k, v->arg[j], mark, stop);
}

void kernel_mark_needed(const Kernel *k, bool *mark, const int *stop) {
  memset(mark, 0, sizeof(bool) * (size_t)k->nvals);
  for (int r = 0; r < k->nreds; r++) {
    kernel_mark_from(k, k->reds[r].src, mark, stop);
    if (op_is_argred(k->reds[r].op)) kernel_mark_from(k, k->reds[r].idx, mark, stop);
  }
  for (int t = 0; t < k->nstores; t++) {
    kernel_mark_from(k, k->stores[t].val, mark, stop);
    if (k->stores[t].indexed) kernel_mark_from(k, k->stores[t].ival, mark, stop);
  }
}

bool kstore_collides_along(const KStore *st, int ax) { return st->indexed && !ix_mentions(st->index, ax); }

bool kernel_has_indexed_store(const Kernel *k) {
  for (int s = 0; s < k->nstores; s++)
    if (k->stores[s].indexed) return true;
  return false;
}

void kernel_mark_group(const Kernel *k, int g, bool *mark, const int *stop) {
  memset(mark, 0, sizeof(bool) * (size_t)k->nvals);
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    kernel_mark_from(k, k->reds[r].src, mark, stop);
    if (op_is_argred(k->reds[r].op)) kernel_mark_from(k, k->reds[r].idx, mark, stop);
  }
}

/* A cast from f32 to the buffer's 16-bit float type is stored by
 * converting its f32 operand once (rounding to bf16 and then converting to
 * bf16 storage would round twice, to the same value). */
int kernel_stored_value(const Program *p, const Kernel *k, const KStore *st) {
  const KVal *v = &k->vals[st->val];
  DType bt = p->bufs[st->buf].dtype;
  if (!st->indexed && v->op == OP_CAST && v->dtype == bt && (bt == DT_BF16 || bt == DT_F16) && k->vals[v->arg[0]].dtype == DT_F32) return v->arg[0];
  return st->val;
}

/* A reduction result counts as varying: it is spelled acc[xi]. */
void kernel_varies_along(const Kernel *k, int ax, bool *varies) {
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    bool d = false;
    if (reads_axes(v->op)) d = ax >= 0 && kval_mentions(v, ax);
    else if (op_info[v->op].kind == OK_REDUCE) d = true;
    for (int j = 0; j < v->narg; j++) d |= varies[v->arg[j]];
    varies[i] = d;
  }
}
