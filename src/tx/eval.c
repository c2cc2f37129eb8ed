/* The evaluator: statements and expressions of a kernel, and the grid.
 *
 * A kernel runs once per program of the grid; programs are independent
 * (as on a GPU) and run in parallel, one worker thread each at a time,
 * every worker with its own memory pool and frame.  Values are
 * reference-counted: eval() returns an owned value, and a frame slot owns
 * what it holds, so a block dies (and its memory is reused) as soon as
 * the last name for it is rebound.
 *
 * Errors jump (longjmp) to the program's boundary in run_program's
 * caller, the one protected boundary Lua-style: whatever the failing
 * program still referenced stays in its pool until the pool is freed.
 * The error reported is the one of the lowest-numbered failing program;
 * programs after it are skipped, so the report does not depend on
 * thread timing. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tx/tx.h"

_Noreturn void tx_fail(TxExec *ex, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *buf = malloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(buf, (size_t)n + 1, fmt, ap);
  va_end(ap);
  ex->err = coil_err_at(loc, "%s", buf);
  free(buf);
  longjmp(*ex->jb, 1);
}

static CoilErr *err_copy(const CoilErr *e) {
  CoilErr *c = malloc(sizeof *c);
  size_t n = strlen(e->msg);
  c->msg = malloc(n + 1);
  memcpy(c->msg, e->msg, n + 1);
  return c;
}

typedef struct Frame {
  TxFunc *f;
  TxVal *slots;
  TxVal ret;
} Frame;

enum { FL_NORMAL, FL_BREAK, FL_CONTINUE, FL_RETURN };

#define MAXARGS 32

static TxVal eval(TxExec *ex, Frame *fr, TxNode *n);
static int exec_stmts(TxExec *ex, Frame *fr, TxNode **v, int n);

static TxVal tval(TxTensor *t) { return (TxVal){.kind = TV_TENSOR, .t = t}; }
static TxVal ival(int64_t i) { return (TxVal){.kind = TV_INT, .i = i}; }

/* ---------------------------------------------------------------- calls */

static TxVal call_func(TxExec *ex, SrcLoc loc, TxFunc *f, TxVal *args, int nargs,
                       const char **kw) {
  if (f->err) {
    ex->err = err_copy(f->err);
    longjmp(*ex->jb, 1);
  }
  if (ex->depth >= 64) tx_fail(ex, loc, "calls nested too deeply (recursion?)");
  /* Frames live on the worker's value stack, so an error leaks nothing. */
  if (ex->sp + f->nslots > ex->stack_cap)
    tx_fail(ex, loc, "calls nested too deeply (frames use more than %d values)", ex->stack_cap);
  TxVal *slots = ex->stack + ex->sp;
  for (int i = 0; i < f->nslots; i++) slots[i] = (TxVal){.kind = TV_UNSET};
  ex->sp += f->nslots;
  int npos = 0;
  while (npos < nargs && !(kw && kw[npos])) npos++;
  if (npos > f->nparams)
    tx_fail(ex, loc, "%s() takes %d positional arguments but %d were given", f->name,
            f->nparams, npos);
  for (int i = 0; i < npos; i++) slots[i] = tx_val_retain(args[i]);
  for (int i = npos; i < nargs; i++) {
    int k = -1;
    for (int j = 0; j < f->nparams; j++)
      if (!strcmp(f->params[j].name, kw[i])) k = j;
    if (k < 0) tx_fail(ex, loc, "%s() got an unexpected keyword argument '%s'", f->name, kw[i]);
    if (slots[k].kind != TV_UNSET)
      tx_fail(ex, loc, "%s() got multiple values for argument '%s'", f->name, kw[i]);
    slots[k] = tx_val_retain(args[i]);
  }
  Frame callee = {f, slots, {.kind = TV_NONE}};
  for (int i = 0; i < f->nparams; i++) {
    if (slots[i].kind != TV_UNSET) continue;
    if (!f->params[i].dflt)
      tx_fail(ex, loc, "%s() missing required argument '%s'", f->name, f->params[i].name);
    slots[i] = eval(ex, &callee, f->params[i].dflt);
  }
  ex->depth++;
  exec_stmts(ex, &callee, f->body, f->nbody);
  ex->depth--;
  for (int i = 0; i < f->nslots; i++) tx_val_release(ex, slots[i]);
  ex->sp -= f->nslots;
  return callee.ret;
}

