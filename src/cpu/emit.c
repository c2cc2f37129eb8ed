/* C printer: kernel IR + CPU schedule -> C11 with OpenMP.
 *
 * Loop structure (see sched.c for the choices):
 *   tasks = ranges of x tiles * NSPLIT, run by `omp parallel for`; a task
 *   decodes its first tile once and steps the tile digits with a carry;
 *   per tile: accumulators, then each reduction group's loops, then
 *   (NSPLIT == 1) the epilogue and stores, or partials that a second loop
 *   combines in split order before the epilogue.
 *   VEC_X group: the r points in blocks (flushed into the accumulators);
 *     within a block, runs of the innermost r axis are plain counted loops
 *     (the outer r digits carry between runs: no division in any inner
 *     loop); per r point, what does not vary along x is computed once, then
 *     one vector loop over the tile's x lanes.
 *   VEC_R group: units of (outer r point, chunk of the unit-stride axis);
 *     a chunk is summed in independent lanes, folded pairwise.
 *   Chains (planned in chain.c): consecutive row kernels run a row at a
 *     time in one function.
 * Where values are placed follows the IR's scopes only: the body of group g
 * is what its reductions read; the epilogue is what the stores read.
 * Summation order depends only on the kernel and its schedule, never on
 * the number of threads.
 *
 * Every choice is the schedule's (sched.c, chain.c); this file only prints.
 *
 * Requires: verified kernels with a CSched each, and a verified chain plan. */
#include <math.h>
#include <string.h>

#include "cpu/cpu.h"

typedef struct Emit {
  StrBuf *sb;
  const Program *p;
  const Kernel *k;
  const CSched *s;
  Arena *a;
  const char *const *names;
  bool *mark;
  bool *vdep; /* per value: varies along the vectorised axis */
  /* Chains: per value, the row buffer it is saved to once computed (save)
   * or read from instead of being computed (reuse); -1 for neither. */
  int *save, *reuse;
  const char *row_axis; /* the axis that indexes a row buffer here */
  bool streamed;        /* a store went through coil_stream (fence after) */
  const bool *stream;   /* chains: per store, whether it bypasses the caches */
  /* Chains: when this kernel's vector loop prefetches the next row, the
   * chain's plan and the first kernel's axis names (the row is xnext_). */
  const RowPrefetch *pf;
  const char **pf_names;
  /* A column chain's prefetch: the next tile's first column (its chunk's
   * columns are prefetched from there) and its length. */
  const char *pf_col, *pf_len;
  /* In a chain that prefetches its next row: no load prefetches ahead. */
  bool no_stream_prefetch;
  /* While a vector loop with staged f16 loads (sched.c) is printed: per
   * value, whether it is read from its block cv<i>_, and the position in
   * the block ("l", "xi - xc"). */
  const bool *staged;
  const char *stage_pos;
  /* While the fast pass of a group's vector loop is printed (CSched.
   * fast_math): exp, log and sigmoid in their fast forms.  Inside the vector
   * loop (fast_lane: its lane index) each operand's key goes into the
   * value's lanes offk<i>, outside it the check goes into off_ directly. */
  bool fast;
  const char *fast_lane;
} Emit;

/* `&b<buf>[index]`, the index's axes named by names. */
static void print_address(StrBuf *sb, int buf, const IExpr *index, const char *const *names) {
  sb_printf(sb, "&b%d[", buf);
  ix_print(sb, index, names, true);
  sb_puts(sb, "]");
}

/* Prefetch the next row's lines for count elements (an expression) from
 * position pos of the row (one prefetch per 64-byte line). */
static void emit_row_prefetch(Emit *E, const char *ind, const char *pos, const char *count) {
  const RowPrefetch *pf = E->pf;
  for (int i = 0; i < pf->n; i++) {
    E->pf_names[pf->inner] = arena_printf(E->a, "(%s + o_)", pos);
    sb_printf(E->sb, "%sfor (int64_t o_ = 0; o_ < %s; o_ += %d) c_prefetch(", ind, count, 64 / pf->esize[i]);
    print_address(E->sb, pf->buf[i], pf->index[i], E->pf_names);
    sb_puts(E->sb, ");\n");
  }
}

static bool prefetches_ahead(const Emit *E, int g) {
  for (int i = 0; i < E->k->nvals; i++)
    if (E->k->vals[i].scope == g && E->s->stream_ahead[i] && !E->no_stream_prefetch) return true;
  return false;
}

/* Prefetch a line of each load of group g that streams (CSched.
 * stream_ahead points of stream_axis ahead), inner r point pos:
 * VEC_R, for the block of count row points from pos (one prefetch per
 * 64-byte line); VEC_X, for the tile's xn points at r point pos. */
static void emit_stream_prefetch(Emit *E, const char *ind, int g, const char *pos, const char *count) {
  if (E->no_stream_prefetch) return;
  const Kernel *k = E->k;
  const KGroup *G = &k->groups[g];
  int inner = G->axes[G->naxes - 1], xin = k->nx ? k->x[k->nx - 1] : -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->scope != g || !E->s->stream_ahead[i]) continue;
    int esize = dtype_size(E->p->bufs[v->buf].dtype), step = esize < 64 ? 64 / esize : 1;
    const char **names = ARENA_ARRAY(E->a, const char *, k->naxes + 1);
    for (int a = 0; a < k->naxes; a++) names[a] = E->names[a];
    long long ahead = (long long)E->s->stream_ahead[i];
    int wrap = E->s->stream_wrap[i];
    if (E->s->mode == VEC_R && wrap >= 0) {
      /* Past the row's end, the next row (a select of two addresses). */
      long long n = (long long)k->axes[inner].size;
      sb_printf(E->sb, "%sfor (int64_t o_ = 0; o_ < %s; o_ += %d) {\n", ind, count, step);
      sb_printf(E->sb, "%s  const int64_t p_ = %s + o_ + %lld;\n", ind, pos, ahead);
      names[inner] = "p_";
      sb_printf(E->sb, "%s  c_prefetch(p_ < %lld ? ", ind, n);
      print_address(E->sb, v->buf, v->index, names);
      names[inner] = arena_printf(E->a, "(p_ - %lld)", n);
      names[wrap] = arena_printf(E->a, "(%s + 1)", E->names[wrap]);
      sb_puts(E->sb, " : ");
      print_address(E->sb, v->buf, v->index, names);
      sb_printf(E->sb, ");\n%s}\n", ind);
      continue;
    }
    if (E->s->mode == VEC_R) {
      names[inner] = arena_printf(E->a, "(%s + o_ + %lld)", pos, ahead);
    } else {
      names[xin] = "(xb + o_)";
      names[inner] = arena_printf(E->a, "(%s)", pos);
      int ax = E->s->stream_axis[i];
      names[ax] = arena_printf(E->a, "(%s + %lld)", names[ax], ahead);
    }
    sb_printf(E->sb, "%sfor (int64_t o_ = 0; o_ < %s; o_ += %d) c_prefetch(", ind, count, step);
    print_address(E->sb, v->buf, v->index, names);
    sb_puts(E->sb, ");\n");
  }
}

static const char *ctype(DType t) { return dtype_c_compute(t); }

/* An arg-reduction's pair type (the prelude's c_arg<T>) and combine's
 * suffix: f float, d double, l int64_t, i int (int32 and bool). */
static const char *arg_sfx(DType t) {
  const char *c = dtype_c_compute(t);
  return !strcmp(c, "float") ? "f" : !strcmp(c, "double") ? "d" : !strcmp(c, "int64_t") ? "l" : "i";
}

static const char *acc_type(const KRed *r) {
  if (!op_is_argred(r->op)) return dtype_c_compute(r->dtype);
  static const char *const pair[] = {"c_argf", "c_argd", "c_argl", "c_argi"};
  const char *sfx = arg_sfx(r->dtype);
  return pair[sfx[0] == 'f' ? 0 : sfx[0] == 'd' ? 1 : sfx[0] == 'l' ? 2 : 3];
}

/* An arg-reduction's identity: a value nothing loses to, at a position
 * past every r point (so the first real value, -inf or the type's lowest
 * too, replaces it). */
static const char *arg_identity(const KRed *r) {
  bool mx = r->op == OP_ARGMAX;
  switch (arg_sfx(r->dtype)[0]) {
  case 'f': return mx ? "(c_argf){-INFINITY, INT64_MAX}" : "(c_argf){INFINITY, INT64_MAX}";
  case 'd': return mx ? "(c_argd){-INFINITY, INT64_MAX}" : "(c_argd){INFINITY, INT64_MAX}";
  case 'l': return mx ? "(c_argl){INT64_MIN, INT64_MAX}" : "(c_argl){INT64_MAX, INT64_MAX}";
  default:
    if (r->dtype == DT_BOOL) return mx ? "(c_argi){0, INT64_MAX}" : "(c_argi){1, INT64_MAX}";
    return mx ? "(c_argi){INT32_MIN, INT64_MAX}" : "(c_argi){INT32_MAX, INT64_MAX}";
  }
}

/* What reduction r takes in at an r point: its value, or an
 * arg-reduction's pair (value, position). */
static void src_spelling(char *buf, size_t n, const KRed *r) {
  if (op_is_argred(r->op)) snprintf(buf, n, "(%s){v%d, v%d}", acc_type(r), r->src, r->idx);
  else snprintf(buf, n, "v%d", r->src);
}

static void print_const(StrBuf *sb, const KVal *v) {
  if (dtype_is_float(v->dtype)) {
    const char *cast = strcmp(ctype(v->dtype), "float") ? "" : "(float)";
    if (isnan(v->fval)) sb_printf(sb, "%sNAN", cast);
    else if (isinf(v->fval)) sb_printf(sb, "%s%sINFINITY", cast, v->fval < 0 ? "-" : "");
    else {
      /* A floating literal always: "-0" would be the integer 0, and +0.0. */
      char buf[64];
      snprintf(buf, sizeof buf, "%.17g", v->fval);
      sb_printf(sb, "%s%s%s", cast, buf, strpbrk(buf, ".e") ? "" : ".0");
    }
  } else if (v->dtype == DT_I64) {
    sb_printf(sb, "INT64_C(%lld)", (long long)v->ival);
  } else {
    sb_printf(sb, "%lld", (long long)v->ival);
  }
}

static const char *identity(const KRed *r) {
  bool fl = dtype_is_float(r->dtype);
  if (op_is_argred(r->op)) return arg_identity(r);
  switch (r->op) {
  case OP_SUM: return "0";
  case OP_PROD: return "1";
  case OP_AMAX: return fl ? "-INFINITY" : r->dtype == DT_I64 ? "INT64_MIN" : r->dtype == DT_I32 ? "INT32_MIN" : "0";
  case OP_AMIN: return fl ? "INFINITY" : r->dtype == DT_I64 ? "INT64_MAX" : r->dtype == DT_I32 ? "INT32_MAX" : "1";
  default: coil_unreachable("not a reduction");
  }
}

/* acc = combine(acc, v).  xloop: inside a VEC_X x loop (a column block),
 * where max and min are spelled c_maxv/c_minv (the prelude says why). */
