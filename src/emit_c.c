/* C printer: kernel IR + CPU schedule -> C11 with OpenMP.
 *
 * Loop structure (see sched.c for the choices):
 *   tasks = x tiles * NSPLIT, run by `omp parallel for`;
 *   per task: accumulators for the tile, then each reduction group's loop
 *   nest, then (NSPLIT == 1) the epilogue and stores, or partials that a
 *   second loop combines in split order before the epilogue.
 * Where values are placed follows the IR's scopes only: the body of group g
 * is what its reductions read; the epilogue is what the stores read.
 *
 * Requires: verified kernels with a CSched each. */
#include <math.h>
#include <string.h>

#include "coil.h"

typedef struct Emit {
  StrBuf *sb;
  const Program *p;
  const Kernel *k;
  const CSched *s;
  Arena *a;
  const char *const *names;
  bool *mark;
  bool *vdep; /* per value: varies along the vectorised axis */
} Emit;

static const char *ctype(DType t) { return dtype_c_compute(t); }

static const char *acc_type(const KRed *r) { return dtype_c_compute(r->dtype); }

static void print_const(StrBuf *sb, const KVal *v) {
  if (dtype_is_float(v->dtype)) {
    const char *cast = strcmp(ctype(v->dtype), "float") ? "" : "(float)";
    if (isnan(v->fval)) sb_printf(sb, "%sNAN", cast);
    else if (isinf(v->fval)) sb_printf(sb, "%s%sINFINITY", cast, v->fval < 0 ? "-" : "");
    else sb_printf(sb, "%s%.17g", cast, v->fval);
  } else if (v->dtype == DT_I64) {
    sb_printf(sb, "INT64_C(%lld)", (long long)v->ival);
  } else {
    sb_printf(sb, "%lld", (long long)v->ival);
  }
}

static const char *identity(const KRed *r) {
  bool fl = dtype_is_float(r->dtype);
  switch (r->op) {
  case OP_SUM: return "0";
  case OP_PROD: return "1";
  case OP_AMAX: return fl ? "-INFINITY" : r->dtype == DT_I64 ? "INT64_MIN" : r->dtype == DT_I32 ? "INT32_MIN" : "0";
  case OP_AMIN: return fl ? "INFINITY" : r->dtype == DT_I64 ? "INT64_MAX" : r->dtype == DT_I32 ? "INT32_MAX" : "1";
  default: coil_unreachable("not a reduction");
  }
}

/* acc = combine(acc, v) */
static void combine(StrBuf *sb, const KRed *r, const char *acc, const char *v) {
  switch (r->op) {
  case OP_SUM: sb_printf(sb, "%s = %s + %s;", acc, acc, v); break;
  case OP_PROD: sb_printf(sb, "%s = %s * %s;", acc, acc, v); break;
  case OP_AMAX: sb_printf(sb, "%s = c_max(%s, %s);", acc, acc, v); break;
  case OP_AMIN: sb_printf(sb, "%s = c_min(%s, %s);", acc, acc, v); break;
  default: coil_unreachable("not a reduction");
  }
}

/* The C expression of an operand converted to compute type `to`. */
static void operand(StrBuf *sb, const Kernel *k, int arg, DType to) {
  const char *from = ctype(k->vals[arg].dtype), *want = ctype(to);
  if (!strcmp(from, want)) sb_printf(sb, "v%d", arg);
  else sb_printf(sb, "((%s)v%d)", want, arg);
}

static void cast_expr(StrBuf *sb, const Kernel *k, const KVal *v) {
  DType from = k->vals[v->arg[0]].dtype, to = v->dtype;
  int a = v->arg[0];
  if (to == DT_BOOL) sb_printf(sb, "(v%d != 0)", a);
  else if (to == DT_BF16) sb_printf(sb, "c_rbf16((float)v%d)", a);
  else if (to == DT_F16) sb_printf(sb, "c_rf16((float)v%d)", a);
  else if (dtype_is_int(to) && dtype_is_float(from)) sb_printf(sb, "c_f2i%s(v%d)", to == DT_I32 ? "32" : "64", a);
  else sb_printf(sb, "((%s)v%d)", ctype(to), a);
}