TxVal tx_call(TxExec *ex, SrcLoc loc, TxVal fn, TxVal *args, int nargs) {
  if (fn.kind == TV_FUNC) return call_func(ex, loc, fn.def, args, nargs, NULL);
  if (fn.kind == TV_BUILTIN) return tx_builtin_call(ex, loc, fn.fn, args, nargs, NULL);
  tx_fail(ex, loc, "'%s' object is not callable", tx_val_kind_name(fn));
}

static TxVal eval_call(TxExec *ex, Frame *fr, TxNode *n) {
  TxVal argv[MAXARGS + 1];
  const char *kwv[MAXARGS + 1];
  const char **kw = n->kwnames ? kwv : NULL;
  if (n->nkids > MAXARGS) tx_fail(ex, n->loc, "too many arguments (at most %d)", MAXARGS);
  int off = 0;
  TxVal callee = {.kind = TV_NONE};
  const TxBuiltin *method = NULL;
  TxNode *c = n->lhs;
  if (c->kind == TN_ATTR) {
    /* x.method(...): the object becomes the first argument. */
    TxVal self = eval(ex, fr, c->lhs);
    if (self.kind != TV_TENSOR) {
      tx_val_release(ex, self);
      tx_fail(ex, c->loc, "'%s' object has no attribute '%s'", tx_val_kind_name(self), c->name);
    }
    method = tx_method_lookup(c->name);
    if (!method) {
      tx_val_release(ex, self);
      tx_fail(ex, c->loc, "'tensor' object has no method '%s' (or coil's executor does not "
                          "support it)", c->name);
    }
    argv[0] = self;
    kwv[0] = NULL;
    off = 1;
  } else {
    callee = eval(ex, fr, c);
  }
  for (int i = 0; i < n->nkids; i++) {
    argv[off + i] = eval(ex, fr, n->kids[i]);
    kwv[off + i] = n->kwnames ? n->kwnames[i] : NULL;
  }
  int nargs = off + n->nkids;
  TxVal r;
  if (method) {
    r = tx_builtin_call(ex, n->loc, method, argv, nargs, kw);
  } else if (callee.kind == TV_BUILTIN) {
    r = tx_builtin_call(ex, n->loc, callee.fn, argv, nargs, kw);
  } else if (callee.kind == TV_FUNC) {
    r = call_func(ex, n->loc, callee.def, argv, nargs, kw);
  } else if (callee.kind == TV_MODULE) {
    tx_fail(ex, n->loc, "'%s' is not supported by coil's Triton executor", callee.s);
  } else {
    tx_fail(ex, n->loc, "'%s' object is not callable", tx_val_kind_name(callee));
  }
  for (int i = 0; i < nargs; i++) tx_val_release(ex, argv[i]);
  tx_val_release(ex, callee);
  return r;
}

/* ------------------------------------------------------ attributes, [] */

static TxVal eval_attr(TxExec *ex, Frame *fr, TxNode *n) {
  TxVal b = eval(ex, fr, n->lhs);
  if (b.kind == TV_TENSOR) {
    TxTensor *t = b.t;
    TxVal r;
    if (!strcmp(n->name, "shape")) {
      TxTuple *tup = tx_tuple_new(ex, t->ndim);
      for (int d = 0; d < t->ndim; d++) tup->items[d] = ival(t->shape[d]);
      r = (TxVal){.kind = TV_TUPLE, .tup = tup};
    } else if (!strcmp(n->name, "dtype") && t->ptr < 0) {
      r = (TxVal){.kind = TV_DTYPE, .dt = t->dtype};
    } else if (!strcmp(n->name, "numel")) {
      r = ival(t->numel);
    } else if (!strcmp(n->name, "T")) {
      if (t->ndim != 2) tx_fail(ex, n->loc, ".T needs a 2-d block, got rank %d", t->ndim);
      int64_t shape[2] = {t->shape[1], t->shape[0]}, st[2] = {t->stride[1], t->stride[0]};
      r = tval(tx_view(ex, t, 2, shape, st));
    } else if (tx_method_lookup(n->name)) {
      tx_fail(ex, n->loc, "method '%s' must be called", n->name);
    } else {
      tx_fail(ex, n->loc, "'tensor' object has no attribute '%s'", n->name);
    }
    tx_release(ex, t);
    return r;
  }
  tx_fail(ex, n->loc, "'%s' object has no attribute '%s'", tx_val_kind_name(b), n->name);
}