static void combine(StrBuf *sb, const KRed *r, const char *acc, const char *v, bool xloop) {
  switch (r->op) {
  case OP_SUM: sb_printf(sb, "%s = %s + %s;", acc, acc, v); break;
  case OP_PROD: sb_printf(sb, "%s = %s * %s;", acc, acc, v); break;
  case OP_AMAX: sb_printf(sb, "%s = c_max%s(%s, %s);", acc, xloop ? "v" : "", acc, v); break;
  case OP_AMIN: sb_printf(sb, "%s = c_min%s(%s, %s);", acc, xloop ? "v" : "", acc, v); break;
  case OP_ARGMAX: case OP_ARGMIN:
    sb_printf(sb, "%s = c_%s_%s(%s, %s);", acc, r->op == OP_ARGMAX ? "argmax" : "argmin", arg_sfx(r->dtype), acc, v);
    break;
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

/* The prelude's names of a value's fast form, <name>_fast, and its range
 * check, <name>_off, or as a key: <name>_key above <NAME>_KEY_MAX
 * (CSched.fast_math). */
static const char *fast_form_name(const KVal *v) {
  bool d = v->cdtype == DT_F64;
  switch (v->op) {
  case OP_EXP: return d ? "c_expd" : "c_expf";
  case OP_LOG: return d ? "c_logd" : "c_logf";
  case OP_SIGMOID: return d ? "c_sigmoidd" : "c_sigmoidf";
  default: coil_unreachable("no fast form");
  }
}

/* The prelude's name of value i's range check: its fast form's, or for an
 * exp of a value known <= 0 the one-sided check (prelude_exp_nonpos). */
static const char *range_check_name(const Kernel *k, const KVal *v) {
  if (v->op == OP_EXP && k->vals[v->arg[0]].nonpos) return v->cdtype == DT_F64 ? "c_expd_nonpos" : "c_expf_nonpos";
  return fast_form_name(v);
}

static void value_expr(Emit *E, int i, const char *red_acc) {
  StrBuf *sb = E->sb;
  const KVal *v = &E->k->vals[i];
  switch (v->op) {
  case OP_INPUT:
  case OP_GATHER: {
    const char *pre = "", *post = "";
    if (v->dtype == DT_BF16) pre = "coil_bf16_to_f32(", post = ")";
    else if (v->dtype == DT_F16) pre = "coil_f16_to_f32(", post = ")";
    else if (v->dtype == DT_BOOL) pre = "(int)(", post = ")";
    if (v->nguard) { /* a padded read: memory only where the guard holds */
      sb_puts(sb, "(");
      kval_print_guard(sb, v, E->names, GUARD_C);
      sb_puts(sb, " ? ");
    }
    sb_printf(sb, "%sb%d[", pre, v->buf);
    ix_print(sb, v->index, E->names, true);
    if (v->op == OP_GATHER) /* the index checked first: one out of range is never read (coil_index) */
      sb_printf(sb, " + INT64_C(%lld) * coil_index((int64_t)v%d, INT64_C(%lld), %d, &coil_bad_, %d)", (long long)v->gstride, v->arg[0],
                (long long)v->gsize, v->gwrap, v->gnode + 1);
    sb_printf(sb, "]%s", post);
    if (v->nguard) {
      sb_puts(sb, " : ");
      print_const(sb, v);
      sb_puts(sb, ")");
    }
    return;
  }
  case OP_IOTA:
    sb_puts(sb, "(int64_t)(");
    ix_print(sb, v->index, E->names, true);
    sb_puts(sb, ")");
    return;
  case OP_CONST: print_const(sb, v); return;
  case OP_CAST: cast_expr(sb, E->k, v); return;
  default: break;
  }
  if (op_info[v->op].kind == OK_REDUCE) {
    sb_printf(sb, red_acc, v->red);
    if (op_is_argred(v->op)) sb_puts(sb, v->argval ? ".v" : ".i"); /* a member of the pair */
    return;
  }
  const char *round = v->dtype == DT_BF16 ? "c_rbf16" : v->dtype == DT_F16 ? "c_rf16" : NULL;
  if (E->fast && sched_has_fast_form(v)) {
    if (round) sb_printf(sb, "%s(", round);
    sb_printf(sb, "%s_fast(", fast_form_name(v));
    operand(sb, E->k, v->arg[0], v->cdtype);
    sb_printf(sb, ")%s", round ? ")" : "");
    return;
  }
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

static void mark_from(Emit *E, int root) { kernel_mark_from(E->k, root, E->mark, E->reuse); }

/* vdep[i]: value i changes along axis ax (the loop that is vectorised). */
static void set_vdep(Emit *E, int ax) { kernel_varies_along(E->k, ax, E->vdep); }

enum { ALL, INVARIANT, VARYING };

/* A marked value that the fast pass computes in its fast form (not read
 * back from a row buffer). */
static bool fast_checked(const Emit *E, int i) {
  return E->mark[i] && sched_has_fast_form(&E->k->vals[i]) && !(E->reuse && E->reuse[i] >= 0);
}

/* The key lanes of the values keyed[i]: n of them, cleared before the fast
 * pass (start) or, after it, their largest keys checked into off_ (the
 * loop's first m lanes).  One unsigned max per value in the loop and one
 * compare per lane after it: a per-value "off_ |= check" made the compiler
 * fold off_ across the vector after every pass of the loop (logsumexp:
 * 11.3 -> 9.9 ms). */
static void key_lanes(Emit *E, const char *ind, const bool *keyed, const char *n, const char *m, bool start) {
  for (int i = 0; i < E->k->nvals; i++) {
    if (!keyed[i]) continue;
    const KVal *v = &E->k->vals[i];
    if (start) {
      sb_printf(E->sb, "%s%s offk%d[%s];\n", ind, v->cdtype == DT_F64 ? "uint64_t" : "uint32_t", i, n);
      sb_printf(E->sb, "%sfor (int64_t i = 0; i < %s; i++) offk%d[i] = 0;\n", ind, n, i);
      continue;
    }
    sb_printf(E->sb, "%sfor (int64_t i = 0; i < %s; i++) off_ |= offk%d[i] > ", ind, m, i);
    for (const char *c = range_check_name(E->k, v); *c; c++) sb_putc(E->sb, (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c));
    sb_puts(E->sb, "_KEY_MAX;\n");
  }
}

/* Emit the marked values in order; which: all of them, or only those that
 * do not (INVARIANT) or do (VARYING) change along the vectorised axis.
 * red_acc: how a reduction result is spelled here (a printf format taking
 * the reduction index). */
static void emit_marked(Emit *E, const char *indent, const char *red_acc, int which) {
  for (int i = 0; i < E->k->nvals; i++) {
    if (!E->mark[i] || (which == INVARIANT && E->vdep[i]) || (which == VARYING && !E->vdep[i])) continue;
    sb_printf(E->sb, "%sconst %s v%d = ", indent, ctype(E->k->vals[i].dtype), i);
    bool reused = E->reuse && E->reuse[i] >= 0, staged = E->staged && E->staged[i];
    if (reused) sb_printf(E->sb, "row%d_[%s]", E->reuse[i], E->row_axis);
    else if (staged) sb_printf(E->sb, "cv%d_[%s]", i, E->stage_pos);
    else value_expr(E, i, red_acc);
    sb_puts(E->sb, ";\n");
    if (E->fast && fast_checked(E, i)) {
      const char *f = range_check_name(E->k, &E->k->vals[i]);
      if (E->fast_lane) sb_printf(E->sb, "%soffk%d[%s] = c_umax(offk%d[%s], %s_key(", indent, i, E->fast_lane, i, E->fast_lane, f);
      else sb_printf(E->sb, "%soff_ |= %s_off(", indent, f);
      operand(E->sb, E->k, E->k->vals[i].arg[0], E->k->vals[i].cdtype);
      sb_puts(E->sb, E->fast_lane ? "));\n" : ");\n");
    }
    if (E->save && E->save[i] >= 0) sb_printf(E->sb, "%srow%d_[%s] = v%d;\n", indent, E->save[i], E->row_axis, i);
  }
}

/* A staged f16 load (sched.c) that the vector loop being printed reads:
 * marked, varying along the loop, not read back from a row buffer. */
static bool staged_in_loop(const Emit *E, int i) {
  return E->mark[i] && E->vdep[i] && E->s->stage_load[i] && !(E->reuse && E->reuse[i] >= 0);
}

/* Before a vector loop over axis ax: convert each staged f16 load the loop
 * reads into its f32 block cv<i>_ of size values, count of them from the
 * position start of ax. */
static void emit_stage_loads(Emit *E, const char *ind, int ax, const char *start, int size, const char *count) {
  const Kernel *k = E->k;
  const char **names = ARENA_ARRAY(E->a, const char *, k->naxes + 1);
  for (int i = 0; i < k->naxes; i++) names[i] = E->names[i];
  names[ax] = start;
  for (int i = 0; i < k->nvals; i++) {
    if (!staged_in_loop(E, i)) continue;
    sb_printf(E->sb, "%sfloat cv%d_[%d];\n%scoil_f16_to_f32_n(cv%d_, &b%d[", ind, i, size, ind, i, k->vals[i].buf);
    ix_print(E->sb, k->vals[i].index, names, true);
    sb_printf(E->sb, "], %s);\n", count);
  }
}

static void store_conv(StrBuf *sb, DType t, int val) {
  if (t == DT_BF16) sb_printf(sb, "coil_f32_to_bf16(v%d)", val);
  else if (t == DT_F16) sb_printf(sb, "coil_f32_to_f16(v%d)", val);
  else if (t == DT_BOOL) sb_printf(sb, "(uint8_t)(v%d != 0)", val);
  else sb_printf(sb, "v%d", val);
}

static int stored_val(const Emit *E, const KStore *st) { return kernel_stored_value(E->p, E->k, st); }

/* An indexed store: the element at the checked index (coil_index: one out
 * of range adds at element 0, inside the buffer, and fails the run), read,
 * added to in the compute type and written back, rounded as PyTorch's CPU
 * rounds each add; ints wrap. */
static void emit_indexed_add(Emit *E, const char *indent, const KStore *st) {
  StrBuf *sb = E->sb;
  DType t = E->p->bufs[st->buf].dtype;
  sb_printf(sb, "%s{\n%s  const int64_t at_ = ", indent, indent);
  ix_print(sb, st->index, E->names, true);
  sb_printf(sb, " + INT64_C(%lld) * coil_index((int64_t)v%d, INT64_C(%lld), %d, &coil_bad_, %d);\n", (long long)st->gstride, st->ival,
            (long long)st->gsize, st->gwrap, st->gnode + 1);
  sb_printf(sb, "%s  b%d[at_] = ", indent, st->buf);
  switch (t) {
  case DT_BF16: sb_printf(sb, "coil_f32_to_bf16(coil_bf16_to_f32(b%d[at_]) + v%d)", st->buf, st->val); break;
  case DT_F16: sb_printf(sb, "coil_f32_to_f16(coil_f16_to_f32(b%d[at_]) + v%d)", st->buf, st->val); break;
  case DT_I32: sb_printf(sb, "(int32_t)((uint32_t)b%d[at_] + (uint32_t)v%d)", st->buf, st->val); break;
  case DT_I64: sb_printf(sb, "(int64_t)((uint64_t)b%d[at_] + (uint64_t)v%d)", st->buf, st->val); break;
  default: sb_printf(sb, "b%d[at_] + v%d", st->buf, st->val);
  }
  sb_printf(sb, ";\n%s}\n", indent);
}

static void mark_stores(Emit *E) {
  memset(E->mark, 0, sizeof(bool) * (size_t)E->k->nvals);
  for (int s = 0; s < E->k->nstores; s++) {
    mark_from(E, stored_val(E, &E->k->stores[s]));
    if (E->k->stores[s].indexed) mark_from(E, E->k->stores[s].ival);
  }
}

/* staging: per store, whether it goes to its staging row st<s>_ (indexed
 * by xi - xc) instead of the buffer; NULL for none.  A staged f16 store
 * (sched.c) keeps its f32 value there; others the stored bits. */
static void emit_stores(Emit *E, const char *indent, const bool *staging) {
  for (int s = 0; s < E->k->nstores; s++) {
    const KStore *st = &E->k->stores[s];
    if (staging && staging[s]) {
      sb_printf(E->sb, "%sst%d_[xi - xc] = ", indent, s);
      if (E->s->stage_store[s]) sb_printf(E->sb, "v%d", stored_val(E, st));
      else store_conv(E->sb, E->p->bufs[st->buf].dtype, stored_val(E, st));
      sb_puts(E->sb, ";\n");
      continue;
    }
    if (st->indexed) {
      emit_indexed_add(E, indent, st);
      continue;
    }
    sb_printf(E->sb, "%sb%d[", indent, st->buf);
    ix_print(E->sb, st->index, E->names, true);
    sb_puts(E->sb, "] = ");
    store_conv(E->sb, E->p->bufs[st->buf].dtype, stored_val(E, st));
    sb_puts(E->sb, ";\n");
  }
}

static void emit_epilogue(Emit *E, const char *indent, const char *red_acc) {
  mark_stores(E);
  emit_marked(E, indent, red_acc, ALL);
  emit_stores(E, indent, NULL);
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

static void mark_group(Emit *E, int g) { kernel_mark_group(E->k, g, E->mark, E->reuse); }

/* acc = combine(acc, val) for each reduction of group g; accfmt and valfmt
 * take the reduction's index, or valfmt SRC: the value it reduces. */
#define SRC NULL

static void combine_into(Emit *E, const char *ind, int g, const char *accfmt, const char *valfmt, bool xloop) {
  const Kernel *k = E->k;
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    char acc[48], val[64];
    snprintf(acc, sizeof acc, accfmt, r);
    if (valfmt) snprintf(val, sizeof val, valfmt, r);
    else src_spelling(val, sizeof val, &k->reds[r]);
    sb_puts(E->sb, ind);
    combine(E->sb, &k->reds[r], acc, val, xloop);
    sb_puts(E->sb, "\n");
  }
}

/* Group g's accumulators <what><r>[0 .. n) at their reductions' identity. */
static void reset_accs(Emit *E, const char *ind, int g, const char *what, const char *n) {
  for (int r = 0; r < E->k->nreds; r++)
    if (E->k->reds[r].group == g) sb_printf(E->sb, "%sfor (int64_t i = 0; i < %s; i++) %s%d[i] = %s;\n", ind, n, what, r, identity(&E->k->reds[r]));
}

/* The split part's range of a flat space of n points. */
static void split_range(Emit *E, const char *ind, const char *lo, const char *hi, int64_t n) {
  int64_t ns = E->s->nsplit;
  if (ns == 1) sb_printf(E->sb, "%sconst int64_t %s = 0, %s = INT64_C(%lld);\n", ind, lo, hi, (long long)n);
  else
    sb_printf(E->sb, "%sconst int64_t %s = split * INT64_C(%lld) / %lld, %s = (split + 1) * INT64_C(%lld) / %lld;\n", ind, lo,
              (long long)n, (long long)ns, hi, (long long)n, (long long)ns);
}

/* One r block of group g (VEC_X): the runs of the innermost r axis from
 * the digits' position, U r points per pass of the x loop (sched.c), each
 * x point's blk[xi] read and written once per U points. */
static void emit_r_block(Emit *E, int g, int xin, const Digits *d, const char *in, int64_t nin) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  Digits outer = *d;
  outer.n--;
  sb_puts(sb, "          for (int64_t rr = rb; rr < re;) {\n");
  sb_printf(sb, "            const int64_t run = re - rr < %lld - %s ? re - rr : %lld - %s;\n", (long long)nin, d->name[d->n - 1],
            (long long)nin, d->name[d->n - 1]);
  int U = E->s->runroll[g];
  const char *ri = arena_printf(E->a, "%s_j", in);
  sb_printf(sb, "            int64_t %s = %s;\n", ri, d->name[d->n - 1]);
  for (int pass = U > 1 ? 0 : 1; pass < 2; pass++) {
    int u = pass == 0 ? U : 1;
    sb_printf(sb, "            for (; %s + %d <= %s + run; %s += %d) {\n", ri, u, d->name[d->n - 1], ri, u);
    if (pass == 1) {
      sb_printf(sb, "              const int64_t %s = %s;\n", in, ri);
      emit_marked(E, "              ", "#error reduction result inside a loop %d", INVARIANT);
      emit_stream_prefetch(E, "              ", g, ri, "xn");
    } else if (prefetches_ahead(E, g)) {
      sb_printf(sb, "              for (int64_t j_ = 0; j_ < %d; j_++) {\n", u);
      emit_stream_prefetch(E, "                ", g, arena_printf(E->a, "%s + j_", ri), "xn");
      sb_puts(sb, "              }\n");
    }
    sb_puts(sb, "              for (int64_t xi = 0; xi < xn; xi++) {\n");
    if (xin >= 0) sb_printf(sb, "                const int64_t %s = xb + xi;\n", E->names[xin]);
    E->fast_lane = "xi";
    if (pass == 1) {
      emit_marked(E, "                ", "#error reduction result inside a loop %d", VARYING);
      combine_into(E, "                ", g, "blk%d[xi]", SRC, true);
    } else {
      for (int r = 0; r < k->nreds; r++)
        if (k->reds[r].group == g) sb_printf(sb, "                %s t%d = blk%d[xi];\n", acc_type(&k->reds[r]), r, r);
      for (int j = 0; j < u; j++) {
        sb_printf(sb, "                {\n                  const int64_t %s = %s + %d;\n", in, ri, j);
        emit_marked(E, "                  ", "#error reduction result inside a loop %d", ALL);
        combine_into(E, "                  ", g, "t%d", SRC, true);
        sb_puts(sb, "                }\n");
      }
      for (int r = 0; r < k->nreds; r++)
        if (k->reds[r].group == g) sb_printf(sb, "                blk%d[xi] = t%d;\n", r, r);
    }
    E->fast_lane = NULL;
    sb_puts(sb, "              }\n            }\n");
  }
  sb_printf(sb, "            rr += run;\n            %s += run;\n", d->name[d->n - 1]);
  if (outer.n) {
    sb_printf(sb, "            if (%s == %lld) {\n              %s = 0;\n", d->name[d->n - 1], (long long)nin, d->name[d->n - 1]);
    digits_step(E, "              ", &outer);
    sb_puts(sb, "            }\n");
  }
  sb_puts(sb, "          }\n");
}

/* Group g inside a VEC_X tile: the r points in blocks of RBLOCK; each r
 * point updates the tile's XT block accumulators in one vector loop, with
 * what does not depend on the x lane computed once per r point. */
static void emit_group_x(Emit *E, int g, int xin) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const KGroup *G = &k->groups[g];
  int64_t rb = E->s->rblock;
  /* Digits: the r axes, the innermost one counted as rN_0; the loop over a
   * run of it is a plain counted loop (no carry inside it). */
  Digits d = {.n = G->naxes};
  for (int i = 0; i < G->naxes; i++) d.name[i] = E->names[G->axes[i]], d.size[i] = k->axes[G->axes[i]].size;
  const char *in = d.name[d.n - 1];
  int64_t nin = d.size[d.n - 1];
  d.name[d.n - 1] = arena_printf(E->a, "%s_0", in);
  sb_printf(sb, "      { /* group %d */\n", g);
  split_range(E, "        ", "lo", "hi", group_size(k, g, 0));
  digits_declare(E, "        ", &d);
  sb_printf(sb, "        for (int64_t rb = lo; rb < hi; rb += %lld) {\n", (long long)rb);
  sb_printf(sb, "          const int64_t re = rb + %lld < hi ? rb + %lld : hi;\n", (long long)rb, (long long)rb);
  digits_decode(E, "          ", "rb", &d);
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].group == g) sb_printf(sb, "          %s blk%d[XT];\n", acc_type(&k->reds[r]), r);
  reset_accs(E, "          ", g, "blk", "XT");
  mark_group(E, g);
  if (E->s->fast_math[g]) {
    /* The block with the fast forms, and again exactly (from the block's
     * start: its accumulators and digits) where a value was off their
     * range. */
    bool *keyed = ARENA_ARRAY(E->a, bool, k->nvals + 1);
    for (int i = 0; i < k->nvals; i++) keyed[i] = fast_checked(E, i) && (E->vdep[i] || E->s->runroll[g] > 1);
    key_lanes(E, "          ", keyed, "XT", NULL, true);
    sb_puts(sb, "          uint32_t off_ = 0;\n");
    E->fast = true;
    emit_r_block(E, g, xin, &d, in, nin);
    E->fast = false;
    key_lanes(E, "          ", keyed, "XT", "xn", false);
    sb_puts(sb, "          if (off_) { /* a value off the fast forms' range: the block again, exactly */\n");
    reset_accs(E, "            ", g, "blk", "XT");
    digits_decode(E, "            ", "rb", &d);
    emit_r_block(E, g, xin, &d, in, nin);
    sb_puts(sb, "          }\n");
  } else {
    emit_r_block(E, g, xin, &d, in, nin);
  }
  combine_into(E, "          for (int64_t xi = 0; xi < xn; xi++) ", g, "acc%d[xi]", "blk%d[xi]", true);
  sb_puts(sb, "        }\n      }\n");
}

/* A max/min with NaN lanes (sched.c) keeps the plain max in its lane and
 * the largest |bits| seen in nan<r> (above inf's only after a NaN); that
 * NaN goes into the lane before the fold.  With bf16 keys, the NaNs sit at
 * the two ends of the key order (a positive NaN above +inf, a negative one
 * below -inf), so the lane keeps its key at the other end too, far<r>: one
 * 16-bit max or min instead of a mask and an unsigned max (logsumexp's max
 * pass over 8192 x 8192 bf16, single thread from cache: 3.0 -> 2.3 ms). */