static void value_expr(Emit *E, int i, const char *red_acc) {
  StrBuf *sb = E->sb;
  const KVal *v = &E->k->vals[i];
  switch (v->op) {
  case OP_INPUT: {
    const char *pre = "", *post = "";
    if (v->dtype == DT_BF16) pre = "coil_bf16_to_f32(", post = ")";
    else if (v->dtype == DT_F16) pre = "coil_f16_to_f32(", post = ")";
    else if (v->dtype == DT_BOOL) pre = "(int)(", post = ")";
    sb_printf(sb, "%sb%d[", pre, v->buf);
    ix_print(sb, v->index, E->names, true);
    sb_printf(sb, "]%s", post);
    return;
  }
  case OP_CONST: print_const(sb, v); return;
  case OP_CAST: cast_expr(sb, E->k, v); return;
  default: break;
  }
  if (op_info[v->op].kind == OK_REDUCE) {
    sb_printf(sb, red_acc, v->red);
    return;
  }
  const char *round = v->dtype == DT_BF16 ? "c_rbf16" : v->dtype == DT_F16 ? "c_rf16" : NULL;
  bool wrap_int = v->dtype == DT_I32 && op_info[v->op].kind != OK_COMPARE;
  /* bool arithmetic saturates: True + True is True */
  bool wrap_bool = v->dtype == DT_BOOL && op_info[v->op].kind != OK_COMPARE;
  if (round) sb_printf(sb, "%s(", round);
  if (wrap_int) sb_puts(sb, "(int32_t)(");
  if (wrap_bool) sb_puts(sb, "(0 != ");
  for (const char *t = op_info[v->op].c; *t; t++) {
    if (*t == '%' && t[1] >= '0' && t[1] <= '2') {
      int j = t[1] - '0';
      DType to = v->op == OP_WHERE && j == 0 ? DT_BOOL : v->cdtype;
      operand(sb, E->k, v->arg[j], to);
      t++;
    } else {
      sb_putc(sb, *t);
    }
  }
  if (wrap_bool) sb_puts(sb, ")");
  if (wrap_int) sb_puts(sb, ")");
  if (round) sb_puts(sb, ")");
}

/* Mark every value reachable from root. */
static void mark_from(Emit *E, int root) {
  if (E->mark[root]) return;
  E->mark[root] = true;
  const KVal *v = &E->k->vals[root];
  for (int j = 0; j < v->narg; j++) mark_from(E, v->arg[j]);
}

/* vdep[i]: value i changes along axis ax (the loop that is vectorised). */
static void set_vdep(Emit *E, int ax) {
  const Kernel *k = E->k;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    bool d = false;
    if (v->op == OP_INPUT) d = ax >= 0 && ix_mentions(v->index, ax);
    for (int j = 0; j < v->narg; j++) d |= E->vdep[v->arg[j]];
    E->vdep[i] = d;
  }
}

enum { ALL, INVARIANT, VARYING };

/* Emit the marked values in order; which: all of them, or only those that
 * do not (INVARIANT) or do (VARYING) change along the vectorised axis.
 * red_acc: how a reduction result is spelled here (a printf format taking
 * the reduction index). */
static void emit_marked(Emit *E, const char *indent, const char *red_acc, int which) {
  for (int i = 0; i < E->k->nvals; i++) {
    if (!E->mark[i] || (which == INVARIANT && E->vdep[i]) || (which == VARYING && !E->vdep[i])) continue;
    sb_printf(E->sb, "%sconst %s v%d = ", indent, ctype(E->k->vals[i].dtype), i);
    value_expr(E, i, red_acc);
    sb_puts(E->sb, ";\n");
  }
}

static void store_conv(StrBuf *sb, DType t, int val) {
  if (t == DT_BF16) sb_printf(sb, "coil_f32_to_bf16(v%d)", val);
  else if (t == DT_F16) sb_printf(sb, "coil_f32_to_f16(v%d)", val);
  else if (t == DT_BOOL) sb_printf(sb, "(uint8_t)(v%d != 0)", val);
  else sb_printf(sb, "v%d", val);
}

static void emit_epilogue(Emit *E, const char *indent, const char *red_acc) {
  memset(E->mark, 0, sizeof(bool) * (size_t)E->k->nvals);
  for (int s = 0; s < E->k->nstores; s++) mark_from(E, E->k->stores[s].val);
  emit_marked(E, indent, red_acc, ALL);
  for (int s = 0; s < E->k->nstores; s++) {
    const KStore *st = &E->k->stores[s];
    sb_printf(E->sb, "%sb%d[", indent, st->buf);
    ix_print(E->sb, st->index, E->names, true);
    sb_puts(E->sb, "] = ");
    store_conv(E->sb, E->p->bufs[st->buf].dtype, st->val);
    sb_puts(E->sb, ";\n");
  }
}