static TxVal eval_index(TxExec *ex, Frame *fr, TxNode *n) {
  TxVal b = eval(ex, fr, n->lhs);
  TxVal subs[TX_MAX_DIMS + 1];
  if (n->nkids > TX_MAX_DIMS) tx_fail(ex, n->loc, "too many subscripts");
  for (int i = 0; i < n->nkids; i++) subs[i] = eval(ex, fr, n->kids[i]);
  TxVal r;
  if (b.kind == TV_TUPLE) {
    if (n->nkids != 1) tx_fail(ex, n->loc, "a tuple takes one index");
    int64_t i = tx_sem_int(ex, n->kids[0]->loc, subs[0], "a tuple index");
    if (i < 0) i += b.tup->n;
    if (i < 0 || i >= b.tup->n) tx_fail(ex, n->loc, "tuple index out of range");
    r = tx_val_retain(b.tup->items[i]);
  } else if (b.kind == TV_TENSOR) {
    TxTensor *t = b.t;
    int64_t shape[TX_MAX_DIMS], st[TX_MAX_DIMS];
    int nd = 0, src = 0;
    for (int i = 0; i < n->nkids; i++) {
      if (subs[i].kind == TV_NONE) {
        if (nd == TX_MAX_DIMS) tx_fail(ex, n->loc, "blocks of rank above %d are not supported", TX_MAX_DIMS);
        shape[nd] = 1;
        st[nd++] = 0;
      } else if (subs[i].kind == TV_SLICE) {
        if (src >= t->ndim) tx_fail(ex, n->kids[i]->loc, "too many indices for a block of rank %d", t->ndim);
        shape[nd] = t->shape[src];
        st[nd++] = t->stride[src++];
      } else {
        tx_fail(ex, n->kids[i]->loc,
                "unsupported tensor index: a block can only be indexed with None and ':'");
      }
    }
    for (; src < t->ndim; src++) {
      if (nd == TX_MAX_DIMS) tx_fail(ex, n->loc, "blocks of rank above %d are not supported", TX_MAX_DIMS);
      shape[nd] = t->shape[src];
      st[nd++] = t->stride[src];
    }
    r = tval(tx_view(ex, t, nd, shape, st));
  } else {
    tx_fail(ex, n->loc, "'%s' object is not subscriptable", tx_val_kind_name(b));
  }
  for (int i = 0; i < n->nkids; i++) tx_val_release(ex, subs[i]);
  tx_val_release(ex, b);
  return r;
}

/* ------------------------------------------------------------ expressions */

/* `and`/`or`: Python's on Python values (short-circuit, returning an
 * operand); on blocks, logical and/or of their truth (as Triton does). */
static TxVal eval_logic(TxExec *ex, Frame *fr, TxNode *n) {
  bool is_and = n->kind == TN_AND;
  TxVal a = eval(ex, fr, n->lhs);
  if (a.kind != TV_TENSOR) {
    bool t = tx_sem_truth(ex, n->loc, a);
    if (is_and ? !t : t) return a;
    tx_val_release(ex, a);
    return eval(ex, fr, n->rhs);
  }
  TxVal b = eval(ex, fr, n->rhs);
  TxVal zero = {.kind = TV_INT, .i = 0};
  TxVal ab = tx_sem_binary(ex, n->loc, TXO_NE, a, zero);
  TxVal bb = tx_sem_binary(ex, n->loc, TXO_NE, b, zero);
  TxVal r = tx_sem_binary(ex, n->loc, is_and ? TXO_AND : TXO_OR, ab, bb);
  tx_val_release(ex, a);
  tx_val_release(ex, b);
  tx_val_release(ex, ab);
  tx_val_release(ex, bb);
  return r;
}