static void combine_lanes(Emit *E, const char *ind, int g) {
  const Kernel *k = E->k;
  for (int r = 0; r < k->nreds; r++) {
    const KRed *R = &k->reds[r];
    if (R->group != g) continue;
    char acc[32], val[64];
    snprintf(acc, sizeof acc, "lane%d[l]", r);
    src_spelling(val, sizeof val, R);
    sb_puts(E->sb, ind);
    if (!E->s->nan_lanes[r]) {
      combine(E->sb, R, acc, val, false);
      sb_puts(E->sb, "\n");
      continue;
    }
    char cmp = R->op == OP_AMAX ? '>' : '<';
    if (E->s->bf16_keys[r]) {
      char other = cmp == '>' ? '<' : '>';
      sb_printf(E->sb, "{ const int16_t k_ = c_bf16_key(%s); key%d[l] = key%d[l] %c k_ ? key%d[l] : k_; ", val, r, r, cmp, r);
      sb_printf(E->sb, "far%d[l] = far%d[l] %c k_ ? far%d[l] : k_; }\n", r, r, other, r);
      continue;
    }
    sb_printf(E->sb, "%s = %s %c %s ? %s : %s;\n", acc, acc, cmp, val, acc, val);
    sb_printf(E->sb, "%snan%d[l] = c_umax(nan%d[l], c_absbitsf(%s));\n", ind, r, r, val);
  }
}

/* A chunk's lanes (and NaN lanes, bf16 keys) at their start values. */
static void start_lanes(Emit *E, const char *ind, int g, int L) {
  char n[16];
  snprintf(n, sizeof n, "%d", L);
  reset_accs(E, ind, g, "lane", n);
  for (int r = 0; r < E->k->nreds; r++) {
    if (E->k->reds[r].group != g || !E->s->nan_lanes[r]) continue;
    if (!E->s->bf16_keys[r]) {
      sb_printf(E->sb, "%sfor (int64_t i = 0; i < %d; i++) nan%d[i] = 0;\n", ind, L, r);
      continue;
    }
    bool is_max = E->k->reds[r].op == OP_AMAX;
    sb_printf(E->sb, "%sfor (int64_t i = 0; i < %d; i++) key%d[i] = c_bf16_key(%s);\n", ind, L, r, is_max ? "-INFINITY" : "INFINITY");
    sb_printf(E->sb, "%sfor (int64_t i = 0; i < %d; i++) far%d[i] = c_bf16_key(%s);\n", ind, L, r, is_max ? "INFINITY" : "-INFINITY");
  }
}

/* The vector loop over a chunk's whole blocks of L points of the inner
 * axis, from ri; in its fast form (E->fast) each value's range key goes
 * into its lanes offk<i>. */
static void emit_lane_loop(Emit *E, const char *ind, int g, int inner, int L) {
  StrBuf *sb = E->sb;
  char lanes[16], in1[64], in2[64];
  snprintf(lanes, sizeof lanes, "%d", L);
  snprintf(in1, sizeof in1, "%s  ", ind);
  snprintf(in2, sizeof in2, "%s    ", ind);
  sb_printf(sb, "%sfor (; ri + %d <= ce; ri += %d) {\n", ind, L, L);
  if (E->pf) emit_row_prefetch(E, in1, "ri", lanes);
  emit_stream_prefetch(E, in1, g, "ri", lanes);
  emit_stage_loads(E, in1, inner, "ri", L, lanes);
  E->staged = E->s->stage_load, E->stage_pos = "l";
  sb_printf(sb, "%s#pragma omp simd\n%sfor (int l = 0; l < %d; l++) {\n", in1, in1, L);
  sb_printf(sb, "%sconst int64_t %s = ri + l;\n", in2, E->names[inner]);
  E->fast_lane = "l";
  emit_marked(E, in2, "#error reduction result inside a loop %d", VARYING);
  E->fast_lane = NULL;
  E->staged = NULL;
  combine_lanes(E, in2, g);
  sb_printf(sb, "%s}\n%s}\n", in1, ind);
}

/* Fold group g's lanes <fmt> (fmt takes the reduction's index, then
 * "[l]" or "[l + s]" is added) pairwise, one loop of constant length per
 * level, into <fmt>[0]. */
static void fold_lanes(Emit *E, const char *ind, int g, int L, const char *fmt) {
  const char *ind2 = arena_printf(E->a, "%s  ", ind);
  for (int s = L / 2; s > 0; s /= 2) {
    sb_printf(E->sb, "%s#pragma omp simd\n%sfor (int l = 0; l < %d; l++) {\n", ind, ind, s);
    combine_into(E, ind2, g, arena_printf(E->a, "%s[l]", fmt), arena_printf(E->a, "%s[l + %d]", fmt, s), false);
    sb_printf(E->sb, "%s}\n", ind);
  }
}

/* The first S * sn_ chunks of group g's split part as S runs of sn_ chunks
 * read side by side (CSched.streams, sched.c): each 64-point block of the
 * vector loop from each run in turn, into the run's own lanes (lane<r>s<k>);
 * each run adds its chunks into its own accumulator (sacc<r>[k]) in order,
 * and the runs' accumulators go into the part's after them, in run order.
 * Leaves rc_ at the first chunk left for the one-run loop. */
static void emit_streams(Emit *E, int g, int inner, int S, int64_t chunk, int L) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const char *in = "          ", *in2 = "            ", *in3 = "              ", *in4 = "                ";
  sb_printf(sb, "        { /* %d runs side by side */\n", S);
  sb_printf(sb, "%sconst int64_t sn_ = (hi - lo) / %d;\n", in, S);
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].group == g)
      sb_printf(sb, "%s%s sacc%d[%d];\n%sfor (int64_t i = 0; i < %d; i++) sacc%d[i] = %s;\n", in, acc_type(&k->reds[r]), r, S, in, S, r,
                identity(&k->reds[r]));
  sb_printf(sb, "%sfor (int64_t su_ = 0; su_ < sn_; su_++) {\n", in);
  for (int s = 0; s < S; s++) sb_printf(sb, "%sconst int64_t cb%d = (lo + %d * sn_ + su_) * %lld;\n", in2, s, s, (long long)chunk);
  mark_group(E, g);
  emit_marked(E, in2, "#error reduction result inside a loop %d", INVARIANT);
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    for (int s = 0; s < S; s++)
      sb_printf(sb, "%s%s lane%ds%d[%d];\n%sfor (int64_t i = 0; i < %d; i++) lane%ds%d[i] = %s;\n", in2, acc_type(&k->reds[r]), r, s, L, in2,
                L, r, s, identity(&k->reds[r]));
  }
  sb_printf(sb, "%sfor (int64_t ri = 0; ri < %lld; ri += %d) {\n", in2, (long long)chunk, L);
  char lanes[16];
  snprintf(lanes, sizeof lanes, "%d", L);
  for (int s = 0; s < S; s++) {
    emit_stream_prefetch(E, in3, g, arena_printf(E->a, "(cb%d + ri)", s), lanes);
    sb_printf(sb, "%s#pragma omp simd\n%sfor (int l = 0; l < %d; l++) {\n", in3, in3, L);
    sb_printf(sb, "%sconst int64_t %s = cb%d + ri + l;\n", in4, E->names[inner], s);
    emit_marked(E, in4, "#error reduction result inside a loop %d", VARYING);
    combine_into(E, in4, g, arena_printf(E->a, "lane%%ds%d[l]", s), SRC, false);
    sb_printf(sb, "%s}\n", in3);
  }
  sb_printf(sb, "%s}\n", in2);
  for (int s = 0; s < S; s++) {
    fold_lanes(E, in2, g, L, arena_printf(E->a, "lane%%ds%d", s));
    combine_into(E, in2, g, arena_printf(E->a, "sacc%%d[%d]", s), arena_printf(E->a, "lane%%ds%d[0]", s), false);
  }
  sb_printf(sb, "%s}\n", in);
  sb_printf(sb, "%sfor (int64_t i = 0; i < %d; i++) {\n", in, S);
  combine_into(E, in2, g, "acc%d[0]", "sacc%d[i]", false);
  sb_printf(sb, "%s}\n%src_ = lo + %d * sn_;\n        }\n", in, in, S);
}

/* Group g (VEC_R): units of (outer r point, chunk of the unit-stride
 * inner axis); each chunk is summed in LANES independent lanes, folded
 * pairwise, and added to the accumulator.  xin >= 0: the tile's points of
 * that x axis are walked inside each unit (sched.c r_tile), each with its
 * own lanes and accumulator, so each still adds its chunks in order. */
static void emit_group_r(Emit *E, int g, int xin) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  const KGroup *G = &k->groups[g];
  int inner = G->axes[G->naxes - 1];
  int64_t n = k->axes[inner].size, chunk = E->s->chunk < n ? E->s->chunk : n;
  int64_t nc = (n + chunk - 1) / chunk;
  int L = E->s->lanes[g];
  /* The units: outer r points, and (untiled) the chunks of each. */
  bool unit_chunks = xin < 0 && nc > 1;
  Digits d = {.n = 0};
  for (int i = 0; i + 1 < G->naxes; i++) d.name[d.n] = E->names[G->axes[i]], d.size[d.n++] = k->axes[G->axes[i]].size;
  if (unit_chunks) d.name[d.n] = "rc_", d.size[d.n++] = nc;
  set_vdep(E, inner);
  sb_printf(sb, "      { /* group %d */\n", g);
  split_range(E, "        ", "lo", "hi", group_size(k, g, 1) * (unit_chunks ? nc : 1));
  digits_declare(E, "        ", &d);
  digits_decode(E, "        ", "lo", &d);
  int S = E->s->streams[g];
  if (S > 1) {
    /* Units are chunks alone (sched.c streams_fit): rc_ is the unit. */
    emit_streams(E, g, inner, S, chunk, L);
    sb_puts(sb, "        for (int64_t u = rc_; u < hi; u++) {\n");
  } else {
    sb_puts(sb, "        for (int64_t u = lo; u < hi; u++) {\n");
  }
  const char *in = "          ", *in2 = "            ", *acc = "acc%d[0]";
  if (xin >= 0) {
    /* Each x point of the tile, then its chunks of the piece. */
    sb_puts(sb, "          for (int64_t xi = 0; xi < xn; xi++) {\n");
    sb_printf(sb, "            const int64_t %s = xb + xi;\n", E->names[xin]);
    mark_group(E, g);
    emit_marked(E, "            ", "#error reduction result inside a loop %d", INVARIANT);
    sb_printf(sb, "            for (int64_t cb = 0; cb < %lld; cb += %lld) {\n", (long long)n, (long long)chunk);
    sb_printf(sb, "              const int64_t ce = cb + %lld < %lld ? cb + %lld : %lld;\n", (long long)chunk, (long long)n,
              (long long)chunk, (long long)n);
    in = "              ", in2 = "                ", acc = "acc%d[xi]";
  } else {
    if (unit_chunks)
      sb_printf(sb, "          const int64_t cb = rc_ * %lld, ce = cb + %lld < %lld ? cb + %lld : %lld;\n", (long long)chunk,
                (long long)chunk, (long long)n, (long long)chunk, (long long)n);
    else
      sb_printf(sb, "          const int64_t cb = 0, ce = %lld;\n", (long long)n);
    mark_group(E, g);
    emit_marked(E, in, "#error reduction result inside a loop %d", INVARIANT);
  }
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g) continue;
    sb_printf(sb, "%s%s lane%d[%d];\n", in, acc_type(&k->reds[r]), r, L);
    if (E->s->bf16_keys[r]) sb_printf(sb, "%sint16_t key%d[%d];\n%sint16_t far%d[%d];\n", in, r, L, in, r, L);
    else if (E->s->nan_lanes[r]) sb_printf(sb, "%suint32_t nan%d[%d];\n", in, r, L);
  }
  start_lanes(E, in, g, L);
  sb_printf(sb, "%sint64_t ri = cb;\n", in);
  if (E->s->fast_math[g]) {
    /* Only values that vary along the lane loop are computed in it. */
    bool *keyed = ARENA_ARRAY(E->a, bool, k->nvals + 1);
    for (int i = 0; i < k->nvals; i++) keyed[i] = fast_checked(E, i) && E->vdep[i];
    char lanes[16];
    snprintf(lanes, sizeof lanes, "%d", L);
    key_lanes(E, in, keyed, lanes, lanes, true);
    E->fast = true;
    emit_lane_loop(E, in, g, inner, L);
    E->fast = false;
    sb_printf(sb, "%suint32_t off_ = 0;\n", in);
    key_lanes(E, in, keyed, lanes, lanes, false);
    sb_printf(sb, "%sif (off_) { /* a value off the fast forms' range: the chunk again, exactly */\n", in);
    start_lanes(E, in2, g, L);
    sb_printf(sb, "%sri = cb;\n", in2);
    emit_lane_loop(E, in2, g, inner, L);
    sb_printf(sb, "%s}\n", in);
  } else {
    emit_lane_loop(E, in, g, inner, L);
  }
  if (n % L) { /* the tail */
    const char *in3 = arena_printf(E->a, "%s    ", in2);
    sb_printf(sb, "%sfor (; ri < ce; ri++) {\n%s{\n%sconst int l = 0;\n", in, in2, in3);
    sb_printf(sb, "%sconst int64_t %s = ri;\n", in3, E->names[inner]);
    emit_marked(E, in3, "#error reduction result inside a loop %d", VARYING);
    combine_lanes(E, in3, g);
    sb_printf(sb, "%s}\n%s}\n", in2, in);
  }
  for (int r = 0; r < k->nreds; r++) {
    if (k->reds[r].group != g || !E->s->nan_lanes[r]) continue;
    if (E->s->bf16_keys[r])
      sb_printf(sb, "%sfor (int l = 0; l < %d; l++)\n%s  lane%d[l] = c_bf16_from_keys(key%d[l], far%d[l]);\n", in, L, in, r, r, r);
    else
      sb_printf(sb, "%sfor (int l = 0; l < %d; l++)\n%s  if (nan%d[l] > 0x7f800000u) lane%d[l] = c_quiet_nanf(nan%d[l]);\n", in, L,
                in, r, r, r);
  }
  fold_lanes(E, in, g, L, "lane%d");
  combine_into(E, in, g, acc, "lane%d[0]", false);
  if (xin >= 0) sb_puts(sb, "            }\n          }\n");
  digits_step(E, "          ", &d);
  sb_puts(sb, "        }\n      }\n");
}

/* How a kernel's x space is cut into tiles.  fixed: the kernel's first x
 * axis is a row of a chain (below), set outside; the tiles cover the rest.
 * ctile > 0: the kernel is in a column chain, which sets the tile of the
 * vectorised axis outside too (cb_, cn_: its first point and length). */
typedef struct Tiling {
  bool vx;
  bool chain_cols; /* the vectorised axis's tile is the column chain's */
  int xin;         /* the vectorised x axis, or -1 */
  int64_t xt, inner, ntx;
  Digits td;       /* the tile digits */
  int64_t tiles;
} Tiling;

static void plan_tiles(Emit *E, bool fixed, int64_t ctile, Tiling *T) {
  const Kernel *k = E->k;
  int first = fixed ? 1 : 0;
  T->vx = E->s->mode == VEC_X;
  /* VEC_R: x tiles walked inside outer r points (never in a chain of
   * several kernels, chain_verify). */
  bool tiled = T->vx || E->s->xtile > 1;
  T->xin = tiled && k->nx > first ? k->x[k->nx - 1] : -1;
  /* no vector lanes along an axis two of whose points may add into one
   * element: they add one after another */
  for (int s = 0; s < k->nstores && T->xin >= 0; s++)
    if (kstore_collides_along(&k->stores[s], T->xin)) T->xin = -1;
  T->inner = T->xin >= 0 ? k->axes[T->xin].size : 1;
  T->chain_cols = ctile > 0 && T->xin >= 0;
  T->xt = T->chain_cols ? ctile : T->xin >= 0 ? E->s->xtile : 1;
  T->ntx = T->chain_cols ? 1 : (T->inner + T->xt - 1) / T->xt;
  /* The tile digits: the outer x axes and the tile of the inner one
   * (VEC_X), or every x axis (VEC_R). */
  T->td = (Digits){.n = 0};
  for (int i = first; i < k->nx - (T->xin >= 0 ? 1 : 0); i++)
    T->td.name[T->td.n] = E->names[k->x[i]], T->td.size[T->td.n++] = k->axes[k->x[i]].size;
  if (T->ntx > 1) T->td.name[T->td.n] = "tx_", T->td.size[T->td.n++] = T->ntx;
  T->tiles = 1;
  for (int i = 0; i < T->td.n; i++) T->tiles *= T->td.size[i];
}