static int64_t x_points(const Kernel *k) {
  int64_t n = 1;
  for (int i = 0; i < k->nx; i++) n *= k->axes[k->x[i]].size;
  return n;
}

/* Counters: a mixed-radix number, digit 0 outermost.  Loops walk a flat
 * range of points; the digits are decoded once at the start of the range
 * (division and modulo by constants) and then stepped with a carry, so no
 * inner loop divides. */
typedef struct Digits {
  const char *name[COIL_MAX_DIMS + 2];
  int64_t size[COIL_MAX_DIMS + 2];
  int n;
} Digits;

static void digits_declare(Emit *E, const char *ind, const Digits *d) {
  if (!d->n) return;
  sb_printf(E->sb, "%sint64_t", ind);
  for (int i = 0; i < d->n; i++) sb_printf(E->sb, "%s %s", i ? "," : "", d->name[i]);
  sb_puts(E->sb, ";\n");
}

static void digits_decode(Emit *E, const char *ind, const char *flat, const Digits *d) {
  if (!d->n) return;
  if (d->n == 1) {
    sb_printf(E->sb, "%s%s = %s;\n", ind, d->name[0], flat);
    return;
  }
  sb_printf(E->sb, "%s{\n%s  int64_t q_ = %s;\n", ind, ind, flat);
  for (int i = d->n - 1; i > 0; i--)
    sb_printf(E->sb, "%s  %s = q_ %% %lld; q_ /= %lld;\n", ind, d->name[i], (long long)d->size[i], (long long)d->size[i]);
  sb_printf(E->sb, "%s  %s = q_;\n%s}\n", ind, d->name[0], ind);
}

/* Step to the next point: bump the last digit, carry outwards. */
static void digits_step(Emit *E, const char *ind, const Digits *d) {
  if (!d->n) return;
  sb_puts(E->sb, ind);
  for (int i = d->n - 1; i > 0; i--)
    sb_printf(E->sb, "if (++%s == %lld) { %s = 0; ", d->name[i], (long long)d->size[i], d->name[i]);
  sb_printf(E->sb, "++%s;", d->name[0]);
  for (int i = d->n - 1; i > 0; i--) sb_puts(E->sb, " }");
  sb_puts(E->sb, "\n");
}

static int64_t group_size(const Kernel *k, int g, int skip_inner) {
  int64_t n = 1;
  for (int i = 0; i < k->groups[g].naxes - skip_inner; i++) n *= k->axes[k->groups[g].axes[i]].size;
  return n;
}

static void mark_group(Emit *E, int g) {
  memset(E->mark, 0, sizeof(bool) * (size_t)E->k->nvals);
  for (int r = 0; r < E->k->nreds; r++)
    if (E->k->reds[r].group == g) mark_from(E, E->k->reds[r].src);
}

static void combine_into(Emit *E, const char *ind, int g, const char *accfmt, const char *valfmt) {
  const Kernel *k = E->k;
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    char acc[48], val[48];
    snprintf(acc, sizeof acc, accfmt, r);
    snprintf(val, sizeof val, valfmt, r, k->reds[r].src);
    sb_puts(E->sb, ind);
    combine(E->sb, &k->reds[r], acc, val);
    sb_puts(E->sb, "\n");
  }
}

static void declare_accs(Emit *E, const char *ind, int g, const char *what, const char *n) {
  const Kernel *k = E->k;
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    sb_printf(E->sb, "%s%s %s%d[%s];\n%sfor (int64_t i = 0; i < %s; i++) %s%d[i] = %s;\n", ind, acc_type(&k->reds[r]), what, r, n, ind,
              n, what, r, identity(&k->reds[r]));
  }
}