static TxVal eval_cmp(TxExec *ex, Frame *fr, TxNode *n) {
  TxVal left = eval(ex, fr, n->kids[0]);
  TxVal acc = {.kind = TV_UNSET};
  for (int i = 0; i + 1 < n->nkids; i++) {
    TxVal right = eval(ex, fr, n->kids[i + 1]);
    TxVal r = tx_sem_binary(ex, n->loc, n->ops[i], left, right);
    tx_val_release(ex, left);
    left = right;
    if (acc.kind == TV_UNSET) {
      acc = r;
    } else {
      TxVal both = tx_sem_binary(ex, n->loc, TXO_AND, acc, r);
      tx_val_release(ex, acc);
      tx_val_release(ex, r);
      acc = both;
    }
    /* Python stops a chain at the first false comparison of numbers. */
    if (acc.kind == TV_BOOL && !acc.i) break;
  }
  tx_val_release(ex, left);
  return acc;
}

static TxVal eval(TxExec *ex, Frame *fr, TxNode *n) {
  switch (n->kind) {
  case TN_CONST:
    return n->val;
  case TN_NAME: {
    TxVal v = fr->slots[n->slot];
    if (v.kind == TV_UNSET)
      tx_fail(ex, n->loc, "local variable '%s' referenced before assignment", n->name);
    return tx_val_retain(v);
  }
  case TN_ATTR:
    return eval_attr(ex, fr, n);
  case TN_CALL:
    return eval_call(ex, fr, n);
  case TN_INDEX:
    return eval_index(ex, fr, n);
  case TN_SLICE:
    return (TxVal){.kind = TV_SLICE};
  case TN_TUPLE: case TN_LIST: {
    if (n->nkids > TX_MAX_TUPLE)
      tx_fail(ex, n->loc, "tuples of more than %d items are not supported", TX_MAX_TUPLE);
    TxTuple *t = tx_tuple_new(ex, n->nkids);
    for (int i = 0; i < n->nkids; i++) t->items[i] = eval(ex, fr, n->kids[i]);
    return (TxVal){.kind = TV_TUPLE, .tup = t};
  }
  case TN_BINOP: {
    TxVal a = eval(ex, fr, n->lhs);
    TxVal b = eval(ex, fr, n->rhs);
    TxVal r = tx_sem_binary(ex, n->loc, n->op, a, b);
    tx_val_release(ex, a);
    tx_val_release(ex, b);
    return r;
  }
  case TN_UNOP: {
    TxVal a = eval(ex, fr, n->lhs);
    TxVal r = tx_sem_unary(ex, n->loc, n->op, a);
    tx_val_release(ex, a);
    return r;
  }
  case TN_NOT: {
    TxVal a = eval(ex, fr, n->lhs);
    TxVal r;
    if (a.kind == TV_TENSOR) r = tx_sem_unary(ex, n->loc, TXO_LNOT, a);
    else r = (TxVal){.kind = TV_BOOL, .i = !tx_sem_truth(ex, n->loc, a)};
    tx_val_release(ex, a);
    return r;
  }
  case TN_CMP:
    return eval_cmp(ex, fr, n);
  case TN_AND: case TN_OR:
    return eval_logic(ex, fr, n);
  case TN_IFEXP: {
    TxVal c = eval(ex, fr, n->cond);
    bool t = tx_sem_truth(ex, n->cond->loc, c);
    tx_val_release(ex, c);
    return eval(ex, fr, t ? n->lhs : n->rhs);
  }
  default:
    coil_unreachable("eval: statement node");
  }
}

/* ------------------------------------------------------------ statements */

static void assign(TxExec *ex, Frame *fr, TxNode *target, TxVal v) {
  if (target->kind == TN_NAME) {
    tx_val_release(ex, fr->slots[target->slot]);
    fr->slots[target->slot] = v;
    return;
  }
  /* a, b = value */
  if (v.kind != TV_TUPLE)
    tx_fail(ex, target->loc, "cannot unpack a non-tuple %s", tx_val_kind_name(v));
  if (v.tup->n != target->nkids)
    tx_fail(ex, target->loc, "cannot unpack %d values into %d names", v.tup->n, target->nkids);
  for (int i = 0; i < target->nkids; i++)
    assign(ex, fr, target->kids[i], tx_val_retain(v.tup->items[i]));
  tx_val_release(ex, v);
}