/* Tiles' x loops in chunks of X_CHUNK values when their stores go
 * through a staging row in L1, out with coil_stream (streamed, chain.c) or
 * the f16 converter (staged, sched.c), or staged f16 loads come from f32
 * blocks. */
enum { X_CHUNK = 256 };

/* One tile: accumulators, each group's loops, then the epilogue (or the
 * partials when the reductions are split). */
static void emit_tile(Emit *E, const Tiling *T) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  int64_t ns = E->s->nsplit;
  if (T->chain_cols) {
    sb_puts(sb, "      const int64_t xb = cb_, xn = cn_;\n");
  } else if (T->ntx > 1) {
    sb_puts(sb, "      const int64_t xb = tx_ * XT;\n");
    sb_printf(sb, "      const int64_t xn = %lld - xb < XT ? %lld - xb : XT;\n", (long long)T->inner, (long long)T->inner);
  } else {
    sb_printf(sb, "      const int64_t xb = 0, xn = %lld;\n", (long long)T->inner);
  }
  sb_puts(sb, "      (void)xb;\n");
  for (int r = 0; r < k->nreds; r++)
    sb_printf(sb, "      %s acc%d[XT];\n      for (int64_t i = 0; i < XT; i++) acc%d[i] = %s;\n", acc_type(&k->reds[r]), r, r,
              identity(&k->reds[r]));
  set_vdep(E, T->xin);
  for (int g = 0; g < k->ngroups; g++) {
    if (T->vx) emit_group_x(E, g, T->xin);
    else emit_group_r(E, g, T->xin);
  }
  /* A VEC_R group asked what varies along its inner r axis: the epilogue
   * asks along the tile's x axis again (a value that varies along it, a
   * load of the reductions' buffers at x0, was printed outside the x loop,
   * where x0 is not declared: tests/regress/bn_stats_keepdim.py) */
  set_vdep(E, T->xin);
  /* Finish the tile: epilogue, or partials when split. */
  if (ns == 1) {
    mark_stores(E);
    emit_marked(E, "      ", "acc%d[xi]", INVARIANT);
  }
  /* Per store: streamed (chain.c), and whether it goes through a staging
   * row (streamed or a staged f16 conversion). */
  bool *stream = ARENA_ARRAY(E->a, bool, k->nstores + 1), *staging = ARENA_ARRAY(E->a, bool, k->nstores + 1), any = false,
       staged_loads = false;
  for (int s = 0; s < k->nstores; s++) {
    stream[s] = ns == 1 && E->stream && E->stream[s];
    any |= staging[s] = stream[s] || (ns == 1 && E->s->stage_store[s]);
  }
  if (ns == 1)
    for (int i = 0; i < k->nvals; i++) staged_loads |= staged_in_loop(E, i);
  bool chunked = any || staged_loads || (E->pf && T->xin >= 0);
  if (chunked) {
    /* The tile in chunks: each chunk's streamed or staged values go to a
     * staging row in L1, then out with coil_stream or the f16 converter,
     * while the next chunk computes; staged f16 loads are converted a chunk
     * ahead of the loop; the next row's prefetches are spread over the
     * chunks. */
    sb_printf(sb, "      for (int64_t xc = 0; xc < xn; xc += %d) {\n", X_CHUNK);
    sb_printf(sb, "        const int64_t xe = xn - xc < %d ? xn : xc + %d;\n", X_CHUNK, X_CHUNK);
    if (E->pf && E->pf_col)
      emit_row_prefetch(E, "        ", arena_printf(E->a, "%s + xc", E->pf_col), arena_printf(E->a, "(%s < xe ? %s : xe) - xc", E->pf_len, E->pf_len));
    else if (E->pf)
      emit_row_prefetch(E, "        ", "xb + xc", "xe - xc");
    if (staged_loads) emit_stage_loads(E, "        ", T->xin, "(xb + xc)", X_CHUNK, "xe - xc");
    for (int s = 0; s < k->nstores; s++)
      if (staging[s])
        sb_printf(sb, "        %s st%d_[%d];\n", E->s->stage_store[s] ? "float" : dtype_c_storage(E->p->bufs[k->stores[s].buf].dtype), s,
                  X_CHUNK);
    sb_puts(sb, "        #pragma omp simd\n        for (int64_t xi = xc; xi < xe; xi++) {\n");
  } else {
    sb_puts(sb, "      #pragma omp simd\n      for (int64_t xi = 0; xi < xn; xi++) {\n");
  }
  const char *in = chunked ? "          " : "        ";
  if (T->xin >= 0) sb_printf(sb, "%sconst int64_t %s = xb + xi;\n", in, E->names[T->xin]);
  if (ns == 1) {
    E->staged = E->s->stage_load, E->stage_pos = "xi - xc";
    emit_marked(E, in, "acc%d[xi]", VARYING);
    E->staged = NULL;
    emit_stores(E, in, any ? staging : NULL);
  } else {
    sb_puts(sb, "        const int64_t xf = 0");
    int64_t stride = 1;
    for (int i = k->nx - 1; i >= 0; i--) {
      sb_printf(sb, " + %lld * %s", (long long)stride, E->names[k->x[i]]);
      stride *= k->axes[k->x[i]].size;
    }
    sb_puts(sb, ";\n");
    for (int r = 0; r < k->nreds; r++)
      sb_printf(sb, "        part%d[split * INT64_C(%lld) + xf] = acc%d[xi];\n", r, (long long)x_points(k), r);
  }
  sb_puts(sb, chunked ? "        }\n" : "      }\n");
  if (chunked) {
    for (int s = 0; s < k->nstores; s++) {
      if (!staging[s]) continue;
      const KStore *st = &k->stores[s];
      sb_printf(sb, "        {\n          const int64_t %s = xb + xc;\n", E->names[T->xin]);
      const char *src = arena_printf(E->a, "st%d_", s);
      if (E->s->stage_store[s] && stream[s]) {
        sb_printf(sb, "          uint16_t sh%d_[%d];\n          coil_f32_to_f16_n(sh%d_, st%d_, xe - xc);\n", s, X_CHUNK, s, s);
        src = arena_printf(E->a, "sh%d_", s);
      }
      if (stream[s]) {
        sb_printf(sb, "          coil_stream(&b%d[", st->buf);
        ix_print(sb, st->index, E->names, true);
        sb_printf(sb, "], %s, sizeof %s[0] * (size_t)(xe - xc));\n        }\n", src, src);
      } else {
        sb_printf(sb, "          coil_f32_to_f16_n(&b%d[", st->buf);
        ix_print(sb, st->index, E->names, true);
        sb_printf(sb, "], %s, xe - xc);\n        }\n", src);
      }
    }
    sb_puts(sb, "      }\n");
    for (int s = 0; s < k->nstores; s++) E->streamed |= stream[s];
  }
}

static void declare_bufs(Emit *E, const Kernel *ks, int n) {
  bool *used = ARENA_ARRAY(E->a, bool, E->p->nbufs);
  bool *stored = ARENA_ARRAY(E->a, bool, E->p->nbufs);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < ks[j].nvals; i++)
      if (op_is_load(ks[j].vals[i].op)) used[ks[j].vals[i].buf] = true;
    for (int i = 0; i < ks[j].nstores; i++) stored[ks[j].stores[i].buf] = true;
  }
  for (int b = 0; b < E->p->nbufs; b++)
    if (used[b] || stored[b])
      sb_printf(E->sb, "  %s%s *restrict b%d = (%s%s *)bufs[%d]; /* %s */\n", stored[b] ? "" : "const ",
                dtype_c_storage(E->p->bufs[b].dtype), b, stored[b] ? "" : "const ", dtype_c_storage(E->p->bufs[b].dtype), b,
                E->p->bufs[b].name);
}

/* The points a kernel computes at: its x points times each group's r
 * points.  Below PARALLEL_MIN_POINTS a kernel runs on the calling thread:
 * waking the team and joining it (microseconds, and more where another
 * OpenMP runtime in the process, PyTorch's, keeps its threads spinning)
 * would cost more than the work. */
enum { PARALLEL_MIN_POINTS = 1 << 15 };
static int64_t kernel_points(const Kernel *k) {
  int64_t r = 0;
  for (int g = 0; g < k->ngroups; g++) {
    int64_t n = 1;
    for (int i = 0; i < k->groups[g].naxes; i++) n *= k->axes[k->groups[g].axes[i]].size;
    r += n;
  }
  return x_points(k) * (r > 0 ? r : 1);
}

/* The parallel loop over a kernel's (or chain's) n tasks.  A task's work
 * is fixed by its number, so they are handed out as the threads come: a
 * thread that the machine slows down (a shared vCPU, a busy core) takes
 * fewer, and the sums do not change.  A thread takes coil_task_run(n)
 * consecutive tasks at a time (the prelude: an eighth of its share), so
 * it walks memory in order: one task at a time gave the two threads here
 * neighbouring tasks (06_channel_stats: adjacent channels' 32 KiB pieces)
 * and was 35% slower in some states of this machine (5.2 ms against 3.9
 * for runs of 16; guided 3.7, static 3.8).  Guided, though, was up to 1.3x
 * slower on 16 cores, where its long first runs leave the last threads
 * waiting; there runs come out at one or two tasks, as before. */
static void emit_task_loop(StrBuf *sb, int64_t n, int64_t points) {
  if (n > 1 && points >= PARALLEL_MIN_POINTS)
    sb_printf(sb, "  #pragma omp parallel for schedule(dynamic, coil_task_run(INT64_C(%lld)))\n", (long long)n);
  sb_printf(sb, "  for (int64_t task = 0; task < INT64_C(%lld); task++) {\n", (long long)n);
}

/* One kernel, one function.  Tasks: NT ranges of x tiles times NSPLIT parts
 * of every reduction (emit_task_loop). */
static void emit_kernel(Emit *E) {
  StrBuf *sb = E->sb;
  const Kernel *k = E->k;
  int64_t nxt = x_points(k), ns = E->s->nsplit;
  sb_printf(sb, "\n%sint64_t %s(void *const *bufs) {\n", E->s->narrow ? "COIL_NARROW " : "", k->name);
  declare_bufs(E, k, 1);
  sb_puts(sb, "  int64_t coil_bad_ = 0; /* an indexed load's check that failed (coil_index) */\n");
  if (ns > 1) {
    for (int r = 0; r < k->nreds; r++)
      sb_printf(sb, "  %s *part%d = malloc(sizeof(%s) * %lld);\n  if (!part%d) abort();\n", acc_type(&k->reds[r]), r,
                acc_type(&k->reds[r]), (long long)(ns * nxt), r);
  }
  Tiling T;
  plan_tiles(E, false, 0, &T);
  int64_t nt = ns > 1 || T.tiles < 256 ? T.tiles : 256;
  /* Indexed stores add in the order of their collision axes, which tasks
   * taken by threads as they come would not keep: one task walks the tiles
   * in order. */
  if (kernel_has_indexed_store(k)) nt = 1;
  sb_printf(sb, "  enum { XT = %lld };\n", (long long)T.xt);
  emit_task_loop(sb, nt * ns, kernel_points(k));
  if (ns > 1) sb_printf(sb, "    const int64_t xt = task / %lld, split = task %% %lld;\n", (long long)ns, (long long)ns);
  else sb_puts(sb, "    const int64_t xt = task;\n");
  if (nt == T.tiles) sb_puts(sb, "    const int64_t t0 = xt, t1 = xt + 1;\n");
  else
    sb_printf(sb, "    const int64_t t0 = xt * INT64_C(%lld) / %lld, t1 = (xt + 1) * INT64_C(%lld) / %lld;\n", (long long)T.tiles,
              (long long)nt, (long long)T.tiles, (long long)nt);
  digits_declare(E, "    ", &T.td);
  digits_decode(E, "    ", "t0", &T.td);
  sb_puts(sb, "    for (int64_t tile = t0; tile < t1; tile++) {\n");
  emit_tile(E, &T);
  digits_step(E, "      ", &T.td);
  sb_puts(sb, "    }\n");
  if (E->streamed) sb_puts(sb, "    coil_stream_end();\n");
  sb_puts(sb, "  }\n");
  if (ns > 1) {
    /* Combine the parts in split order: the same sums whatever the number
     * of threads. */
    Digits xd = {.n = 0};
    for (int i = 0; i < k->nx; i++) xd.name[xd.n] = E->names[k->x[i]], xd.size[xd.n++] = k->axes[k->x[i]].size;
    if (nxt * ns >= PARALLEL_MIN_POINTS) sb_puts(sb, "  #pragma omp parallel for schedule(static)\n");
    sb_printf(sb, "  for (int64_t xf = 0; xf < INT64_C(%lld); xf++) {\n", (long long)nxt);
    digits_declare(E, "    ", &xd);
    digits_decode(E, "    ", "xf", &xd);
    for (int r = 0; r < k->nreds; r++) {
      sb_printf(sb, "    %s acc%d = %s;\n    for (int64_t s = 0; s < %lld; s++) ", acc_type(&k->reds[r]), r, identity(&k->reds[r]),
                (long long)ns);
      char acc[32], val[64];
      snprintf(acc, sizeof acc, "acc%d", r);
      snprintf(val, sizeof val, "part%d[s * INT64_C(%lld) + xf]", r, (long long)nxt);
      combine(sb, &k->reds[r], acc, val, false);
      sb_puts(sb, "\n");
    }
    emit_epilogue(E, "    ", "acc%d");
    sb_puts(sb, "  }\n");
    for (int r = 0; r < k->nreds; r++) sb_printf(sb, "  free(part%d);\n", r);
  }
  sb_puts(sb, "  return coil_bad_;\n}\n");
}

/* A chain (chain.c): its kernels run a row at a time in one parallel loop,
 * emitted into the first kernel's function; the others are left empty, so
 * callers still call them all in order. */