/* The split part's range of a flat space of n points. */
static void split_range(Emit *E, const char *ind, const char *lo, const char *hi, int64_t n) {
  int64_t ns = E->s->nsplit;
  if (ns == 1) sb_printf(E->sb, "%sconst int64_t %s = 0, %s = INT64_C(%lld);\n", ind, lo, hi, (long long)n);
  else
    sb_printf(E->sb, "%sconst int64_t %s = split * INT64_C(%lld) / %lld, %s = (split + 1) * INT64_C(%lld) / %lld;\n", ind, lo,
              (long long)n, (long long)ns, hi, (long long)n, (long long)ns);
}

/* Group g inside a VEC_X tile: the r points in blocks of RBLOCK; each r
 * point updates the tile's XT block accumulators in one vector loop, with
 * what does not depend on the x lane computed once per r point. */
static void emit_group_x(Emit *E, int g) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const KGroup *G = &k->groups[g];
  int64_t rb = E->s->rblock;
  Digits d = {.n = G->naxes};
  for (int i = 0; i < G->naxes; i++) d.name[i] = E->names[G->axes[i]], d.size[i] = k->axes[G->axes[i]].size;
  sb_printf(sb, "      { /* group %d */\n", g);
  split_range(E, "        ", "lo", "hi", group_size(k, g, 0));
  digits_declare(E, "        ", &d);
  sb_printf(sb, "        for (int64_t rb = lo; rb < hi; rb += %lld) {\n", (long long)rb);
  sb_printf(sb, "          const int64_t re = rb + %lld < hi ? rb + %lld : hi;\n", (long long)rb, (long long)rb);
  digits_decode(E, "          ", "rb", &d);
  declare_accs(E, "          ", g, "blk", "XT");
  sb_puts(sb, "          for (int64_t rr = rb; rr < re; rr++) {\n");
  mark_group(E, g);
  emit_marked(E, "            ", "#error reduction result inside a loop %d", INVARIANT);
  sb_puts(sb, "            for (int64_t xi = 0; xi < xn; xi++) {\n");
  if (k->nx) sb_printf(sb, "              const int64_t %s = xb + xi;\n", E->names[k->x[k->nx - 1]]);
  emit_marked(E, "              ", "#error reduction result inside a loop %d", VARYING);
  combine_into(E, "              ", g, "blk%d[xi]", "v%2$d");
  sb_puts(sb, "            }\n");
  digits_step(E, "            ", &d);
  sb_puts(sb, "          }\n");
  combine_into(E, "          for (int64_t xi = 0; xi < xn; xi++) ", g, "acc%d[xi]", "blk%d[xi]");
  sb_puts(sb, "        }\n      }\n");
}

/* Group g for one x point (VEC_R): units of (outer r point, chunk of the
 * unit-stride inner axis); each chunk is summed in LANES independent
 * lanes, folded pairwise, and added to the accumulator. */
static void emit_group_r(Emit *E, int g) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const KGroup *G = &k->groups[g];
  int inner = G->axes[G->naxes - 1];
  int64_t n = k->axes[inner].size, chunk = E->s->chunk < n ? E->s->chunk : n;
  int64_t nc = (n + chunk - 1) / chunk;
  int L = 1;
  while (L * 2 <= E->s->lanes && L * 2 <= n) L *= 2;
  Digits d = {.n = 0};
  for (int i = 0; i + 1 < G->naxes; i++) d.name[d.n] = E->names[G->axes[i]], d.size[d.n++] = k->axes[G->axes[i]].size;
  if (nc > 1) d.name[d.n] = "rc_", d.size[d.n++] = nc;
  set_vdep(E, inner);
  sb_printf(sb, "      { /* group %d */\n", g);
  split_range(E, "        ", "lo", "hi", group_size(k, g, 1) * nc);
  digits_declare(E, "        ", &d);
  digits_decode(E, "        ", "lo", &d);
  sb_puts(sb, "        for (int64_t u = lo; u < hi; u++) {\n");
  if (nc > 1)
    sb_printf(sb, "          const int64_t cb = rc_ * %lld, ce = cb + %lld < %lld ? cb + %lld : %lld;\n", (long long)chunk,
              (long long)chunk, (long long)n, (long long)chunk, (long long)n);
  else
    sb_printf(sb, "          const int64_t cb = 0, ce = %lld;\n", (long long)n);
  mark_group(E, g);
  emit_marked(E, "          ", "#error reduction result inside a loop %d", INVARIANT);
  char lanes[16];
  snprintf(lanes, sizeof lanes, "%d", L);
  declare_accs(E, "          ", g, "lane", lanes);
  sb_puts(sb, "          int64_t ri = cb;\n");
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0) {
      sb_printf(sb, "          for (; ri + %d <= ce; ri += %d) {\n            for (int l = 0; l < %d; l++) {\n", L, L, L);
      sb_printf(sb, "              const int64_t %s = ri + l;\n", E->names[inner]);
    } else {
      if (n % L == 0) break; /* no tail */
      sb_puts(sb, "          for (; ri < ce; ri++) {\n            {\n              const int l = 0;\n");
      sb_printf(sb, "              const int64_t %s = ri;\n", E->names[inner]);
    }
    emit_marked(E, "              ", "#error reduction result inside a loop %d", VARYING);
    combine_into(E, "              ", g, "lane%d[l]", "v%2$d");
    sb_puts(sb, "            }\n          }\n");
  }
  if (L > 1) {
    sb_printf(sb, "          for (int s = %d; s > 0; s /= 2)\n            for (int l = 0; l < s; l++) {\n", L / 2);
    combine_into(E, "              ", g, "lane%d[l]", "lane%d[l + s]");
    sb_puts(sb, "            }\n");
  }
  combine_into(E, "          ", g, "acc%d[0]", "lane%d[0]");
  digits_step(E, "          ", &d);
  sb_puts(sb, "        }\n      }\n");
}