static bool is_range_call(TxNode *it, bool *is_static) {
  if (it->kind != TN_CALL || it->lhs->kind != TN_CONST || it->lhs->val.kind != TV_BUILTIN)
    return false;
  const char *name = it->lhs->val.fn->name;
  *is_static = !strcmp(name, "static_range");
  return *is_static || !strcmp(name, "range");
}

/* for x in range(...) / tl.range(...) / tl.static_range(...) / a tuple.
 * The induction variable is an int32 tensor (int64 when a bound needs it),
 * as in compiled Triton; with static_range it is a Python int. */
static int exec_for(TxExec *ex, Frame *fr, TxNode *s) {
  bool is_static;
  if (is_range_call(s->rhs, &is_static)) {
    TxNode *c = s->rhs;
    int64_t b[3];
    int nb = 0;
    bool wide = false;
    for (int i = 0; i < c->nkids; i++) {
      if (c->kwnames && c->kwnames[i]) continue; /* num_stages=, ... */
      if (nb == 3) tx_fail(ex, c->loc, "range expected at most 3 arguments");
      TxVal v = eval(ex, fr, c->kids[i]);
      b[nb] = tx_sem_int(ex, c->kids[i]->loc, v, "a range bound");
      if (v.kind == TV_TENSOR && v.t->dtype == DT_I64) wide = true;
      if (b[nb] < INT32_MIN || b[nb] > INT32_MAX) wide = true;
      tx_val_release(ex, v);
      nb++;
    }
    if (nb == 0) tx_fail(ex, c->loc, "range expected at least 1 argument, got 0");
    int64_t start = nb == 1 ? 0 : b[0], stop = nb == 1 ? b[0] : b[1], step = nb == 3 ? b[2] : 1;
    if (step == 0) tx_fail(ex, c->loc, "range() arg 3 must not be zero");
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      TxVal iv = is_static ? ival(i) : tval(tx_scalar_i64(ex, wide ? DT_I64 : DT_I32, i));
      assign(ex, fr, s->lhs, iv);
      int fl = exec_stmts(ex, fr, s->body, s->nbody);
      if (fl == FL_BREAK) break;
      if (fl == FL_RETURN) return fl;
      if (step > 0 ? i > INT64_MAX - step : i < INT64_MIN - step) break;
    }
    return FL_NORMAL;
  }
  TxVal seq = eval(ex, fr, s->rhs);
  if (seq.kind != TV_TUPLE)
    tx_fail(ex, s->rhs->loc, "a for loop must iterate over range(...), tl.range(...), "
                             "tl.static_range(...) or a tuple, not a %s", tx_val_kind_name(seq));
  int fl = FL_NORMAL;
  for (int i = 0; i < seq.tup->n; i++) {
    assign(ex, fr, s->lhs, tx_val_retain(seq.tup->items[i]));
    fl = exec_stmts(ex, fr, s->body, s->nbody);
    if (fl == FL_BREAK) {
      fl = FL_NORMAL;
      break;
    }
    if (fl == FL_RETURN) break;
    fl = FL_NORMAL;
  }
  tx_val_release(ex, seq);
  return fl;
}