static void emit_chain(StrBuf *sb, const Program *p, const CSched *sched, const CChain *ch) {
  Arena a = {0};
  int first = ch->first, n = ch->n;
  const Kernel *k0 = &p->kernels[first];
  Emit E0 = {.sb = sb, .p = p, .k = k0, .s = &sched[first], .a = &a};
  /* The loop's steps: rows, or for a column chain (row, column tile)
   * pairs, row-major. */
  int64_t ntiles = ch->ctile ? (ch->inner + ch->ctile - 1) / ch->ctile : 1;
  int64_t steps = ch->rows * ntiles, nt = steps < 256 ? steps : 256;
  sb_printf(sb, "\n/* %s", k0->name);
  for (int j = 1; j < n; j++) sb_printf(sb, ", %s", p->kernels[first + j].name);
  sb_puts(sb, ch->ctile ? ": one chain, run a tile of columns at a time. */\n" : ": one chain, run a row at a time. */\n");
  sb_printf(sb, "%sint64_t %s(void *const *bufs) {\n", ch->narrow ? "COIL_NARROW " : "", k0->name);
  declare_bufs(&E0, k0, n);
  int64_t points = 0;
  for (int j = 0; j < n; j++) points += kernel_points(&p->kernels[first + j]);
  emit_task_loop(sb, nt, points);
  if (nt == steps) sb_puts(sb, "    const int64_t row0 = task, row1 = task + 1;\n");
  else
    sb_printf(sb, "    const int64_t row0 = task * INT64_C(%lld) / %lld, row1 = (task + 1) * INT64_C(%lld) / %lld;\n", (long long)steps,
              (long long)nt, (long long)steps, (long long)nt);
  bool streamed = false;
  int pf_kernel = ch->pf_kernel;
  const char **pf_names = NULL;
  if (pf_kernel) {
    const char *const *names = kernel_axis_names(&a, k0);
    pf_names = ARENA_ARRAY(&a, const char *, k0->naxes + 1);
    for (int i = 0; i < k0->naxes; i++) pf_names[i] = names[i];
    pf_names[k0->x[0]] = "xnext_";
    if (ch->ctile) {
      /* The next tile: its row, and the reduction point the prefetching
       * kernel's middle x axis walks. */
      const Kernel *kp = &p->kernels[first + pf_kernel];
      pf_names[k0->x[0]] = "rown_";
      pf_names[ch->pf.raxis] = kernel_axis_names(&a, kp)[kp->x[ch->outer ? 1 : 0]];
    }
  }
  if (ch->ctile) {
    sb_puts(sb, "    for (int64_t step = row0; step < row1; step++) {\n");
    sb_printf(sb, "      const int64_t row = step / %lld, cb_ = step %% %lld * %lld;\n", (long long)ntiles, (long long)ntiles,
              (long long)ch->ctile);
    sb_printf(sb, "      const int64_t cn_ = %lld - cb_ < %lld ? %lld - cb_ : %lld;\n", (long long)ch->inner, (long long)ch->ctile,
              (long long)ch->inner, (long long)ch->ctile);
    if (!ch->outer) sb_puts(sb, "      (void)row;\n");
    if (pf_kernel) {
      sb_printf(sb, "      const int64_t stepn_ = step + 1 < INT64_C(%lld) ? step + 1 : step;\n", (long long)steps);
      sb_printf(sb, "      const int64_t rown_ = stepn_ / %lld, cbn_ = stepn_ %% %lld * %lld;\n", (long long)ntiles, (long long)ntiles,
                (long long)ch->ctile);
      sb_printf(sb, "      const int64_t cnn_ = %lld - cbn_ < %lld ? %lld - cbn_ : %lld;\n", (long long)ch->inner, (long long)ch->ctile,
                (long long)ch->inner, (long long)ch->ctile);
      if (!ch->outer) sb_puts(sb, "      (void)rown_;\n");
    }
  } else {
    sb_puts(sb, "    for (int64_t row = row0; row < row1; row++) {\n");
  }
  if (pf_kernel) sb_printf(sb, "      const int64_t xnext_ = row + 1 < INT64_C(%lld) ? row + 1 : row;\n", (long long)steps);
  for (int b = 0; b < ch->nbuf; b++)
    sb_printf(sb, "      %s row%d_[%lld]; /* one %s of a value two kernels of the chain use */\n", ctype(ch->buftype[b]), b,
              (long long)ch->bufsize[b], ch->ctile ? "tile" : "row");
  for (int j = 0; j < n; j++) {
    const Kernel *k = &p->kernels[first + j];
    Emit E = {.p = p, .k = k, .s = &sched[first + j], .a = &a, .save = ch->save[j], .reuse = ch->reuse[j], .stream = ch->stream[j]};
    if (pf_kernel && j == pf_kernel) E.pf = &ch->pf, E.pf_names = pf_names;
    E.no_stream_prefetch = pf_kernel != 0;
    if (pf_kernel && j == pf_kernel && ch->ctile) E.pf_col = "cbn_", E.pf_len = "cnn_";
    E.names = kernel_axis_names(&a, k);
    E.row_axis = k->ngroups ? E.names[k->groups[0].axes[k->groups[0].naxes - 1]] : k->nx > 1 ? E.names[k->x[1]] : "0";
    /* A column chain's buffers hold a tile: r's points (the reduction's
     * axis, the pointwise kernel's middle x axis) by the tile's columns. */
    if (ch->ctile)
      E.row_axis = arena_printf(&a, "%s * XT + xi", k->ngroups ? E.names[k->groups[0].axes[0]] : E.names[k->x[ch->outer ? 1 : 0]]);
    E.mark = ARENA_ARRAY(&a, bool, k->nvals + 1);
    E.vdep = ARENA_ARRAY(&a, bool, k->nvals + 1);
    StrBuf body = {0};
    E.sb = &body;
    Tiling T;
    bool fixed = !ch->ctile || ch->outer;
    plan_tiles(&E, fixed, ch->ctile, &T);
    sb_printf(&body, "{ /* %s */\n", k->name);
    if (fixed) sb_printf(&body, "  const int64_t %s = row;\n", E.names[k->x[0]]);
    sb_printf(&body, "  enum { XT = %lld };\n", (long long)T.xt);
    digits_declare(&E, "  ", &T.td);
    for (int i = 0; i < T.td.n; i++) sb_printf(&body, "  %s = 0;\n", T.td.name[i]);
    sb_printf(&body, "  for (int64_t tile = 0; tile < INT64_C(%lld); tile++) {\n", (long long)T.tiles);
    emit_tile(&E, &T);
    streamed |= E.streamed;
    digits_step(&E, "      ", &T.td);
    sb_puts(&body, "  }\n}\n");
    /* Indent the kernel's block into the row loop. */
    for (const char *l = body.data; l && *l;) {
      const char *e = strchr(l, '\n');
      size_t len = e ? (size_t)(e - l) : strlen(l);
      sb_printf(sb, "      %.*s\n", (int)len, l);
      l += len + (e ? 1 : 0);
    }
    sb_free(&body);
  }
  sb_puts(sb, "    }\n");
  if (streamed) sb_puts(sb, "    coil_stream_end();\n");
  sb_puts(sb, "  }\n  return 0; /* a chain has no indexed loads (chain.c) */\n}\n");
  for (int j = 1; j < n; j++)
    sb_printf(sb, "\nint64_t %s(void *const *bufs) { (void)bufs; return 0; /* computed by %s */ }\n", p->kernels[first + j].name, k0->name);
  arena_free(&a);
}

/* The prelude's helpers are C_INLINE: always inlined.  gcc stops inlining
 * plain static inline functions into a function it deems large enough, and
 * a chain runs all its kernels in one function: in a chain of 17 kernels
 * (eight layer norms, each followed by x + tanh(x/2)) c_tanhf stayed a call,
 * its simd loops ran scalar, and the whole took 676 ms, 69 ms inlined
 * (tests/unit/vector_test.c keeps such a chain vectorised). */
static const char prelude[] =
    "/* Generated by coil. */\n"
    "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#ifdef _OPENMP\n#include <omp.h>\n#endif\n\n"
    "/* Helpers are inlined however large the kernel grows: a call left in a\n"
    " * simd loop keeps it scalar (see src/cpu/emit.c). */\n"
    "#if defined(__GNUC__) || defined(__clang__)\n"
    "#define C_INLINE static inline __attribute__((always_inline))\n"
    "#else\n"
    "#define C_INLINE static inline\n"
    "#endif\n"
    "/* Consecutive tasks a thread takes at a time: an eighth of its share (see src/cpu/emit.c). */\n"
    "C_INLINE int coil_task_run(int64_t ntasks) {\n"
    "#ifdef _OPENMP\n"
    "  int64_t run = ntasks / (8 * (int64_t)omp_get_max_threads());\n"
    "#else\n"
    "  int64_t run = ntasks / 8;\n"
    "#endif\n"
    "  return run > 1 ? (int)run : 1;\n"
    "}\n"
    "/* An indexed load's index (gather, embedding, x[idx]), checked: one outside [0, n),\n"
    " * after a negative one is wrapped where wrap, is never read; the check's id goes to\n"
    " * *bad, which the kernel returns, and element 0 is read instead. */\n"
    "C_INLINE int64_t coil_index(int64_t i, int64_t n, int wrap, int64_t *bad, int id) {\n"
    "  if (wrap && i < 0) i += n;\n"
    "  if ((uint64_t)i < (uint64_t)n) return i;\n"
    "  __atomic_store_n(bad, (int64_t)id, __ATOMIC_RELAXED);\n"
    "  return 0;\n"
    "}\n"
    "C_INLINE float coil_bf16_to_f32(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }\n"
    "C_INLINE uint16_t coil_f32_to_bf16(float f) {\n"
    "  uint32_t u; memcpy(&u, &f, 4);\n"
    "  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);\n"
    "  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n"
    "/* f16 <-> f32 without branches, so loops that convert vectorise (see src/cpu/emit.c) */\n"
    "C_INLINE float coil_f16_to_f32(uint16_t h) {\n"
    "  uint32_t mag = (uint32_t)(h & 0x7fffu) << 13, sign = (uint32_t)(h & 0x8000u) << 16, u;\n"
    "  float f;\n"
    "  memcpy(&f, &mag, 4);\n"
    "  f *= 0x1p112f; /* rebias the exponent; exact, subnormals included */\n"
    "  memcpy(&u, &f, 4);\n"
    "  u = (h & 0x7c00u) == 0x7c00u ? mag | 0x7f800000u : u; /* inf, NaN */\n"
    "  u |= sign;\n"
    "  memcpy(&f, &u, 4);\n"
    "  return f;\n}\n"
    "C_INLINE uint16_t coil_f32_to_f16(float f) {\n"
    "  uint32_t u;\n"
    "  memcpy(&u, &f, 4);\n"
    "  uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, v;\n"
    "  float x;\n"
    "  memcpy(&x, &a, 4);\n"
    "  x += 0.5f; /* |f| rounded to a multiple of 2^-24 (subnormal results) */\n"
    "  memcpy(&v, &x, 4);\n"
    "  uint32_t r = a < 0x38800000u ? v - 0x3f000000u : (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;\n"
    "  r = a >= 0x477ff000u ? 0x7c00u : r; /* overflow: inf */\n"
    "  r = a > 0x7f800000u ? 0x7e00u : r; /* NaN */\n"
    "  return (uint16_t)(sign | r);\n}\n"
    ;
/* The f16 conversions compute every case and select, with no branch, so
 * that gcc vectorises the loops that use them (with the earlier branchy
 * ones a row sum over f16 ran at 0.11 of the read ceiling, an f16 rms
 * norm at 0.06).  f16 -> f32: the magnitude's bits shifted into f32 place
 * are 2^-112 times the value, subnormals included, so one exact multiply
 * rebiases.  f32 -> f16, round to nearest even: normal results add the
 * rounding bias to the bits and shift; subnormal ones add 0.5 in float,
 * whose ulp is 2^-24, the f16 subnormal step; overflow gives inf and NaN a
 * quiet NaN.  tests/unit/convert_test.c checks every f16 and a sample of
 * every float against the branchy versions and _Float16 where gcc has it. */
/* n values at a time between f16 and f32 (staged conversions, sched.c):
 * with x86's F16C converter where the compiler targets it (16 values per
 * instruction with AVX-512, 8 with AVX), in inline assembly for the same
 * reason as coil_stream below; the rest, and every value elsewhere, with
 * the functions above.  The converter rounds to nearest even (immediate 0,
 * whatever MXCSR says) and handles subnormals exactly, as they do; only a
 * NaN's payload may differ (it stays a NaN). */
static const char prelude_f16n[] =
    "#if defined(__GNUC__) && defined(__x86_64__) && defined(__F16C__) && defined(__AVX512F__)\n"
    "#define COIL_F16N 16\n"
    "#define COIL_F16R \"v\"\n"
    "#elif defined(__GNUC__) && defined(__x86_64__) && defined(__F16C__) && defined(__AVX__)\n"
    "#define COIL_F16N 8\n"
    "#define COIL_F16R \"x\"\n"
    "#endif\n"
    "#ifdef COIL_F16N\n"
    "typedef float coil_f32v_ __attribute__((vector_size(4 * COIL_F16N), may_alias, aligned(4)));\n"
    "typedef uint16_t coil_f16v_ __attribute__((vector_size(2 * COIL_F16N), may_alias, aligned(2)));\n"
    "#endif\n"
    "C_INLINE void coil_f16_to_f32_n(float *restrict d, const uint16_t *restrict s, int64_t n) {\n"
    "  int64_t i = 0;\n"
    "#ifdef COIL_F16N\n"
    "  for (int64_t nv = n - n % COIL_F16N; i < nv; i += COIL_F16N) {\n"
    "    coil_f32v_ v;\n"
    "    __asm__(\"vcvtph2ps %1, %0\" : \"=\" COIL_F16R(v) : \"m\"(*(const coil_f16v_ *)(s + i)));\n"
    "    *(coil_f32v_ *)(d + i) = v;\n"
    "  }\n"
    "#endif\n"
    "  for (; i < n; i++) d[i] = coil_f16_to_f32(s[i]);\n"
    "}\n"
    "C_INLINE void coil_f32_to_f16_n(uint16_t *restrict d, const float *restrict s, int64_t n) {\n"
    "  int64_t i = 0;\n"
    "#ifdef COIL_F16N\n"
    "  for (int64_t nv = n - n % COIL_F16N; i < nv; i += COIL_F16N)\n"
    "    __asm__(\"vcvtps2ph $0, %1, %0\" : \"=m\"(*(coil_f16v_ *)(d + i)) : COIL_F16R(*(const coil_f32v_ *)(s + i)));\n"
    "#endif\n"
    "  for (; i < n; i++) d[i] = coil_f32_to_f16(s[i]);\n"
    "}\n";
/* coil_stream: copy n bytes with stores that bypass the caches (see
 * "Streaming stores" above emit_tile), in inline assembly so that no
 * intrinsics header is needed (<immintrin.h> adds 160 ms to each cold
 * compile); elsewhere a plain memcpy.  Weakly ordered: coil_stream_end
 * fences a task's stores before the loop's barrier publishes them. */
static const char prelude_stream[] =
    "#if defined(__GNUC__)\n"
    "#define c_prefetch(p) __builtin_prefetch(p, 0, 2)\n"
    "#else\n"
    "#define c_prefetch(p) ((void)(p))\n"
    "#endif\n"
    "#if defined(__GNUC__) && defined(__x86_64__) && defined(__AVX512F__)\n"
    "#define COIL_SW 64\n"
    "#elif defined(__GNUC__) && defined(__x86_64__) && defined(__AVX__)\n"
    "#define COIL_SW 32\n"
    "#elif defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)\n"
    "#define COIL_SW 16\n"
    "#endif\n"
    "C_INLINE void coil_stream(void *restrict dst, const void *restrict src, size_t n) {\n"
    "  unsigned char *d = dst;\n"
    "  const unsigned char *s = src;\n"
    "#ifdef COIL_SW\n"
    "  typedef long long v_ __attribute__((vector_size(COIL_SW)));\n"
    "  size_t head = (COIL_SW - ((uintptr_t)d & (COIL_SW - 1))) & (COIL_SW - 1);\n"
    "  if (head > n) head = n;\n"
    "  memcpy(d, s, head);\n"
    "  d += head, s += head, n -= head;\n"
    "  for (; n >= COIL_SW; n -= COIL_SW, d += COIL_SW, s += COIL_SW) {\n"
    "    v_ v;\n"
    "    memcpy(&v, s, COIL_SW);\n"
    "#if COIL_SW == 16 && !defined(__AVX__)\n"
    "    __asm__ volatile(\"movntdq %0, (%1)\" : : \"x\"(v), \"r\"(d) : \"memory\");\n"
    "#else\n"
    "    __asm__ volatile(\"vmovntdq %0, (%1)\" : : \"x\"(v), \"r\"(d) : \"memory\");\n"
    "#endif\n"
    "  }\n"
    "#endif\n"
    "  memcpy(d, s, n);\n"
    "}\n"
    "C_INLINE void coil_stream_end(void) {\n"
    "#ifdef COIL_SW\n"
    "  __asm__ volatile(\"sfence\" : : : \"memory\");\n"
    "#endif\n"
    "}\n";