/* Tasks: NT ranges of x tiles times NSPLIT parts of every reduction. */
static void emit_kernel(Emit *E) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const CSched *s = E->s;
  int64_t nxt = x_points(k);
  sb_printf(sb, "\nvoid %s(void *const *bufs) {\n", k->name);
  bool *used = ARENA_ARRAY(E->a, bool, E->p->nbufs);
  bool *stored = ARENA_ARRAY(E->a, bool, E->p->nbufs);
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].op == OP_INPUT) used[k->vals[i].buf] = true;
  for (int i = 0; i < k->nstores; i++) stored[k->stores[i].buf] = true;
  for (int b = 0; b < E->p->nbufs; b++)
    if (used[b] || stored[b])
      sb_printf(sb, "  %s%s *restrict b%d = (%s%s *)bufs[%d]; /* %s */\n", stored[b] ? "" : "const ", dtype_c_storage(E->p->bufs[b].dtype),
                b, stored[b] ? "" : "const ", dtype_c_storage(E->p->bufs[b].dtype), b, E->p->bufs[b].name);
  int64_t ns = s->nsplit;
  if (ns > 1) {
    for (int r = 0; r < k->nreds; r++)
      sb_printf(sb, "  %s *part%d = malloc(sizeof(%s) * %lld);\n  if (!part%d) abort();\n", acc_type(&k->reds[r]), r,
                acc_type(&k->reds[r]), (long long)(ns * nxt), r);
  }
  bool vx = s->mode == VEC_X;
  int xin = vx && k->nx ? k->x[k->nx - 1] : -1;
  int64_t xt = vx ? s->xtile : 1;
  int64_t inner = xin >= 0 ? k->axes[xin].size : 1;
  int64_t ntx = (inner + xt - 1) / xt;
  /* The tile digits: the outer x axes and the tile of the inner one
   * (VEC_X), or every x axis (VEC_R). */
  Digits td = {.n = 0};
  for (int i = 0; i < k->nx - (vx ? 1 : 0); i++) td.name[td.n] = E->names[k->x[i]], td.size[td.n++] = k->axes[k->x[i]].size;
  if (vx && ntx > 1) td.name[td.n] = "tx_", td.size[td.n++] = ntx;
  int64_t tiles = 1;
  for (int i = 0; i < td.n; i++) tiles *= td.size[i];
  int64_t nt = ns > 1 || tiles < 256 ? tiles : 256;
  sb_printf(sb, "  enum { XT = %lld };\n", (long long)xt);
  sb_printf(sb, "  #pragma omp parallel for schedule(static)\n  for (int64_t task = 0; task < INT64_C(%lld); task++) {\n",
            (long long)(nt * ns));
  if (ns > 1) sb_printf(sb, "    const int64_t xt = task / %lld, split = task %% %lld;\n", (long long)ns, (long long)ns);
  else sb_puts(sb, "    const int64_t xt = task;\n");
  if (nt == tiles) sb_puts(sb, "    const int64_t t0 = xt, t1 = xt + 1;\n");
  else
    sb_printf(sb, "    const int64_t t0 = xt * INT64_C(%lld) / %lld, t1 = (xt + 1) * INT64_C(%lld) / %lld;\n", (long long)tiles,
              (long long)nt, (long long)tiles, (long long)nt);
  digits_declare(E, "    ", &td);
  digits_decode(E, "    ", "t0", &td);
  sb_puts(sb, "    for (int64_t tile = t0; tile < t1; tile++) {\n");
  if (vx && ntx > 1) {
    sb_puts(sb, "      const int64_t xb = tx_ * XT;\n");
    sb_printf(sb, "      const int64_t xn = %lld - xb < XT ? %lld - xb : XT;\n", (long long)inner, (long long)inner);
  } else {
    sb_printf(sb, "      const int64_t xb = 0, xn = %lld;\n", (long long)inner);
  }
  sb_puts(sb, "      (void)xb;\n");
  for (int r = 0; r < k->nreds; r++)
    sb_printf(sb, "      %s acc%d[XT];\n      for (int64_t i = 0; i < XT; i++) acc%d[i] = %s;\n", acc_type(&k->reds[r]), r, r,
              identity(&k->reds[r]));
  set_vdep(E, xin);
  for (int g = 0; g < k->ngroups; g++) {
    if (vx) emit_group_x(E, g);
    else emit_group_r(E, g);
  }
  /* Finish the tile: epilogue, or partials when split. */
  sb_puts(sb, "      for (int64_t xi = 0; xi < xn; xi++) {\n");
  if (vx && k->nx) sb_printf(sb, "        const int64_t %s = xb + xi;\n", E->names[k->x[k->nx - 1]]);
  set_vdep(E, -1);
  if (ns == 1) {
    emit_epilogue(E, "        ", "acc%d[xi]");
  } else {
    sb_puts(sb, "        const int64_t xf = 0");
    int64_t stride = 1;
    for (int i = k->nx - 1; i >= 0; i--) {
      sb_printf(sb, " + %lld * %s", (long long)stride, E->names[k->x[i]]);
      stride *= k->axes[k->x[i]].size;
    }
    sb_puts(sb, ";\n");
    for (int r = 0; r < k->nreds; r++) sb_printf(sb, "        part%d[split * INT64_C(%lld) + xf] = acc%d[xi];\n", r, (long long)nxt, r);
  }
  sb_puts(sb, "      }\n");
  digits_step(E, "      ", &td);
  sb_puts(sb, "    }\n  }\n");
  if (ns > 1) {
    /* Combine the parts in split order: the same sums whatever the number
     * of threads. */
    Digits xd = {.n = 0};
    for (int i = 0; i < k->nx; i++) xd.name[xd.n] = E->names[k->x[i]], xd.size[xd.n++] = k->axes[k->x[i]].size;
    sb_printf(sb, "  #pragma omp parallel for schedule(static)\n  for (int64_t xf = 0; xf < INT64_C(%lld); xf++) {\n", (long long)nxt);
    digits_declare(E, "    ", &xd);
    digits_decode(E, "    ", "xf", &xd);
    for (int r = 0; r < k->nreds; r++) {
      sb_printf(sb, "    %s acc%d = %s;\n    for (int64_t s = 0; s < %lld; s++) ", acc_type(&k->reds[r]), r, identity(&k->reds[r]),
                (long long)ns);
      char acc[32], val[64];
      snprintf(acc, sizeof acc, "acc%d", r);
      snprintf(val, sizeof val, "part%d[s * INT64_C(%lld) + xf]", r, (long long)nxt);
      combine(sb, &k->reds[r], acc, val);
      sb_puts(sb, "\n");
    }
    emit_epilogue(E, "    ", "acc%d");
    sb_puts(sb, "  }\n");
    for (int r = 0; r < k->nreds; r++) sb_printf(sb, "  free(part%d);\n", r);
  }
  sb_puts(sb, "}\n");
}