static int exec_stmt(TxExec *ex, Frame *fr, TxNode *s) {
  switch (s->kind) {
  case TN_EXPR:
    tx_val_release(ex, eval(ex, fr, s->lhs));
    return FL_NORMAL;
  case TN_ASSIGN: {
    TxVal v = eval(ex, fr, s->rhs);
    for (int i = 0; i < s->nkids; i++)
      assign(ex, fr, s->kids[i], i + 1 < s->nkids ? tx_val_retain(v) : v);
    return FL_NORMAL;
  }
  case TN_AUGASSIGN: {
    TxVal old = eval(ex, fr, s->lhs);
    TxVal rhs = eval(ex, fr, s->rhs);
    TxVal r = tx_sem_binary(ex, s->loc, s->op, old, rhs);
    tx_val_release(ex, old);
    tx_val_release(ex, rhs);
    assign(ex, fr, s->lhs, r);
    return FL_NORMAL;
  }
  case TN_FOR:
    return exec_for(ex, fr, s);
  case TN_WHILE:
    for (;;) {
      TxVal c = eval(ex, fr, s->cond);
      bool t = tx_sem_truth(ex, s->cond->loc, c);
      tx_val_release(ex, c);
      if (!t) return FL_NORMAL;
      int fl = exec_stmts(ex, fr, s->body, s->nbody);
      if (fl == FL_BREAK) return FL_NORMAL;
      if (fl == FL_RETURN) return fl;
    }
  case TN_IF: {
    TxVal c = eval(ex, fr, s->cond);
    bool t = tx_sem_truth(ex, s->cond->loc, c);
    tx_val_release(ex, c);
    return t ? exec_stmts(ex, fr, s->body, s->nbody) : exec_stmts(ex, fr, s->orelse, s->norelse);
  }
  case TN_PASS:
    return FL_NORMAL;
  case TN_BREAK:
    return FL_BREAK;
  case TN_CONTINUE:
    return FL_CONTINUE;
  case TN_RETURN:
    tx_val_release(ex, fr->ret);
    fr->ret = s->lhs ? eval(ex, fr, s->lhs) : (TxVal){.kind = TV_NONE};
    return FL_RETURN;
  case TN_ASSERT: {
    TxVal c = eval(ex, fr, s->lhs);
    bool ok;
    if (c.kind == TV_TENSOR) {
      ok = true;
      for (int64_t i = 0; i < c.t->numel && ok; i++) ok = tx_get_f64(c.t, i) != 0;
    } else {
      ok = tx_sem_truth(ex, s->lhs->loc, c);
    }
    tx_val_release(ex, c);
    if (!ok) {
      TxVal m = s->rhs ? eval(ex, fr, s->rhs) : (TxVal){.kind = TV_NONE};
      tx_fail(ex, s->loc, "AssertionError%s%s", m.kind == TV_STR ? ": " : "",
              m.kind == TV_STR ? m.s : "");
    }
    return FL_NORMAL;
  }
  default:
    coil_unreachable("exec_stmt: expression node");
  }
}

static int exec_stmts(TxExec *ex, Frame *fr, TxNode **v, int n) {
  for (int i = 0; i < n; i++) {
    int fl = exec_stmt(ex, fr, v[i]);
    if (fl != FL_NORMAL) return fl;
  }
  return FL_NORMAL;
}

/* -------------------------------------------------------------- the grid */

/* How each kernel parameter gets its value in every program. */
typedef enum { PB_PY, PB_PTR, PB_INT, PB_FLOAT } BindKind;
typedef struct Bind {
  BindKind kind;
  TxVal py;    /* PB_PY */
  int arg;     /* PB_PTR, PB_INT, PB_FLOAT: index into args */
} Bind;

typedef struct Run {
  TxModule *m;
  TxFunc *f;
  TxArg *args;
  int nargs;
  const char **argnames;
  Bind *binds;
  int64_t grid[3];
} Run;

static void run_program(TxExec *ex, const Run *r, TxVal *slots) {
  TxFunc *f = r->f;
  for (int i = 0; i < f->nparams; i++) {
    const Bind *b = &r->binds[i];
    const TxArg *a = b->kind == PB_PY ? NULL : &r->args[b->arg];
    switch (b->kind) {
    case PB_PY: slots[i] = b->py; break;
    case PB_PTR: {
      TxTensor *t = tx_scalar_i64(ex, DT_I64, 0);
      t->ptr = b->arg;
      slots[i] = tval(t);
      break;
    }
    case PB_INT:
      slots[i] = tval(tx_scalar_i64(ex, a->ival >= INT32_MIN && a->ival <= INT32_MAX ? DT_I32 : DT_I64,
                                    a->ival));
      break;
    case PB_FLOAT: slots[i] = tval(tx_scalar_f64(ex, DT_F32, a->fval)); break;
    }
  }
  Frame fr = {f, slots, {.kind = TV_NONE}};
  exec_stmts(ex, &fr, f->body, f->nbody);
  tx_val_release(ex, fr.ret);
  for (int i = 0; i < f->nslots; i++) {
    tx_val_release(ex, slots[i]);
    slots[i] = (TxVal){.kind = TV_UNSET};
  }
}

/* One program inside the protected boundary; its error, or NULL. */
static CoilErr *run_one(TxExec *ex, const Run *r, TxVal *slots) {
  jmp_buf jb;
  ex->jb = &jb;
  ex->depth = 0;
  ex->sp = r->f->nslots;
  if (setjmp(jb) == 0) {
    run_program(ex, r, slots);
    return NULL;
  }
  /* What the program still held stays in the pool until it is freed. */
  for (int i = 0; i < r->f->nslots; i++) slots[i] = (TxVal){.kind = TV_UNSET};
  CoilErr *e = ex->err;
  ex->err = NULL;
  return e;
}