/* (Several strings: ISO C guarantees string literals of 4095 bytes only.) */
static const char prelude2[] =
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \\\n"
    "    (defined(__znver1__) || defined(__znver2__) || defined(__znver3__) || defined(__znver4__) || defined(__znver5__))\n"
    "/* A light row reduction on AMD Zen: 128-bit loads stream faster there (sched.c) */\n"
    "#define COIL_NARROW __attribute__((target(\"prefer-vector-width=128\")))\n"
    "#else\n"
    "#define COIL_NARROW\n"
    "#endif\n"
    "#define c_rbf16(x) coil_bf16_to_f32(coil_f32_to_bf16(x))\n"
    "#define c_rf16(x) coil_f16_to_f32(coil_f32_to_f16(x))\n"
    "/* NaN-propagating max/min, as torch.maximum and amax. */\n"
    "/* Two spellings of each, for two kinds of loop (src/cpu/emit.c's combine):\n"
    " * c_max, the NaN test outermost, for lane loops and scalar folds, where\n"
    " * gcc vectorises it or branches only on a NaN; c_maxv, a > b first, for\n"
    " * the x loops of column blocks (a chain of maxes on one value), which gcc\n"
    " * 13 vectorises only in this form (gcc 12 in both).  Each in the other's\n"
    " * place was measured slower: c_maxv in scalar folds branches on a > b\n"
    " * (rows of 16, 2.5-3x), c_max left gcc 13's column blocks scalar (column\n"
    " * amax 2.5-3.5x); (a != a) | (a > b) vectorised neither's blocks. */\n"
    "#define c_max(a, b) (((a) != (a)) ? (a) : (a) > (b) ? (a) : (b))\n"
    "#define c_min(a, b) (((a) != (a)) ? (a) : (a) < (b) ? (a) : (b))\n"
    "#define c_maxv(a, b) (((a) > (b)) || ((a) != (a)) ? (a) : (b))\n"
    "#define c_minv(a, b) (((a) < (b)) || ((a) != (a)) ? (a) : (b))\n"
    "#define c_umax(a, b) ((a) > (b) ? (a) : (b)) /* unsigned keys */\n"
    "/* |x|'s bits: above 0x7f800000 exactly when x is a NaN. */\n"
    "C_INLINE uint32_t c_absbitsf(float x) {\n"
    "  uint32_t xb;\n"
    "  memcpy(&xb, &x, 4);\n"
    "  return xb & 0x7fffffffu;\n"
    "}\n"
    "/* torch.where on floats by bit masks.  gcc 12 folds the arithmetic after a\n"
    " * float ?: into its arms (x - (c ? 0 : m) became c ? x : x - m), the\n"
    " * subtraction may trap, so the ?: becomes a branch, and without AVX-512's\n"
    " * masks the loop stays scalar (a column logsumexp on AVX2).  Integers keep\n"
    " * ?: (nothing traps). */\n"
    "C_INLINE float c_wheref(int c, float a, float b) {\n"
    "  uint32_t m = 0u - (uint32_t)(c != 0), ab, bb;\n"
    "  memcpy(&ab, &a, 4);\n"
    "  memcpy(&bb, &b, 4);\n"
    "  ab = (ab & m) | (bb & ~m);\n"
    "  memcpy(&a, &ab, 4);\n"
    "  return a;\n"
    "}\n"
    "C_INLINE double c_whered(int c, double a, double b) {\n"
    "  uint64_t m = 0u - (uint64_t)(c != 0), ab, bb;\n"
    "  memcpy(&ab, &a, 8);\n"
    "  memcpy(&bb, &b, 8);\n"
    "  ab = (ab & m) | (bb & ~m);\n"
    "  memcpy(&a, &ab, 8);\n"
    "  return a;\n"
    "}\n"
    "#define c_where(c, a, b) \\\n"
    "  _Generic((a) + (b), float: c_wheref((c), (a), (b)), double: c_whered((c), (a), (b)), default: ((c) ? (a) : (b)))\n"
    "C_INLINE float c_quiet_nanf(uint32_t b) { /* the NaN with |bits| b, quiet */\n"
    "  b |= 0x7fc00000u;\n"
    "  float x;\n"
    "  memcpy(&x, &b, 4);\n"
    "  return x;\n"
    "}\n"
    "/* bf16 values (their f32's top half) as 16-bit integers in the values'\n"
    " * order: a negative one's magnitude bits flipped (-0 just below +0). */\n"
    "C_INLINE int16_t c_bf16_key(float x) {\n"
    "  uint32_t xb;\n"
    "  memcpy(&xb, &x, 4);\n"
    "  uint16_t h = (uint16_t)(xb >> 16);\n"
    "  return (int16_t)(h ^ ((uint16_t)(0u - (h >> 15)) & 0x7fffu));\n"
    "}\n"
    "C_INLINE float c_bf16_from_key(int16_t k) {\n"
    "  uint16_t h = (uint16_t)k;\n"
    "  return coil_bf16_to_f32((uint16_t)(h ^ ((uint16_t)(0u - (h >> 15)) & 0x7fffu)));\n"
    "}\n"
    "C_INLINE uint16_t c_bf16_key_nan(int16_t k) { /* the NaN's |bits| if k is a NaN's key, else 0 */\n"
    "  uint16_t h = (uint16_t)k, a = (uint16_t)(h ^ ((uint16_t)(0u - (h >> 15)) & 0x7fffu)) & 0x7fffu;\n"
    "  return a > 0x7f80u ? a : 0;\n"
    "}\n"
    "/* A lane's max (min) from its keys at both ends: NaN if either end is a\n"
    " * NaN's, the one with the larger |bits|, as the f32 lanes keep it. */\n"
    "C_INLINE float c_bf16_from_keys(int16_t k, int16_t far) {\n"
    "  uint16_t nk = c_bf16_key_nan(k), nf = c_bf16_key_nan(far), n = nk > nf ? nk : nf;\n"
    "  return n ? c_quiet_nanf((uint32_t)n << 16) : c_bf16_from_key(k);\n"
    "}\n"
    "C_INLINE float c_rsqrtf(float x) { return 1.0f / sqrtf(x); }\n"
    "#ifdef __FMA__\n"
    "#define c_fma(a, b, c) fmaf(a, b, c)\n"
    "#else\n"
    "#define c_fma(a, b, c) ((a) * (b) + (c))\n"
    "#endif\n"
    ;
/* powf from c_logd and c_expd, so that a loop with a power vectorises (libm's
 * powf is a call: x ** 1.5 ran at 0.05 of the read ceiling).  b log|a| in
 * double is off by about |b log a| 2^-52, below 2^-43 for any float result,
 * so its e^ rounds to the float nearest a^b but where a^b lies within 2^-43
 * of a tie (tests/unit/mathf_test.c measures it against libm's powf: within
 * 0.5 ulp of the exact power).  C's special cases by bit masks: b == 0, a == 1
 * and |a| == 1 with b = +-inf give 1 (NaNs included); a finite negative a
 * and a non-integer b give NaN; a negative a (or -0) and an odd integer b
 * negate (-0 ** -3 is -inf).  (The Triton targets' coil_pow is the same
 * computation in f64.) */
/* Arg-reductions (coil.h: KRed.idx); printed with the kernels of a
 * program that has one (emit_c_kernels). */
static const char prelude_argred[] =
    "/* Arg-reductions' accumulators: (value, position) pairs.  c_argmax_T(a, b)\n"
    " * is the pair with the larger value, a NaN above every number, and of equal\n"
    " * values or two NaNs the lower position (PyTorch's first index); c_argmin_T\n"
    " * the smaller, a NaN below every number.  Associative and commutative, so\n"
    " * lanes, blocks and split parts combine in any order. */\n"
    "typedef struct { float v; int64_t i; } c_argf;\n"
    "typedef struct { double v; int64_t i; } c_argd;\n"
    "typedef struct { int64_t v; int64_t i; } c_argl;\n"
    "typedef struct { int v; int64_t i; } c_argi;\n"
    "#define C_ARG_FLOAT(T, NAME, CMP) \\\n"
    "  C_INLINE T NAME(T a, T b) { \\\n"
    "    int an = a.v != a.v, bn = b.v != b.v; \\\n"
    "    int take = bn ? !an || b.i < a.i : !an && (b.v CMP a.v || (b.v == a.v && b.i < a.i)); \\\n"
    "    return take ? b : a; \\\n"
    "  }\n"
    "#define C_ARG_INT(T, NAME, CMP) \\\n"
    "  C_INLINE T NAME(T a, T b) { return b.v CMP a.v || (b.v == a.v && b.i < a.i) ? b : a; }\n"
    "C_ARG_FLOAT(c_argf, c_argmax_f, >)\n"
    "C_ARG_FLOAT(c_argf, c_argmin_f, <)\n"
    "C_ARG_FLOAT(c_argd, c_argmax_d, >)\n"
    "C_ARG_FLOAT(c_argd, c_argmin_d, <)\n"
    "C_ARG_INT(c_argl, c_argmax_l, >)\n"
    "C_ARG_INT(c_argl, c_argmin_l, <)\n"
    "C_ARG_INT(c_argi, c_argmax_i, >)\n"
    "C_ARG_INT(c_argi, c_argmin_i, <)\n";

static const char prelude_powf[] =
    "C_INLINE float c_powf(float a, float b) {\n"
    "  float r = (float)c_expd((double)b * c_logd((double)fabsf(a)));\n"
    "  float h = 0.5f * b;\n"
    "  /* The special cases as bit masks, as c_logf's: gcc 12 made some ?: here branches. */\n"
    "  /* rintf, not floorf: gcc 12 vectorises only the first (either tells an integer) */\n"
    "  uint32_t whole = 0u - (uint32_t)(rintf(b) == b), odd = whole & (0u - (uint32_t)(rintf(h) != h)); /* +-inf: whole, even */\n"
    "  uint32_t neg = 0u - (uint32_t)(a < 0.0f), finite = 0u - (uint32_t)(fabsf(a) < INFINITY), rb, ab;\n"
    "  uint32_t one = 0u - (uint32_t)((b == 0.0f) | (a == 1.0f) | ((fabsf(a) == 1.0f) & (fabsf(b) == INFINITY)));\n"
    "  uint32_t nan_ = neg & finite & ~whole & ~one;\n"
    "  memcpy(&rb, &r, 4);\n"
    "  memcpy(&ab, &a, 4);\n"
    "  rb ^= ab & odd & 0x80000000u; /* a negative a (or -0) to an odd power */\n"
    "  rb = (rb & ~(nan_ | one)) | (0x7fc00000u & nan_) | (0x3f800000u & one);\n"
    "  memcpy(&r, &rb, 4);\n"
    "  return r;\n"
    "}\n";

/* tanh for doubles, as c_tanhf (libm's is a call: an f64 row sum of tanh
 * stayed scalar): below 0.625, Cephes' odd rational a + a^3 P(a^2)/Q(a^2);
 * above, 1 - 2/(e^{2|x|} + 1), at least 0.55 there, so the subtraction
 * loses nothing, and e^{2|x|} = inf gives 1; the sign of x last (-0 stays
 * -0).  tests/unit/mathd_test.c measures it against tanhl. */
static const char prelude_tanhd[] =
    "C_INLINE double c_tanhd(double x) {\n"
    "  double a = fabs(x), z = x * x;\n"
    "  double p = c_fmad(c_fmad(-9.64399179425052238628e-1, z, -9.92877231001918586564e1), z, -1.61468768441708447952e3);\n"
    "  double q = c_fmad(c_fmad(c_fmad(z, 1.0, 1.12811678491632931402e2), z, 2.23548839060100448583e3), z,\n"
    "                    4.84406305325125486048e3);\n"
    "  double small = c_fmad(a * z, p / q, a);\n"
    "  double big = 1.0 - 2.0 / (c_expd(2.0 * a) + 1.0);\n"
    "  uint64_t sb, bb, xb, lo = 0u - (uint64_t)(a < 0.625); /* masks: gcc 12 left a double ?: here a branch */\n"
    "  memcpy(&sb, &small, 8);\n"
    "  memcpy(&bb, &big, 8);\n"
    "  memcpy(&xb, &x, 8);\n"
    "  sb = ((sb & lo) | (bb & ~lo)) ^ (xb & UINT64_C(0x8000000000000000)); /* both are >= 0 (or NaN): x's sign */\n"
    "  memcpy(&small, &sb, 8);\n"
    "  return small;\n"
    "}\n";

/* After the expf (below). */
static const char prelude3[] =
    "C_INLINE double c_rsqrtd(double x) { return 1.0 / sqrt(x); }\n"
    "/* sigmoid(x) from e = e^-|x|: s = 1 / (1 + e), with the rounding error of\n"
    " * 1 + e (exactly (1 - t) + e, as e <= 1) taken back out, 1 / (t + d) ~\n"
    " * r - r^2 d; for x < 0, e s.  Without the correction sigmoid(17) is 1\n"
    " * (1 + 4e-8 rounds to 1), not 1 - 2^-24; e^-|x| never overflows, so\n"
    " * sigmoid(-100) is the subnormal it is, not 1 / inf.  The select is a\n"
    " * bit mask: gcc 12 makes x >= 0 ? s : e * s a branch (e * s may trap),\n"
    " * and without AVX-512's masks it then leaves the loop scalar. */\n"
    "C_INLINE float c_sigmoidf_of(float x, float e) {\n"
    "  float t = 1.0f + e, r = 1.0f / t, d = (1.0f - t) + e;\n"
    "  float s = c_fma(-r * d, r, r), es = e * s;\n"
    "  uint32_t sb, eb, pos = 0u - (uint32_t)(x >= 0.0f); /* NaN: e * s, NaN */\n"
    "  memcpy(&sb, &s, 4);\n"
    "  memcpy(&eb, &es, 4);\n"
    "  sb = (sb & pos) | (eb & ~pos);\n"
    "  memcpy(&s, &sb, 4);\n"
    "  return s;\n"
    "}\n"
    "C_INLINE float c_sigmoidf(float x) { return c_sigmoidf_of(x, c_expf(-fabsf(x))); }\n"
    "C_INLINE float c_sigmoidf_fast(float x) { return c_sigmoidf_of(x, c_expf_fast(-fabsf(x))); }\n"
    "C_INLINE uint32_t c_sigmoidf_key(float x) { return c_expf_key(x); } /* e^-x: the range is symmetric */\n"
    "#define C_SIGMOIDF_KEY_MAX C_EXPF_KEY_MAX\n"
    "C_INLINE uint32_t c_sigmoidf_off(float x) { return c_expf_off(x); }\n"
    "C_INLINE double c_sigmoidd_of(double x, double e) { /* as c_sigmoidf_of */\n"
    "  double t = 1.0 + e, r = 1.0 / t, d = (1.0 - t) + e;\n"
    "  double s = c_fmad(-r * d, r, r), es = e * s;\n"
    "  uint64_t sb, eb, pos = 0u - (uint64_t)(x >= 0.0);\n"
    "  memcpy(&sb, &s, 8);\n"
    "  memcpy(&eb, &es, 8);\n"
    "  sb = (sb & pos) | (eb & ~pos);\n"
    "  memcpy(&s, &sb, 8);\n"
    "  return s;\n"
    "}\n"
    "C_INLINE double c_sigmoidd(double x) { return c_sigmoidd_of(x, c_expd(-fabs(x))); }\n"
    "C_INLINE double c_sigmoidd_fast(double x) { return c_sigmoidd_of(x, c_expd_fast(-fabs(x))); }\n"
    "C_INLINE uint64_t c_sigmoidd_key(double x) { return c_expd_key(x); }\n"
    "#define C_SIGMOIDD_KEY_MAX C_EXPD_KEY_MAX\n"
    "C_INLINE uint64_t c_sigmoidd_off(double x) { return c_expd_off(x); }\n"
    "C_INLINE int64_t c_ipow(int64_t b, int64_t e) { int64_t r = 1; if (e < 0) return b == 1 ? 1 : b == -1 ? (e & 1 ? -1 : 1) : 0;\n"
    "  while (e) { if (e & 1) r = (int64_t)((uint64_t)r * (uint64_t)b); b = (int64_t)((uint64_t)b * (uint64_t)b); e >>= 1; } return r; }\n"
    "C_INLINE int32_t c_f2i32(double x) { return x != x || x >= 2147483648.0 || x < -2147483648.0 ? INT32_MIN : (int32_t)x; }\n"
    "C_INLINE int64_t c_f2i64(double x) { return x != x || x >= 9223372036854775808.0 || x < -9223372036854775808.0 ? INT64_MIN : (int64_t)x; }\n"
    "C_INLINE int64_t c_iabs(int64_t x) { return x < 0 ? (int64_t)(0 - (uint64_t)x) : x; }\n"
    "#define c_exp(x) _Generic((x), float: c_expf, double: c_expd, default: exp)(x)\n"
    "#define c_log(x) _Generic((x), float: c_logf, double: c_logd, default: log)(x)\n"
    "#define c_sqrt(x) _Generic((x), float: sqrtf, default: sqrt)(x)\n"
    "#define c_erf(x) _Generic((x), float: erff, default: erf)(x)\n"
    "#define c_sin(x) _Generic((x), float: sinf, default: sin)(x)\n"
    "#define c_cos(x) _Generic((x), float: cosf, default: cos)(x)\n"
    "#define c_exp2(x) _Generic((x), float: exp2f, default: exp2)(x)\n"
    "#define c_log2(x) _Generic((x), float: log2f, default: log2)(x)\n"
    "#define c_floor(x) _Generic((x), float: floorf, default: floor)(x)\n"
    "#define c_ceil(x) _Generic((x), float: ceilf, default: ceil)(x)\n"
    "#define c_tanh(x) _Generic((x), float: c_tanhf, default: c_tanhd)(x)\n"
    "#define c_rsqrt(x) _Generic((x), float: c_rsqrtf, default: c_rsqrtd)(x)\n"
    "#define c_sigmoid(x) _Generic((x), float: c_sigmoidf, default: c_sigmoidd)(x)\n"
    "#define c_abs(x) _Generic((x), float: fabsf, double: fabs, default: c_iabs)(x)\n"
    "#define c_pow(a, b) _Generic((a), float: c_powf, double: pow, default: c_ipow)((a), (b))\n";