static const char prelude[] =
    "/* Generated by coil. */\n"
    "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
    "static inline float coil_bf16_to_f32(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }\n"
    "static inline uint16_t coil_f32_to_bf16(float f) {\n"
    "  uint32_t u; memcpy(&u, &f, 4);\n"
    "  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);\n"
    "  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n"
    "static inline float coil_f16_to_f32(uint16_t h) {\n"
    "  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u; float f;\n"
    "  if (e == 0) { f = (float)m * 0x1p-24f; return sign ? -f : f; }\n"
    "  u = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);\n"
    "  memcpy(&f, &u, 4); return f;\n}\n"
    "static inline uint16_t coil_f32_to_f16(float f) {\n"
    "  uint32_t u; memcpy(&u, &f, 4);\n"
    "  uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;\n"
    "  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);\n"
    "  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);\n"
    "  if (a < 0x38800000u) { float x; memcpy(&x, &a, 4); x += 0.5f; uint32_t v; memcpy(&v, &x, 4); return (uint16_t)(sign | (v - 0x3f000000u)); }\n"
    "  a += 0xc8000fffu + ((a >> 13) & 1u);\n"
    "  return (uint16_t)(sign | (a >> 13));\n}\n"
    "#define c_rbf16(x) coil_bf16_to_f32(coil_f32_to_bf16(x))\n"
    "#define c_rf16(x) coil_f16_to_f32(coil_f32_to_f16(x))\n"
    "/* NaN-propagating max/min, as torch.maximum and amax. */\n"
    "#define c_max(a, b) ((a) != (a) || (a) > (b) ? (a) : (b) != (b) ? (b) : (b))\n"
    "#define c_min(a, b) ((a) != (a) || (a) < (b) ? (a) : (b) != (b) ? (b) : (b))\n"
    "static inline float c_rsqrtf(float x) { return 1.0f / sqrtf(x); }\n"
    "static inline double c_rsqrtd(double x) { return 1.0 / sqrt(x); }\n"
    "static inline float c_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }\n"
    "static inline double c_sigmoidd(double x) { return 1.0 / (1.0 + exp(-x)); }\n"
    "static inline int64_t c_ipow(int64_t b, int64_t e) { int64_t r = 1; if (e < 0) return b == 1 ? 1 : b == -1 ? (e & 1 ? -1 : 1) : 0;\n"
    "  while (e) { if (e & 1) r = (int64_t)((uint64_t)r * (uint64_t)b); b = (int64_t)((uint64_t)b * (uint64_t)b); e >>= 1; } return r; }\n"
    "static inline int32_t c_f2i32(double x) { return x != x || x >= 2147483648.0 || x < -2147483648.0 ? INT32_MIN : (int32_t)x; }\n"
    "static inline int64_t c_f2i64(double x) { return x != x || x >= 9223372036854775808.0 || x < -9223372036854775808.0 ? INT64_MIN : (int64_t)x; }\n"
    "static inline int64_t c_iabs(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }\n"
    "#define c_exp(x) _Generic((x), float: expf, default: exp)(x)\n"
    "#define c_log(x) _Generic((x), float: logf, default: log)(x)\n"
    "#define c_sqrt(x) _Generic((x), float: sqrtf, default: sqrt)(x)\n"
    "#define c_tanh(x) _Generic((x), float: tanhf, default: tanh)(x)\n"
    "#define c_rsqrt(x) _Generic((x), float: c_rsqrtf, default: c_rsqrtd)(x)\n"
    "#define c_sigmoid(x) _Generic((x), float: c_sigmoidf, default: c_sigmoidd)(x)\n"
    "#define c_abs(x) _Generic((x), float: fabsf, double: fabs, default: c_iabs)(x)\n"
    "#define c_pow(a, b) _Generic((a), float: powf, double: pow, default: c_ipow)((a), (b))\n";

void emit_c_prelude(StrBuf *sb) { sb_puts(sb, prelude); }

void emit_c(StrBuf *sb, const Program *p, const CSched *sched) {
  emit_c_prelude(sb);
  emit_c_kernels(sb, p, sched);
}

void emit_c_kernels(StrBuf *sb, const Program *p, const CSched *sched) {
  for (int i = 0; i < p->nkernels; i++) {
    Arena a = {0};
    const Kernel *k = &p->kernels[i];
    Emit E = {.sb = sb, .p = p, .k = k, .s = &sched[i], .a = &a};
    E.names = kernel_axis_names(&a, k);
    E.mark = ARENA_ARRAY(&a, bool, k->nvals + 1);
    E.vdep = ARENA_ARRAY(&a, bool, k->nvals + 1);
    emit_kernel(&E);
    arena_free(&a);
  }
}