static TxFunc *pick_kernel(TxModule *m, const char *name, CoilErr **err) {
  if (name) {
    TxFunc *f = tx_module_find(m, name);
    if (f) return f;
    StrBuf sb = {0};
    for (int i = 0; i < m->nfuncs; i++) sb_printf(&sb, "%s%s", i ? ", " : "", m->funcs[i]->name);
    *err = coil_err("no kernel named '%s' in %s (it has: %s)", name, m->file,
                      sb.data ? sb.data : "no defs");
    sb_free(&sb);
    return NULL;
  }
  /* Helpers (defs another def calls) are not kernels; among the rest the
   * first @triton.jit one, or the only one. */
  TxFunc *only = NULL;
  int roots = 0;
  for (int i = 0; i < m->nfuncs; i++) {
    if (m->funcs[i]->called) continue;
    if (m->funcs[i]->jit) return m->funcs[i];
    only = m->funcs[i];
    roots++;
  }
  if (roots == 1) return only;
  if (m->nfuncs == 1) return m->funcs[0];
  if (m->nfuncs == 0) *err = coil_err("%s defines no kernel", m->file);
  else *err = coil_err("%s defines %d functions and none is @triton.jit; name the kernel",
                         m->file, m->nfuncs);
  return NULL;
}

/* Match args to parameters: by name, then the unnamed ones by position. */
static CoilErr *bind_args(Run *r, Arena *a) {
  TxFunc *f = r->f;
  r->binds = ARENA_ARRAY(a, Bind, f->nparams ? f->nparams : 1);
  int *who = ARENA_ARRAY(a, int, f->nparams ? f->nparams : 1);
  for (int i = 0; i < f->nparams; i++) who[i] = -1;
  for (int k = 0; k < r->nargs; k++) {
    if (!r->args[k].name) continue;
    int p = -1;
    for (int i = 0; i < f->nparams; i++)
      if (!strcmp(f->params[i].name, r->args[k].name)) p = i;
    if (p < 0) return coil_err("kernel '%s' has no parameter '%s'", f->name, r->args[k].name);
    if (who[p] >= 0) return coil_err("parameter '%s' given twice", r->args[k].name);
    who[p] = k;
  }
  int next = 0;
  for (int k = 0; k < r->nargs; k++) {
    if (r->args[k].name) continue;
    while (next < f->nparams && who[next] >= 0) next++;
    if (next == f->nparams)
      return coil_err("kernel '%s' takes %d parameters; too many arguments", f->name, f->nparams);
    who[next++] = k;
  }
  r->argnames = ARENA_ARRAY(a, const char *, r->nargs ? r->nargs : 1);
  for (int i = 0; i < f->nparams; i++) {
    TxParam *p = &f->params[i];
    Bind *b = &r->binds[i];
    int k = who[i];
    if (k < 0) {
      if (!p->dflt || p->dflt->kind != TN_CONST)
        return coil_err_at(p->loc, "missing argument for parameter '%s' of kernel '%s'",
                             p->name, f->name);
      b->kind = PB_PY;
      b->py = p->dflt->val;
      continue;
    }
    TxArg *arg = &r->args[k];
    r->argnames[k] = p->name;
    b->arg = k;
    if (arg->kind == TX_PTR) {
      if (p->constexpr_)
        return coil_err("parameter '%s' is tl.constexpr but was given a pointer", p->name);
      if (arg->dtype < 0 || arg->dtype >= DT_COUNT)
        return coil_err("argument '%s': bad dtype", p->name);
      if (!arg->data && arg->numel > 0) return coil_err("argument '%s': no data", p->name);
      if (arg->numel < 0) return coil_err("argument '%s': negative numel", p->name);
      b->kind = PB_PTR;
    } else if (p->constexpr_) {
      b->kind = PB_PY;
      b->py = arg->kind == TX_INT ? (TxVal){.kind = TV_INT, .i = arg->ival}
                                  : (TxVal){.kind = TV_FLOAT, .f = arg->fval};
    } else {
      b->kind = arg->kind == TX_INT ? PB_INT : PB_FLOAT;
    }
  }
  return NULL;
}