/* expf without branches or calls, so that loops using it vectorise; about 1
 * ulp over the whole float range, subnormal results included (measured over
 * every float; tests/unit/mathf_test.c checks it against libm).  Per value:
 * 17 operations and one compare, against 21 and four compares for the
 * Cephes-based version it replaced (a row of exp(x - max) over bf16 takes
 * 15.4 instead of 21.5 cycles per 16 values on the development machine).
 *   k = round(x / ln 2): adding 1.5 * 2^23 + 254 leaves k + 254 in t's low bits.
 *   r = x - k ln 2 in two steps (Cody-Waite; ln 2's high part has 9 bits, so
 *     the first step is exact), |r| <= ln2 / 2.
 *   e^r = 1 + r + r^2 q(r): q of degree 4, minimax for the relative error of
 *     e^r on [-0.3466, 0.3466] (2^-28.3; degree 3 would be 2^-23.2).
 *   2^k in two halves, 2^floor(k/2) and 2^ceil(k/2), each a normal number
 *     built from t's bits: a subnormal result is rounded by the last multiply
 *     alone, and k up to 254 overflows to inf.
 * Range without compares: t's bits are capped at k = 254 (x > 176, +inf: r
 * is then positive and the result inf); x < -104 (exp rounds to 0; -inf)
 * selects 0 at the end, the one compare; a NaN x makes r, and so the
 * result, NaN. */
/* logf and tanhf, for the same reason: libm's are calls, which keep a loop
 * scalar (a row sum of tanh ran at 0.01 of the read ceiling, of log at
 * 0.07; now 0.35 and 0.31, tests/unit/mathf_test.c checks them over every
 * float's sample: logf within 1.15 ulp, tanhf 1.5).
 *   logf: x = 2^e m, m in [sqrt(1/2), sqrt(2)) from the bits (a subnormal
 *     x scaled by 2^23 first, the scale chosen by a bit mask: no float
 *     arithmetic); f = m - 1 exactly; log m = f - f^2/2 + f^3 q(f), q of
 *     degree 7 fitted by tools/fit_poly.py (relative error 2^-26.9; degree
 *     6, 2^-24.8, gave 1.50 ulp and only 5% more speed); f - f^2/2 is one
 *     fma, f^3 q is added to it in a second and e ln 2 in a third, so the
 *     result is rounded once more.  ln 2 in one float is enough inside that
 *     fma: its error, 1.4e-9 |e|, stays below 0.05 ulp of e ln 2 + log m
 *     for every e.  (Splitting it, as before, cost a multiply; the whole
 *     log is 10% faster in 16_entropy: 14 instead of 17 operations on the
 *     multiply pipes.)  Zero, negatives, inf and NaN are put in by bit
 *     masks at the end.
 *   tanhf: for |x| < 0.55 the odd polynomial |x| + |x|^3 p(x^2), p of
 *     degree 4 (tools/fit_poly.py, 2^-27.8); above, 1 - 2/(e^{2|x|} + 1),
 *     which is then at least 0.5, so the subtraction loses nothing and
 *     e^{2|x|} = inf gives 1; the sign of x is put back last (tanh(-0) is
 *     -0).
 * Fast forms (CSched.fast_math, sched.c): the same functions with their
 * range handling taken out, each with a check of its range (_off), also
 * as a key (_key, above _KEY_MAX off the range) that loops max per lane.
 *   c_expf_fast: |x| <= 87, so e^x is normal and 2^k, k in [-126, 126],
 *     is one normal number: t's magic 1.5 * 2^23 + 127 leaves k + 127 in
 *     its low bits (c_expf's, + 254, gives the same k: x log2(e) is never
 *     half an odd integer for |x| <= 87, so the two never round a tie
 *     apart), and fma(p, s, s) rounds (1 + p) 2^k once, as c_expf's
 *     fma(p, s1, s1) * s2 does for a normal result.  Same bits.
 *   c_logf_fast: x normal and positive, where c_logf's subnormal scale is
 *     1 and its masks select nothing.  Same bits.
 *   c_sigmoidf_fast: c_sigmoidf_of on c_expf_fast(-|x|), on c_expf_fast's
 *     range.
 *   c_expd_fast, c_logd_fast, c_sigmoidd_fast: the same for doubles
 *     (|x| <= 708; normal positive x; the magic 1.5 * 2^52 + 1023).
 *   tests/unit/mathf_test.c and mathd_test.c check both claims, the bits
 *   and the ranges. */
static const char prelude_expf[] =
    "/* expf: about 1 ulp over the whole range, no branches (see src/cpu/emit.c) */\n"
    "C_INLINE float c_expf_m1(float x, float k) { /* e^r - 1, r = x - k ln 2 */\n"
    "  float r = c_fma(k, -0.693359375f, x);\n"
    "  r = c_fma(k, 2.12194440e-4f, r);\n"
    "  float q = c_fma(c_fma(c_fma(c_fma(1.38146023e-3f, r, 8.36871564e-3f), r, 4.16683890e-2f), r, 1.66665211e-1f), r,\n"
    "                  0.49999994f);\n"
    "  return c_fma(q, r * r, r);\n"
    "}\n"
    "C_INLINE float c_expf(float x) {\n"
    "  float t = c_fma(x, 1.44269504088896341f, 12583166.0f);\n"
    "  int32_t ti;\n"
    "  memcpy(&ti, &t, 4);\n"
    "  ti = ti < 0x4b4001fc ? ti : 0x4b4001fc; /* k <= 254 */\n"
    "  memcpy(&t, &ti, 4);\n"
    "  float p = c_expf_m1(x, t - 12583166.0f);\n"
    "  uint32_t u = (uint32_t)ti, u1 = (u >> 1) << 23, u2 = (u << 23) - u1; /* 2^floor(k/2), 2^ceil(k/2) */\n"
    "  float s1, s2;\n"
    "  memcpy(&s1, &u1, 4);\n"
    "  memcpy(&s2, &u2, 4);\n"
    "  float y = c_fma(p, s1, s1) * s2;\n"
    "  uint32_t yb, under = 0u - (uint32_t)(x < -104.0f); /* a mask, as in c_expd: ?: leaves AVX2 loops scalar */\n"
    "  memcpy(&yb, &y, 4);\n"
    "  yb &= ~under;\n"
    "  memcpy(&y, &yb, 4);\n"
    "  return y;\n"
    "}\n"
    "/* c_expf where |x| <= 87 (e^x normal; c_expf_off says where not): 2^k in one piece. */\n"
    "C_INLINE float c_expf_fast(float x) {\n"
    "  float t = c_fma(x, 1.44269504088896341f, 12583039.0f);\n"
    "  int32_t ti;\n"
    "  memcpy(&ti, &t, 4);\n"
    "  float p = c_expf_m1(x, t - 12583039.0f);\n"
    "  uint32_t u = (uint32_t)ti << 23; /* 2^k: k + 127 in t's low bits */\n"
    "  float s;\n"
    "  memcpy(&s, &u, 4);\n"
    "  return c_fma(p, s, s);\n"
    "}\n"
    "/* A fast form's range check as a key: x is off the range when its key is\n"
    " * above <NAME>_KEY_MAX, so a loop keeps the largest key per lane (an\n"
    " * unsigned max) and compares once after the loop.  Here: |x|'s bits. */\n"
    "C_INLINE uint32_t c_expf_key(float x) { return c_absbitsf(x); }\n"
    "#define C_EXPF_KEY_MAX 0x42ae0000u /* 87.0f; inf and NaN are above */\n"
    "C_INLINE uint32_t c_expf_off(float x) { return c_expf_key(x) > C_EXPF_KEY_MAX; }\n"
    ;
/* e^x's range check where x <= 0 or NaN is known (x - amax(x): the kernel
 * dump's "(<= 0)", graph_nonpositive): x's own bits, one unsigned max a
 * vector where |x|'s take a mask too (logsumexp of bf16 rows: about 5%).  A
 * negative float's bits grow with its magnitude, so x < -87 (-708), -inf
 * and a negative NaN are above the key's max; 0 and a positive NaN are below
 * it, and the fast form gives NaN for a NaN. */
static const char prelude_exp_nonpos[] =
    "C_INLINE uint32_t c_expf_nonpos_key(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }\n"
    "#define C_EXPF_NONPOS_KEY_MAX 0xc2ae0000u /* -87.0f */\n"
    "C_INLINE uint32_t c_expf_nonpos_off(float x) { return c_expf_nonpos_key(x) > C_EXPF_NONPOS_KEY_MAX; }\n"
    "C_INLINE uint64_t c_expd_nonpos_key(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }\n"
    "#define C_EXPD_NONPOS_KEY_MAX UINT64_C(0xc086200000000000) /* -708.0 */\n"
    "C_INLINE uint64_t c_expd_nonpos_off(double x) { return c_expd_nonpos_key(x) > C_EXPD_NONPOS_KEY_MAX; }\n";
/* After the expf (one string each: C11 compilers need only take 4095 characters). */
static const char prelude_logf[] =
    "/* logf and tanhf: no calls, so loops using them vectorise (see src/cpu/emit.c) */\n"
    "C_INLINE float c_logf_m(int32_t ix, int32_t eadj) { /* log of the float with bits ix, times 2^-eadj */\n"
    "  int32_t d = ix - 0x3f3504f3, mb = (d & 0x007fffff) + 0x3f3504f3; /* m in [sqrt(1/2), sqrt(2)) */\n"
    "  float m, e = (float)((d >> 23) - eadj);\n"
    "  memcpy(&m, &mb, 4);\n"
    "  float f = m - 1.0f;\n"
    "  float q = c_fma(c_fma(c_fma(c_fma(c_fma(c_fma(c_fma(-7.634429634e-02f, f, 1.276154965e-01f), f, -1.316019446e-01f), f,\n"
    "                  1.420176178e-01f), f, -1.662335694e-01f), f, 2.000122666e-01f), f, -2.500082254e-01f), f, 3.333333135e-01f);\n"
    "  float r = c_fma(-0.5f * f, f, f); /* f - f^2/2, rounded once */\n"
    "  return c_fma(e, 0.693147182f, c_fma(f * f * f, q, r)); /* e ln 2 + log m, rounded once */\n"
    "}\n"
    "C_INLINE float c_logf(float x) {\n"
    "  uint32_t sub = 0u - (uint32_t)(x < 0x1p-126f), scb = 0x3f800000u + (sub & 0x0b800000u); /* subnormal: scale by 2^23 */\n"
    "  float sc, xs;\n"
    "  memcpy(&sc, &scb, 4);\n"
    "  xs = x * sc;\n"
    "  int32_t ix;\n"
    "  memcpy(&ix, &xs, 4);\n"
    "  float y = c_logf_m(ix, (int32_t)(sub & 23u));\n"
    "  uint32_t yb, xb, nan_ = 0u - (uint32_t)((x < 0.0f) | (x != x)), zero = 0u - (uint32_t)(x == 0.0f),\n"
    "           inf = 0u - (uint32_t)(x == INFINITY); /* masks: float selects here would stop gcc vectorising */\n"
    "  memcpy(&yb, &y, 4);\n"
    "  memcpy(&xb, &x, 4);\n"
    "  yb = (yb & ~(nan_ | zero | inf)) | (0x7fc00000u & nan_) | (0xff800000u & zero) | (xb & inf);\n"
    "  memcpy(&y, &yb, 4);\n"
    "  return y;\n"
    "}\n"
    "/* c_logf where x is normal and positive (c_logf_off says where not). */\n"
    "C_INLINE float c_logf_fast(float x) {\n"
    "  int32_t ix;\n"
    "  memcpy(&ix, &x, 4);\n"
    "  return c_logf_m(ix, 0);\n"
    "}\n"
    "C_INLINE uint32_t c_logf_key(float x) {\n"
    "  uint32_t xb;\n"
    "  memcpy(&xb, &x, 4);\n"
    "  return xb - 0x00800000u; /* [2^-126, inf) to [0, KEY_MAX]; 0, subnormals, negatives, inf, NaN above */\n"
    "}\n"
    "#define C_LOGF_KEY_MAX 0x7effffffu\n"
    "C_INLINE uint32_t c_logf_off(float x) { return c_logf_key(x) > C_LOGF_KEY_MAX; }\n"
    "C_INLINE float c_tanhf(float x) {\n"
    "  float a = fabsf(x), z = x * x;\n"
    "  float p = c_fma(c_fma(c_fma(c_fma(-6.274243351e-03f, z, 2.107168175e-02f), z, -5.385231227e-02f), z, 1.333258599e-01f), z,\n"
    "                  -3.333331645e-01f);\n"
    "  float small = c_fma(a * z, p, a); /* a + a^3 p(a^2) */\n"
    "  float big = 1.0f - 2.0f / (c_expf(2.0f * a) + 1.0f);\n"
    "  uint32_t sb, bb, xb, lo = 0u - (uint32_t)(a < 0.55f); /* masks, as in c_tanhd */\n"
    "  memcpy(&sb, &small, 4);\n"
    "  memcpy(&bb, &big, 4);\n"
    "  memcpy(&xb, &x, 4);\n"
    "  sb = ((sb & lo) | (bb & ~lo)) ^ (xb & 0x80000000u); /* odd, -0 included: both are >= 0 (or NaN) */\n"
    "  memcpy(&small, &sb, 4);\n"
    "  return small;\n"
    "}\n";

/* exp for doubles, for the same reason and in the same way as c_expf:
 * k = round(x / ln 2) from the low bits of t (1.5 * 2^52 + 2046 leaves
 * k + 2046 there); r = x - k ln 2 in two steps (ln 2's high part has 32
 * bits, so k ln2_hi is exact and the first step too); e^r - 1 = r + r^2
 * q(r), q the Taylor polynomial of degree 11 (through r^13 / 13!: the
 * truncation is below 2^-57 for |r| <= ln2 / 2); 2^k in two normal
 * halves, so subnormal results round in the last multiply and k up to
 * 2046 overflows to inf; x < -746 (exp rounds to 0; -inf) selects 0.
 * tests/unit/mathd_test.c measures it against expl.
 * log for doubles: x = 2^e m, m in [sqrt(1/2), sqrt(2)) from the bits (a
 * subnormal x scaled by 2^52 first, chosen by a bit mask as in c_logf);
 * f = m - 1 exactly; with s = f / (2 + f), log(1 + f) = 2 atanh(s) =
 * f - (f^2/2 - s (f^2/2 + R)), R = sum over k >= 1 of 2 s^2k / (2k + 1),
 * through s^22 (|s| <= 0.1716: the rest is below 2^-60 of R, which itself
 * weighs at most a hundredth of the result); the leading f is exact and
 * the correction small, so the result is rounded about once; e ln 2 in
 * two parts (the high one with 32 bits: e ln2_hi is exact).  Zero,
 * negatives, inf and NaN by bit masks at the end. */
static const char prelude_expd[] =
    "#ifdef __FMA__\n"
    "#define c_fmad(a, b, c) fma(a, b, c)\n"
    "#else\n"
    "#define c_fmad(a, b, c) ((a) * (b) + (c))\n"
    "#endif\n"
    "C_INLINE double c_expd_m1(double x, double k) { /* e^r - 1, r = x - k ln 2 */\n"
    "  double r = c_fmad(k, -0.6931471803691238, x);\n"
    "  r = c_fmad(k, -1.9082149292705877e-10, r);\n"
    "  double q = c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(\n"
    "      1.6059043836821613e-10, r, 2.08767569878681e-09), r, 2.505210838544172e-08), r, 2.755731922398589e-07), r,\n"
    "      2.7557319223985893e-06), r, 2.48015873015873e-05), r, 0.0001984126984126984), r, 0.001388888888888889), r,\n"
    "      0.008333333333333333), r, 0.041666666666666664), r, 0.16666666666666666), r, 0.5);\n"
    "  return c_fmad(q, r * r, r);\n"
    "}\n"
    "C_INLINE double c_expd(double x) {\n"
    "  double t = c_fmad(x, 1.4426950408889634, 6755399441057790.0);\n"
    "  int64_t ti;\n"
    "  memcpy(&ti, &t, 8);\n"
    "  ti = ti < INT64_C(0x4338000000000ffc) ? ti : INT64_C(0x4338000000000ffc); /* k <= 2046 */\n"
    "  memcpy(&t, &ti, 8);\n"
    "  double p = c_expd_m1(x, t - 6755399441057790.0);\n"
    "  uint64_t u = (uint64_t)ti & 0xfffu, u1 = (u >> 1) << 52, u2 = (u << 52) - u1; /* 2^floor(k/2), 2^ceil(k/2) */\n"
    "  double s1, s2;\n"
    "  memcpy(&s1, &u1, 8);\n"
    "  memcpy(&s2, &u2, 8);\n"
    "  double y = c_fmad(p, s1, s1) * s2;\n"
    "  uint64_t yb, under = 0u - (uint64_t)(x < -746.0); /* a mask: gcc 12 vectorises no double ?: in a float loop */\n"
    "  memcpy(&yb, &y, 8);\n"
    "  yb &= ~under;\n"
    "  memcpy(&y, &yb, 8);\n"
    "  return y;\n"
    "}\n";
/* After c_expd (one string each, as prelude_logf). */
static const char prelude_logd[] =
    "C_INLINE double c_logd_m(int64_t ix, int64_t eadj) { /* log of the double with bits ix, times 2^-eadj */\n"
    "  int64_t d = ix - INT64_C(0x3fe6a09e667f3bcd), mb = (d & INT64_C(0x000fffffffffffff)) + INT64_C(0x3fe6a09e667f3bcd);\n"
    "  int64_t eb = (d >> 52) - eadj + INT64_C(0x4338000000000000); /* e + 1.5 * 2^52: AVX2 converts no int64 */\n"
    "  double m, e;\n"
    "  memcpy(&e, &eb, 8);\n"
    "  e -= 6755399441055744.0;\n"
    "  memcpy(&m, &mb, 8);\n"
    "  double f = m - 1.0, s = f / (2.0 + f), z = s * s, hfsq = 0.5 * f * f;\n"
    "  double R = z * c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(c_fmad(0.08695652173913043, z,\n"
    "      0.09523809523809523), z, 0.10526315789473684), z, 0.11764705882352941), z, 0.13333333333333333), z,\n"
    "      0.15384615384615385), z, 0.18181818181818182), z, 0.2222222222222222), z, 0.2857142857142857), z, 0.4), z,\n"
    "      0.6666666666666666);\n"
    "  return c_fmad(e, 0.6931471803691238, f - (hfsq - c_fmad(s, hfsq + R, e * 1.9082149292705877e-10)));\n"
    "}\n"
    "C_INLINE double c_logd(double x) {\n"
    "  uint64_t sub = 0u - (uint64_t)(x < 0x1p-1022), scb = UINT64_C(0x3ff0000000000000) + (sub & UINT64_C(0x0340000000000000));\n"
    "  double sc, xs;\n"
    "  memcpy(&sc, &scb, 8); /* 1, or 2^52 for a subnormal x */\n"
    "  xs = x * sc;\n"
    "  int64_t ix;\n"
    "  memcpy(&ix, &xs, 8);\n"
    "  double y = c_logd_m(ix, (int64_t)(sub & 52u));\n"
    "  uint64_t yb, xb, nan_ = 0u - (uint64_t)((x < 0.0) | (x != x)), zero = 0u - (uint64_t)(x == 0.0),\n"
    "           inf = 0u - (uint64_t)(x == INFINITY); /* masks, as in c_logf */\n"
    "  memcpy(&yb, &y, 8);\n"
    "  memcpy(&xb, &x, 8);\n"
    "  yb = (yb & ~(nan_ | zero | inf)) | (UINT64_C(0x7ff8000000000000) & nan_) | (UINT64_C(0xfff0000000000000) & zero) | (xb & inf);\n"
    "  memcpy(&y, &yb, 8);\n"
    "  return y;\n"
    "}\n"
    "/* Fast forms, as c_expf_fast and c_logf_fast. */\n"
    "C_INLINE double c_expd_fast(double x) { /* |x| <= 708: e^x normal */\n"
    "  double t = c_fmad(x, 1.4426950408889634, 6755399441056767.0);\n"
    "  int64_t ti;\n"
    "  memcpy(&ti, &t, 8);\n"
    "  double p = c_expd_m1(x, t - 6755399441056767.0);\n"
    "  uint64_t u = (uint64_t)ti << 52; /* 2^k: k + 1023 in t's low bits */\n"
    "  double s;\n"
    "  memcpy(&s, &u, 8);\n"
    "  return c_fmad(p, s, s);\n"
    "}\n"
    "C_INLINE uint64_t c_expd_key(double x) {\n"
    "  uint64_t xb;\n"
    "  memcpy(&xb, &x, 8);\n"
    "  return xb & UINT64_C(0x7fffffffffffffff);\n"
    "}\n"
    "#define C_EXPD_KEY_MAX UINT64_C(0x4086200000000000) /* 708.0 */\n"
    "C_INLINE uint64_t c_expd_off(double x) { return c_expd_key(x) > C_EXPD_KEY_MAX; }\n"
    "C_INLINE double c_logd_fast(double x) {\n"
    "  int64_t ix;\n"
    "  memcpy(&ix, &x, 8);\n"
    "  return c_logd_m(ix, 0);\n"
    "}\n"
    "C_INLINE uint64_t c_logd_key(double x) {\n"
    "  uint64_t xb;\n"
    "  memcpy(&xb, &x, 8);\n"
    "  return xb - UINT64_C(0x0010000000000000); /* [2^-1022, inf) to [0, KEY_MAX] */\n"
    "}\n"
    "#define C_LOGD_KEY_MAX UINT64_C(0x7fdfffffffffffff)\n"
    "C_INLINE uint64_t c_logd_off(double x) { return c_logd_key(x) > C_LOGD_KEY_MAX; }\n";

/* The rest of model code's math: tan, the inverse and hyperbolic
 * functions, erfc, expm1, log10, log1p, atan2, hypot are libm's.  A call
 * keeps a loop scalar; where jit.c finds SLEEF's GNU vector ABI library
 * (libsleefgnuabi: the vector math PyTorch's CPU kernels use, 1 ulp) it
 * defines COIL_SLEEF and links it, and these declarations let gcc call its
 * _ZGV*_tanf-style vector versions from a vectorised loop (2-6x faster than
 * libm's calls, the same bits as PyTorch where the SLEEF versions agree;
 * glibc's libmvec, with the same names, is up to 3 ulp off: docs/bench.md,
 * "Vector math libraries").  fmod stays libm's, exact (SLEEF's is not where
 * x / y overflows), and so do asinh and acosh (SLEEF's overflow from
 * |x| = 1.8e19 where the value is 44; PyTorch calls libm's too), and sinh
 * and cosh (SLEEF's overflow from |x| = 88.7, e^|x|, where the value is
 * e^|x| / 2, finite up to 89.4; tests/run/math2.py's unary_edges, whose
 * loop stayed scalar until c_where let it vectorise).  erfinv, which libm lacks, is dtype.c's coil_erfinv
 * (1 ulp in double; for floats rounded once, within 1 ulp of PyTorch's).  Integer %, /
 * and shifts: see src/ops.h (x % 0 and x / 0 are 0, MIN / -1 wraps; shifts
 * out of range give 0 or the sign, as PyTorch's). */
static const char prelude_math2[] =
    "#if defined(COIL_SLEEF) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)\n"
    "#define C_SIMD1(n) __attribute__((simd(\"notinbranch\"))) float n##f(float); __attribute__((simd(\"notinbranch\"))) double n(double);\n"
    "#define C_SIMD2(n) __attribute__((simd(\"notinbranch\"))) float n##f(float, float); __attribute__((simd(\"notinbranch\"))) double n(double, double);\n"
    "C_SIMD1(tan) C_SIMD1(asin) C_SIMD1(acos) C_SIMD1(atan) C_SIMD1(atanh)\n"
    "C_SIMD1(erfc) C_SIMD1(expm1) C_SIMD1(log10) C_SIMD1(log1p) C_SIMD2(atan2) C_SIMD2(hypot)\n"
    "#endif\n"
    "#define c_tan(x) _Generic((x), float: tanf, default: tan)(x)\n"
    "#define c_asin(x) _Generic((x), float: asinf, default: asin)(x)\n"
    "#define c_acos(x) _Generic((x), float: acosf, default: acos)(x)\n"
    "#define c_atan(x) _Generic((x), float: atanf, default: atan)(x)\n"
    "#define c_sinh(x) _Generic((x), float: c_sinhf, default: c_sinhd)(x)\n"
    "#define c_cosh(x) _Generic((x), float: c_coshf, default: c_coshd)(x)\n"
    "#define c_asinh(x) _Generic((x), float: c_asinhf, default: c_asinhd)(x)\n"
    "#define c_acosh(x) _Generic((x), float: c_acoshf, default: c_acoshd)(x)\n"
    "#define c_atanh(x) _Generic((x), float: atanhf, default: atanh)(x)\n"
    "#define c_erfc(x) _Generic((x), float: erfcf, default: erfc)(x)\n"
    "#define c_expm1(x) _Generic((x), float: expm1f, default: expm1)(x)\n"
    "#define c_log10(x) _Generic((x), float: log10f, default: log10)(x)\n"
    "#define c_log1p(x) _Generic((x), float: log1pf, default: log1p)(x)\n"
    "#define c_atan2(a, b) _Generic((a), float: atan2f, default: atan2)((a), (b))\n"
    "#define c_hypot(a, b) _Generic((a), float: hypotf, default: hypot)((a), (b))\n"
    "#define c_copysign(a, b) _Generic((a), float: copysignf, default: copysign)((a), (b))\n";
/* erfinv (it branches) and libm's sinh, cosh, asinh, acosh, fmod as functions with simd
 * clones of their own, not inlined: a call without one would keep the
 * whole loop around it scalar (with the clones, gcc's, which run the
 * lanes one by one, the rest of the loop is vector). */
static const char prelude_math3[] =
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)\n"
    "#define C_SIMD_DEF __attribute__((simd(\"notinbranch\"), noinline))\n"
    "#else\n"
    "#define C_SIMD_DEF\n"
    "#endif\n"
    "C_SIMD_DEF static double c_erfinvd(double y) { /* as dtype.c's coil_erfinv */\n"
    "  double ya = fabs(y), x, z, num, dem;\n"
    "  if (ya > 1.0) return NAN;\n"
    "  if (ya == 1.0) return copysign(INFINITY, y);\n"
    "  if (ya <= 0.7) {\n"
    "    z = y * y;\n"
    "    num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899;\n"
    "    dem = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0;\n"
    "    x = y * num / dem;\n"
    "  } else {\n"
    "    z = sqrt(-log((1.0 - ya) / 2.0));\n"
    "    num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454;\n"
    "    dem = (1.637067800 * z + 3.543889200) * z + 1.0;\n"
    "    x = copysign(num, y) / dem;\n"
    "  }\n"
    "  if (ya <= 0.5) {\n"
    "    for (int i = 0; i < 3; i++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));\n"
    "    return x;\n"
    "  }\n"
    "  double q = 1.0 - ya, t = fabs(x);\n"
    "  for (int i = 0; i < 3; i++) t += (erfc(t) - q) / (1.1283791670955126 * exp(-t * t));\n"
    "  return copysign(t, y);\n"
    "}\n"
    "C_SIMD_DEF static float c_erfinvf(float y) { return (float)c_erfinvd((double)y); }\n"
    "C_SIMD_DEF static float c_sinhf(float x) { return sinhf(x); }\n"
    "C_SIMD_DEF static double c_sinhd(double x) { return sinh(x); }\n"
    "C_SIMD_DEF static float c_coshf(float x) { return coshf(x); }\n"
    "C_SIMD_DEF static double c_coshd(double x) { return cosh(x); }\n"
    "C_SIMD_DEF static float c_asinhf(float x) { return asinhf(x); }\n"
    "C_SIMD_DEF static double c_asinhd(double x) { return asinh(x); }\n"
    "C_SIMD_DEF static float c_acoshf(float x) { return acoshf(x); }\n"
    "C_SIMD_DEF static double c_acoshd(double x) { return acosh(x); }\n"
    "C_SIMD_DEF static float c_fmodf(float a, float b) { return fmodf(a, b); }\n"
    "C_SIMD_DEF static double c_fmodd(double a, double b) { return fmod(a, b); }\n"
    "#define c_erfinv(x) _Generic((x), float: c_erfinvf, default: c_erfinvd)(x)\n"
    "C_INLINE int32_t c_imod32(int32_t a, int32_t b) { return b == 0 || b == -1 ? 0 : a % b; }\n"
    "C_INLINE int64_t c_imod64(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }\n"
    "#define c_fmod(a, b) _Generic((a), float: c_fmodf, double: c_fmodd, int32_t: c_imod32, default: c_imod64)((a), (b))\n"
    "C_INLINE int32_t c_idiv32(int32_t a, int32_t b) { return b == 0 ? 0 : b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b; }\n"
    "C_INLINE int64_t c_idiv64(int64_t a, int64_t b) { return b == 0 ? 0 : b == -1 ? (int64_t)(0u - (uint64_t)a) : a / b; }\n"
    "#define c_idiv(a, b) _Generic((a), int32_t: c_idiv32, default: c_idiv64)((a), (b))\n"
    "C_INLINE int32_t c_shl32(int32_t a, int32_t b) { return b < 0 || b > 31 ? 0 : (int32_t)((uint32_t)a << b); }\n"
    "C_INLINE int64_t c_shl64(int64_t a, int64_t b) { return b < 0 || b > 63 ? 0 : (int64_t)((uint64_t)a << b); }\n"
    "C_INLINE int32_t c_shr32(int32_t a, int32_t b) { return a >> (b < 0 || b > 31 ? 31 : b); }\n"
    "C_INLINE int64_t c_shr64(int64_t a, int64_t b) { return a >> (b < 0 || b > 63 ? 63 : b); }\n"
    "#define c_shl(a, b) _Generic((a), int32_t: c_shl32, default: c_shl64)((a), (b))\n"
    "#define c_shr(a, b) _Generic((a), int32_t: c_shr32, default: c_shr64)((a), (b))\n";

void emit_c_prelude(StrBuf *sb) {
  sb_puts(sb, prelude);
  sb_puts(sb, prelude_f16n);
  sb_puts(sb, prelude2);
  sb_puts(sb, prelude_expf);
  sb_puts(sb, prelude_logf);
  sb_puts(sb, prelude_expd);
  sb_puts(sb, prelude_logd);
  sb_puts(sb, prelude_exp_nonpos);
  sb_puts(sb, prelude_powf);
  sb_puts(sb, prelude_tanhd);
  sb_puts(sb, prelude3);
  sb_puts(sb, prelude_math2);
  sb_puts(sb, prelude_math3);
  sb_puts(sb, prelude_stream);
}

void emit_c(StrBuf *sb, const Program *p, const CSched *sched, const CChains *chains) {
  emit_c_prelude(sb);
  emit_c_kernels(sb, p, sched, chains);
}

void emit_c_kernels(StrBuf *sb, const Program *p, const CSched *sched, const CChains *chains) {
  /* The arg-reductions' pair types and combines, before the first kernel
   * that has one (once in a file of several programs). */
  bool argred = false;
  for (int i = 0; i < p->nkernels; i++)
    for (int r = 0; r < p->kernels[i].nreds; r++) argred |= op_is_argred(p->kernels[i].reds[r].op);
  if (argred) sb_printf(sb, "\n#ifndef COIL_ARGRED\n#define COIL_ARGRED\n%s#endif\n", prelude_argred);
  for (int c = 0; c < chains->n; c++) {
    const CChain *ch = &chains->chain[c];
    if (ch->n > 1) {
      emit_chain(sb, p, sched, ch);
      continue;
    }
    Arena a = {0};
    const Kernel *k = &p->kernels[ch->first];
    Emit E = {.sb = sb, .p = p, .k = k, .s = &sched[ch->first], .a = &a};
    E.names = kernel_axis_names(&a, k);
    E.mark = ARENA_ARRAY(&a, bool, k->nvals + 1);
    E.vdep = ARENA_ARRAY(&a, bool, k->nvals + 1);
    emit_kernel(&E);
    arena_free(&a);
  }
}