CoilErr *tx_module_run(TxModule *m, const char *kernel_name, const int64_t grid[3],
                       TxArg *args, int nargs, const TxOptions *opt) {
  CoilErr *err = NULL;
  TxFunc *f = pick_kernel(m, kernel_name, &err);
  if (!f) return err;
  if (f->err) return err_copy(f->err);
  for (int i = 0; i < 3; i++)
    if (grid[i] < 0) return coil_err("grid dimension %d is negative", i);
  Arena a = {0};
  Run r = {m, f, args, nargs, NULL, NULL, {grid[0], grid[1], grid[2]}};
  if ((err = bind_args(&r, &a))) {
    arena_free(&a);
    return err;
  }
  int64_t total = grid[0] * grid[1] * grid[2];
  int64_t first_pid = INT64_MAX;
  CoilErr *first = NULL;
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = opt && opt->threads > 0 ? opt->threads : omp_get_max_threads();
#endif
  if (nthreads > total) nthreads = total > 0 ? (int)total : 1;

#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads)
#endif
  {
    TxExec *ex = calloc(1, sizeof *ex);
    ex->stack_cap = 8192;
    ex->stack = calloc((size_t)ex->stack_cap, sizeof(TxVal));
    if (!ex || !ex->stack || f->nslots > ex->stack_cap) coil_unreachable("out of memory");
    TxVal *slots = ex->stack;
    ex->pool = tx_pool_new();
    ex->mod = m;
    ex->args = args;
    ex->nargs = nargs;
    ex->argnames = r.argnames;
    memcpy(ex->grid, grid, sizeof ex->grid);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int64_t lin = 0; lin < total; lin++) {
      int64_t cur;
#ifdef _OPENMP
#pragma omp atomic read
#endif
      cur = first_pid;
      if (lin > cur) continue;
      ex->pid[0] = lin % grid[0];
      ex->pid[1] = (lin / grid[0]) % grid[1];
      ex->pid[2] = lin / (grid[0] * grid[1]);
      CoilErr *e = run_one(ex, &r, slots);
      if (e) {
#ifdef _OPENMP
#pragma omp critical(tx_first_error)
#endif
        {
          if (lin < first_pid) {
            coil_err_free(first);
            first = e;
#ifdef _OPENMP
#pragma omp atomic write
#endif
            first_pid = lin;
          } else {
            coil_err_free(e);
          }
        }
      }
    }
    tx_pool_free(ex->pool);
    free(ex->stack);
    free(ex);
  }
  arena_free(&a);
  return first;
}

/* ------------------------------------------------------------ modules */

CoilErr *tx_module_parse(const char *file, const char *src, TxModule **out) {
  TxModule *m = calloc(1, sizeof *m);
  if (!m) coil_unreachable("out of memory");
  m->file = arena_strdup(&m->arena, file);
  m->src = arena_strdup(&m->arena, src);
  CoilErr *err = tx_parse_module(m);
  if (err) {
    tx_module_free(m);
    *out = NULL;
    return err;
  }
  *out = m;
  return NULL;
}

int tx_module_nkernels(const TxModule *m) { return m->nfuncs; }
const char *tx_module_kernel_name(const TxModule *m, int i) { return m->funcs[i]->name; }

void tx_module_free(TxModule *m) {
  if (!m) return;
  for (int i = 0; i < m->nfuncs; i++) coil_err_free(m->funcs[i]->err);
  arena_free(&m->arena);
  free(m);
}

CoilErr *tx_run_source_opts(const char *file, const char *src, const char *kernel_name,
                            const int64_t grid[3], TxArg *args, int nargs,
                            const TxOptions *opt) {
  TxModule *m;
  CoilErr *err = tx_module_parse(file, src, &m);
  if (err) return err;
  err = tx_module_run(m, kernel_name, grid, args, nargs, opt);
  tx_module_free(m);
  return err;
}

CoilErr *tx_run_source(const char *file, const char *src, const char *kernel_name,
                       const int64_t grid[3], TxArg *args, int nargs) {
  return tx_run_source_opts(file, src, kernel_name, grid, args, nargs, NULL);
}
