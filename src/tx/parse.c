/* Parser for the Python subset Triton kernels are written in.
 *
 * A module is a list of defs; imports set up namespace aliases and every
 * other top-level statement is skipped without being parsed.  Each def is
 * parsed on its own (an error is kept in its TxFunc), then its names are
 * resolved: a name assigned anywhere in the def is a local with a frame
 * slot (params first), as in Python; any other name must be a namespace
 * (tl, libdevice, ...), a Python builtin or another def of the module, and
 * attribute chains on namespaces are folded into constants here, so the
 * evaluator never looks a name up by string. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tx/tx.h"

typedef struct Parser {
  TxModule *m;
  Arena *a;
  Token *toks;
  int pos, end;
  jmp_buf jb;
  CoilErr *err;
  const char **locals;
  int nlocals, caplocals;
} Parser;

static _Noreturn void perr(Parser *P, const Token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void perr(Parser *P, const Token *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  P->err = coil_err_at(t->loc, "%s", buf);
  longjmp(P->jb, 1);
}

static Token *peek(Parser *P) { return &P->toks[P->pos < P->end ? P->pos : P->end]; }
static Token *peek2(Parser *P) {
  return &P->toks[P->pos + 1 < P->end ? P->pos + 1 : P->end];
}
static Token *next(Parser *P) {
  Token *t = peek(P);
  if (P->pos < P->end) P->pos++;
  return t;
}
static bool is(Parser *P, const char *s) { return tok_is(peek(P), s); }
static bool accept(Parser *P, const char *s) {
  if (!is(P, s)) return false;
  P->pos++;
  return true;
}
static const char *tok_desc(Parser *P, const Token *t) {
  switch (t->kind) {
  case TK_NEWLINE: return "end of line";
  case TK_INDENT: return "indent";
  case TK_DEDENT: return "dedent";
  case TK_EOF: return "end of file";
  default: return arena_printf(P->a, "'%.*s'", t->len, t->start);
  }
}
static Token *expect(Parser *P, const char *s) {
  if (!is(P, s)) perr(P, peek(P), "expected '%s', found %s", s, tok_desc(P, peek(P)));
  return next(P);
}
static Token *expect_kind(Parser *P, TokKind k, const char *what) {
  if (peek(P)->kind != k) perr(P, peek(P), "expected %s, found %s", what, tok_desc(P, peek(P)));
  return next(P);
}

static bool is_keyword(const Token *t) {
  static const char *kw[] = {"if", "else", "elif", "for", "while", "in", "not",
                             "and", "or", "is", "def", "return", "pass",
                             "break", "continue", "lambda", "import", "from",
                             "as", "None", "True", "False", "assert", "with",
                             "class", "global", "nonlocal", "yield", "del",
                             "try", "except", "finally", "raise"};
  if (t->kind != TK_NAME) return false;
  for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
    if (tok_is(t, kw[i])) return true;
  return false;
}

static TxNode *new_node(Parser *P, TxNodeKind k, const Token *t) {
  TxNode *n = ARENA_NEW(P->a, TxNode);
  n->kind = k;
  n->loc = t->loc;
  n->slot = -1;
  return n;
}

/* A growable node list in the arena. */
typedef struct NodeList {
  TxNode **v;
  int n, cap;
} NodeList;
static void nl_push(Parser *P, NodeList *l, TxNode *x) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    TxNode **v = ARENA_ARRAY(P->a, TxNode *, cap);
    if (l->n) memcpy(v, l->v, sizeof(TxNode *) * (size_t)l->n);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = x;
}

const char *tx_op_spelling(TxOp op) {
  static const char *s[TXO_COUNT] = {
      [TXO_ADD] = "+", [TXO_SUB] = "-", [TXO_MUL] = "*", [TXO_DIV] = "/",
      [TXO_FLOORDIV] = "//", [TXO_MOD] = "%", [TXO_POW] = "**", [TXO_AND] = "&",
      [TXO_OR] = "|", [TXO_XOR] = "^", [TXO_SHL] = "<<", [TXO_SHR] = ">>",
      [TXO_LT] = "<", [TXO_LE] = "<=", [TXO_GT] = ">", [TXO_GE] = ">=",
      [TXO_EQ] = "==", [TXO_NE] = "!=", [TXO_IS] = "is", [TXO_ISNOT] = "is not",
      [TXO_NEG] = "-", [TXO_POS] = "+", [TXO_INVERT] = "~", [TXO_MIN] = "minimum",
      [TXO_MAX] = "maximum"};
  return s[op];
}

static TxNode *parse_test(Parser *P);
static TxNode *parse_or_expr(Parser *P);

/* testlist: test (',' test)* [','] -- a tuple when there is a comma. */
static TxNode *parse_testlist(Parser *P, TxNode *(*item)(Parser *)) {
  Token *t = peek(P);
  TxNode *first = item(P);
  if (!is(P, ",")) return first;
  NodeList l = {0};
  nl_push(P, &l, first);
  while (accept(P, ",")) {
    Token *n = peek(P);
    if (n->kind == TK_NEWLINE || tok_is(n, "=") || tok_is(n, ")") ||
        tok_is(n, ":") || n->kind == TK_EOF || tok_is(n, "in"))
      break;
    nl_push(P, &l, item(P));
  }
  TxNode *tup = new_node(P, TN_TUPLE, t);
  tup->kids = l.v;
  tup->nkids = l.n;
  return tup;
}

/* subscript: test | [test] ':' [test] [':' [test]] -- only ':' is allowed
 * with nothing around it (Triton has no strided slices of blocks). */
static TxNode *parse_subscript(Parser *P) {
  Token *t = peek(P);
  if (is(P, ":")) {
    next(P);
    if (!is(P, ",") && !is(P, "]"))
      perr(P, peek(P), "only ':' and None are supported when indexing a block");
    return new_node(P, TN_SLICE, t);
  }
  TxNode *e = parse_test(P);
  if (is(P, ":")) perr(P, peek(P), "slices with bounds are not supported when indexing a block");
  return e;
}

/* atom: '(' [testlist] ')' | '[' [testlist] ']' | NAME | NUMBER | STRING+
 *       | None | True | False */
static TxNode *parse_atom(Parser *P) {
  Token *t = peek(P);
  if (accept(P, "(")) {
    if (accept(P, ")")) {
      TxNode *n = new_node(P, TN_TUPLE, t);
      return n;
    }
    TxNode *e = parse_test(P);
    if (is(P, ",")) {
      NodeList l = {0};
      nl_push(P, &l, e);
      while (accept(P, ",")) {
        if (is(P, ")")) break;
        nl_push(P, &l, parse_test(P));
      }
      e = new_node(P, TN_TUPLE, t);
      e->kids = l.v;
      e->nkids = l.n;
    }
    expect(P, ")");
    return e;
  }
  if (accept(P, "[")) {
    NodeList l = {0};
    while (!is(P, "]")) {
      nl_push(P, &l, parse_test(P));
      if (!accept(P, ",")) break;
    }
    expect(P, "]");
    TxNode *n = new_node(P, TN_LIST, t);
    n->kids = l.v;
    n->nkids = l.n;
    return n;
  }
  if (t->kind == TK_INT || t->kind == TK_FLOAT) {
    next(P);
    TxNode *n = new_node(P, TN_CONST, t);
    if (t->kind == TK_INT) n->val = (TxVal){.kind = TV_INT, .i = t->ival};
    else n->val = (TxVal){.kind = TV_FLOAT, .f = t->fval};
    return n;
  }
  if (t->kind == TK_STR) {
    StrBuf sb = {0};
    sb_puts(&sb, "");
    while (peek(P)->kind == TK_STR) sb_puts(&sb, next(P)->str);
    TxNode *n = new_node(P, TN_CONST, t);
    n->val = (TxVal){.kind = TV_STR, .s = arena_strdup(P->a, sb.data)};
    sb_free(&sb);
    return n;
  }
  if (t->kind == TK_NAME) {
    if (accept(P, "None")) {
      TxNode *n = new_node(P, TN_CONST, t);
      n->val.kind = TV_NONE;
      return n;
    }
    if (tok_is(t, "True") || tok_is(t, "False")) {
      next(P);
      TxNode *n = new_node(P, TN_CONST, t);
      n->val = (TxVal){.kind = TV_BOOL, .i = tok_is(t, "True")};
      return n;
    }
    if (is_keyword(t)) perr(P, t, "unexpected keyword '%.*s'", t->len, t->start);
    next(P);
    TxNode *n = new_node(P, TN_NAME, t);
    n->name = arena_strndup(P->a, t->start, (size_t)t->len);
    return n;
  }
  perr(P, t, "expected an expression, found %s", tok_desc(P, t));
}

/* atom_expr: atom trailer*
 * trailer: '(' [arglist] ')' | '[' subscriptlist ']' | '.' NAME */
static TxNode *parse_atom_expr(Parser *P) {
  TxNode *e = parse_atom(P);
  for (;;) {
    Token *t = peek(P);
    if (accept(P, "(")) {
      NodeList l = {0};
      const char **kw = NULL;
      int nkw_cap = 0;
      while (!is(P, ")")) {
        const char *name = NULL;
        if (peek(P)->kind == TK_NAME && tok_is(peek2(P), "=")) {
          Token *nt = next(P);
          name = arena_strndup(P->a, nt->start, (size_t)nt->len);
          next(P);
        } else if (is(P, "*") || is(P, "**")) {
          perr(P, peek(P), "*args and **kwargs are not supported");
        } else if (kw) {
          for (int i = 0; i < l.n; i++)
            if (kw[i]) perr(P, peek(P), "positional argument follows keyword argument");
        }
        nl_push(P, &l, parse_test(P));
        if (name || kw) {
          if (nkw_cap < l.cap) {
            const char **k2 = ARENA_ARRAY(P->a, const char *, l.cap);
            if (kw) memcpy(k2, kw, sizeof(char *) * (size_t)(l.n - 1));
            kw = k2;
            nkw_cap = l.cap;
          }
          kw[l.n - 1] = name;
        }
        if (!accept(P, ",")) break;
      }
      expect(P, ")");
      TxNode *c = new_node(P, TN_CALL, t);
      c->loc = e->loc; /* a call is reported where its callee starts */
      c->lhs = e;
      c->kids = l.v;
      c->nkids = l.n;
      c->kwnames = kw;
      e = c;
    } else if (accept(P, "[")) {
      NodeList l = {0};
      while (!is(P, "]")) {
        nl_push(P, &l, parse_subscript(P));
        if (!accept(P, ",")) break;
      }
      expect(P, "]");
      TxNode *x = new_node(P, TN_INDEX, t);
      x->lhs = e;
      x->kids = l.v;
      x->nkids = l.n;
      e = x;
    } else if (accept(P, ".")) {
      Token *nt = expect_kind(P, TK_NAME, "an attribute name");
      TxNode *x = new_node(P, TN_ATTR, nt);
      x->loc = e->loc; /* as Python's AST: where the expression starts */
      x->lhs = e;
      x->name = arena_strndup(P->a, nt->start, (size_t)nt->len);
      e = x;
    } else {
      return e;
    }
  }
}

/* factor: ('+'|'-'|'~') factor | power;  power: atom_expr ['**' factor] */
static TxNode *parse_factor(Parser *P) {
  Token *t = peek(P);
  TxOp op;
  if (tok_is(t, "-")) op = TXO_NEG;
  else if (tok_is(t, "+")) op = TXO_POS;
  else if (tok_is(t, "~")) op = TXO_INVERT;
  else {
    TxNode *e = parse_atom_expr(P);
    Token *pt = peek(P);
    if (accept(P, "**")) {
      TxNode *b = new_node(P, TN_BINOP, pt);
      b->op = TXO_POW;
      b->lhs = e;
      b->rhs = parse_factor(P);
      return b;
    }
    return e;
  }
  next(P);
  TxNode *operand = parse_factor(P);
  /* Fold a negative literal, so -2147483648 is one Python int. */
  if (op == TXO_NEG && operand->kind == TN_CONST &&
      (operand->val.kind == TV_INT || operand->val.kind == TV_FLOAT)) {
    if (operand->val.kind == TV_INT) operand->val.i = -operand->val.i;
    else operand->val.f = -operand->val.f;
    operand->loc = t->loc;
    return operand;
  }
  TxNode *u = new_node(P, TN_UNOP, t);
  u->op = op;
  u->lhs = operand;
  return u;
}

/* One level of left-associative binary operators. */
typedef struct BinLevel {
  const char *spell[4];
  TxOp op[4];
} BinLevel;
static const BinLevel levels[] = {
    {{"|"}, {TXO_OR}},
    {{"^"}, {TXO_XOR}},
    {{"&"}, {TXO_AND}},
    {{"<<", ">>"}, {TXO_SHL, TXO_SHR}},
    {{"+", "-"}, {TXO_ADD, TXO_SUB}},
    {{"*", "/", "//", "%"}, {TXO_MUL, TXO_DIV, TXO_FLOORDIV, TXO_MOD}},
};

static TxNode *parse_level(Parser *P, int lv) {
  if (lv == (int)(sizeof levels / sizeof *levels)) return parse_factor(P);
  TxNode *e = parse_level(P, lv + 1);
  for (;;) {
    Token *t = peek(P);
    int k = -1;
    for (int i = 0; i < 4 && levels[lv].spell[i]; i++)
      if (tok_is(t, levels[lv].spell[i])) k = i;
    if (k < 0) {
      if (tok_is(t, "@")) perr(P, t, "the matrix product '@' is not supported; use tl.dot");
      return e;
    }
    next(P);
    TxNode *b = new_node(P, TN_BINOP, t);
    b->op = levels[lv].op[k];
    b->lhs = e;
    b->rhs = parse_level(P, lv + 1);
    e = b;
  }
}

static TxNode *parse_or_expr(Parser *P) { return parse_level(P, 0); }

/* comparison: or_expr (comp_op or_expr)* */
static TxNode *parse_comparison(Parser *P) {
  Token *t0 = peek(P);
  TxNode *e = parse_or_expr(P);
  NodeList l = {0};
  TxOp ops[16];
  int nops = 0;
  for (;;) {
    Token *t = peek(P);
    TxOp op;
    if (tok_is(t, "<")) op = TXO_LT;
    else if (tok_is(t, "<=")) op = TXO_LE;
    else if (tok_is(t, ">")) op = TXO_GT;
    else if (tok_is(t, ">=")) op = TXO_GE;
    else if (tok_is(t, "==")) op = TXO_EQ;
    else if (tok_is(t, "!=")) op = TXO_NE;
    else if (tok_is(t, "is")) op = tok_is(peek2(P), "not") ? TXO_ISNOT : TXO_IS;
    else if (tok_is(t, "in") || (tok_is(t, "not") && tok_is(peek2(P), "in")))
      perr(P, t, "the 'in' operator is not supported in a kernel");
    else break;
    next(P);
    if (op == TXO_ISNOT) next(P);
    if (nops == 15) perr(P, t, "comparison chain too long");
    if (!nops) nl_push(P, &l, e);
    ops[nops++] = op;
    nl_push(P, &l, parse_or_expr(P));
  }
  if (!nops) return e;
  TxNode *c = new_node(P, TN_CMP, t0);
  /* Report a single comparison at its operator, as for other binary ops. */
  c->loc = t0->loc;
  c->kids = l.v;
  c->nkids = l.n;
  c->ops = ARENA_ARRAY(P->a, TxOp, nops);
  memcpy(c->ops, ops, sizeof(TxOp) * (size_t)nops);
  return c;
}

/* not_test: 'not' not_test | comparison */
static TxNode *parse_not(Parser *P) {
  Token *t = peek(P);
  if (accept(P, "not")) {
    TxNode *n = new_node(P, TN_NOT, t);
    n->lhs = parse_not(P);
    return n;
  }
  return parse_comparison(P);
}

/* and_test: not_test ('and' not_test)*;  or_test: and_test ('or' and_test)* */
static TxNode *parse_and(Parser *P) {
  TxNode *e = parse_not(P);
  while (is(P, "and")) {
    Token *t = next(P);
    TxNode *n = new_node(P, TN_AND, t);
    n->lhs = e;
    n->rhs = parse_not(P);
    e = n;
  }
  return e;
}
static TxNode *parse_or(Parser *P) {
  TxNode *e = parse_and(P);
  while (is(P, "or")) {
    Token *t = next(P);
    TxNode *n = new_node(P, TN_OR, t);
    n->lhs = e;
    n->rhs = parse_and(P);
    e = n;
  }
  return e;
}

/* test: or_test ['if' or_test 'else' test] */
static TxNode *parse_test(Parser *P) {
  if (is(P, "lambda")) perr(P, peek(P), "lambda is not supported in a kernel");
  TxNode *e = parse_or(P);
  if (is(P, "if")) {
    Token *t = next(P);
    TxNode *n = new_node(P, TN_IFEXP, t);
    n->lhs = e;
    n->cond = parse_or(P);
    expect(P, "else");
    n->rhs = parse_test(P);
    return n;
  }
  return e;
}

/* ------------------------------------------------------------ statements */

static void add_local(Parser *P, const char *name) {
  for (int i = 0; i < P->nlocals; i++)
    if (!strcmp(P->locals[i], name)) return;
  if (P->nlocals == P->caplocals) {
    int cap = P->caplocals ? P->caplocals * 2 : 32;
    const char **v = ARENA_ARRAY(P->a, const char *, cap);
    if (P->nlocals) memcpy(v, P->locals, sizeof(char *) * (size_t)P->nlocals);
    P->locals = v;
    P->caplocals = cap;
  }
  P->locals[P->nlocals++] = name;
}

/* Assignment targets: a name, or a tuple of targets. */
static void check_target(Parser *P, TxNode *t) {
  if (t->kind == TN_NAME) {
    add_local(P, t->name);
    return;
  }
  if (t->kind == TN_TUPLE || t->kind == TN_LIST) {
    for (int i = 0; i < t->nkids; i++) check_target(P, t->kids[i]);
    return;
  }
  /* perr reports at a token: one standing for the target's position. */
  if (t->kind == TN_INDEX)
    perr(P, &(Token){.loc = t->loc}, "cannot assign to an element of a block (blocks are immutable)");
  perr(P, &(Token){.loc = t->loc}, "cannot assign to this expression");
}

static void parse_block(Parser *P, NodeList *out);

/* suite: simple_stmt | NEWLINE INDENT stmt+ DEDENT */
static void parse_suite(Parser *P, TxNode ***body, int *n) {
  NodeList l = {0};
  expect(P, ":");
  if (peek(P)->kind == TK_NEWLINE) {
    next(P);
    expect_kind(P, TK_INDENT, "an indented block");
    while (peek(P)->kind != TK_DEDENT && peek(P)->kind != TK_EOF) parse_block(P, &l);
    expect_kind(P, TK_DEDENT, "dedent");
  } else {
    parse_block(P, &l);
  }
  *body = l.v;
  *n = l.n;
}

static TxNode *parse_small(Parser *P) {
  Token *t = peek(P);
  if (accept(P, "pass")) return new_node(P, TN_PASS, t);
  if (accept(P, "break")) return new_node(P, TN_BREAK, t);
  if (accept(P, "continue")) return new_node(P, TN_CONTINUE, t);
  if (accept(P, "return")) {
    TxNode *n = new_node(P, TN_RETURN, t);
    if (peek(P)->kind != TK_NEWLINE && !is(P, ";")) n->lhs = parse_testlist(P, parse_test);
    return n;
  }
  if (accept(P, "assert")) {
    TxNode *n = new_node(P, TN_ASSERT, t);
    n->lhs = parse_test(P);
    if (accept(P, ",")) n->rhs = parse_test(P);
    return n;
  }
  if (is(P, "import") || is(P, "from"))
    perr(P, t, "import inside a kernel is not supported");
  if (is(P, "global") || is(P, "nonlocal") || is(P, "del") || is(P, "raise") ||
      is(P, "yield") || is(P, "with") || is(P, "try") || is(P, "class") ||
      is(P, "def"))
    perr(P, t, "'%.*s' is not supported in a kernel", t->len, t->start);
  TxNode *e = parse_testlist(P, parse_test);
  /* Annotated assignment: NAME ':' annotation ['=' value] */
  if (e->kind == TN_NAME && is(P, ":")) {
    next(P);
    parse_test(P);
    if (!is(P, "=")) {
      TxNode *n = new_node(P, TN_PASS, t);
      return n;
    }
  }
  static const struct { const char *s; TxOp op; } aug[] = {
      {"+=", TXO_ADD}, {"-=", TXO_SUB}, {"*=", TXO_MUL}, {"/=", TXO_DIV},
      {"//=", TXO_FLOORDIV}, {"%=", TXO_MOD}, {"**=", TXO_POW}, {"&=", TXO_AND},
      {"|=", TXO_OR}, {"^=", TXO_XOR}, {"<<=", TXO_SHL}, {">>=", TXO_SHR}};
  for (size_t i = 0; i < sizeof aug / sizeof *aug; i++) {
    if (is(P, aug[i].s)) {
      Token *ot = next(P);
      if (e->kind != TN_NAME) perr(P, ot, "augmented assignment needs a name on its left");
      check_target(P, e);
      TxNode *n = new_node(P, TN_AUGASSIGN, ot);
      n->op = aug[i].op;
      n->lhs = e;
      n->rhs = parse_test(P);
      return n;
    }
  }
  if (is(P, "=")) {
    NodeList targets = {0};
    TxNode *value = e;
    while (is(P, "=")) {
      next(P);
      check_target(P, value);
      nl_push(P, &targets, value);
      value = parse_testlist(P, parse_test);
    }
    TxNode *n = new_node(P, TN_ASSIGN, t);
    n->kids = targets.v;
    n->nkids = targets.n;
    n->rhs = value;
    return n;
  }
  TxNode *n = new_node(P, TN_EXPR, t);
  n->lhs = e;
  return n;
}

/* stmt: if | for | while | simple_stmt (';' simple_stmt)* NEWLINE */
static void parse_block(Parser *P, NodeList *out) {
  Token *t = peek(P);
  if (is(P, "if")) {
    next(P);
    TxNode *n = new_node(P, TN_IF, t);
    n->cond = parse_test(P);
    parse_suite(P, &n->body, &n->nbody);
    nl_push(P, out, n);
    /* elif chains nest as if/else */
    while (is(P, "elif")) {
      Token *et = next(P);
      TxNode *m = new_node(P, TN_IF, et);
      m->cond = parse_test(P);
      parse_suite(P, &m->body, &m->nbody);
      n->orelse = ARENA_ARRAY(P->a, TxNode *, 1);
      n->orelse[0] = m;
      n->norelse = 1;
      n = m;
    }
    if (accept(P, "else")) parse_suite(P, &n->orelse, &n->norelse);
    return;
  }
  if (is(P, "for")) {
    next(P);
    TxNode *n = new_node(P, TN_FOR, t);
    n->lhs = parse_testlist(P, parse_or_expr);
    check_target(P, n->lhs);
    expect(P, "in");
    n->rhs = parse_test(P);
    parse_suite(P, &n->body, &n->nbody);
    if (is(P, "else")) perr(P, peek(P), "for ... else is not supported");
    nl_push(P, out, n);
    return;
  }
  if (is(P, "while")) {
    next(P);
    TxNode *n = new_node(P, TN_WHILE, t);
    n->cond = parse_test(P);
    parse_suite(P, &n->body, &n->nbody);
    if (is(P, "else")) perr(P, peek(P), "while ... else is not supported");
    nl_push(P, out, n);
    return;
  }
  for (;;) {
    nl_push(P, out, parse_small(P));
    if (!accept(P, ";")) break;
    if (peek(P)->kind == TK_NEWLINE) break;
  }
  if (peek(P)->kind != TK_EOF) expect_kind(P, TK_NEWLINE, "end of line");
}

/* ------------------------------------------------------ name resolution */

static bool find_alias(TxModule *m, const char *name, const char **path) {
  for (int i = m->naliases - 1; i >= 0; i--)
    if (!strcmp(m->aliases[i].name, name)) {
      *path = m->aliases[i].path;
      return true;
    }
  /* Names Triton kernels use without importing them here (Inductor's
   * headers import them). */
  static const char *dflt[][2] = {
      {"tl", "triton.language"}, {"triton", "triton"},
      {"libdevice", "triton.language.extra.libdevice"},
      {"tl_math", "torch._inductor.runtime.triton_helpers.math"},
      {"triton_helpers", "torch._inductor.runtime.triton_helpers"}};
  for (size_t i = 0; i < sizeof dflt / sizeof *dflt; i++)
    if (!strcmp(dflt[i][0], name)) {
      *path = dflt[i][1];
      return true;
    }
  return false;
}

static void resolve_expr(Parser *P, TxNode *n);

static void resolve_list(Parser *P, TxNode **v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i]) resolve_expr(P, v[i]);
}

static _Noreturn void nerr(Parser *P, TxNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void nerr(Parser *P, TxNode *n, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  P->err = coil_err_at(n->loc, "%s", buf);
  longjmp(P->jb, 1);
}

static void resolve_expr(Parser *P, TxNode *n) {
  switch (n->kind) {
  case TN_NAME: {
    for (int i = 0; i < P->nlocals; i++)
      if (!strcmp(P->locals[i], n->name)) {
        n->slot = i;
        return;
      }
    TxVal v;
    const char *path;
    int g = -1; /* the last assignment of a module constant wins */
    for (int i = P->m->nglobals - 1; i >= 0 && g < 0; i--)
      if (!strcmp(P->m->globals[i].name, n->name)) g = i;
    if (g >= 0) {
      v = P->m->globals[g].val;
    } else if (find_alias(P->m, n->name, &path)) {
      v = (TxVal){.kind = TV_MODULE, .s = path};
    } else if (tx_module_find(P->m, n->name)) {
      v = (TxVal){.kind = TV_FUNC, .def = tx_module_find(P->m, n->name)};
      v.def->called = true;
    } else if (!tx_ns_lookup(NS_PY, n->name, &v)) {
      nerr(P, n, "name '%s' is not defined", n->name);
    }
    n->kind = TN_CONST;
    n->val = v;
    return;
  }
  case TN_ATTR:
    resolve_expr(P, n->lhs);
    if (n->lhs->kind == TN_CONST && n->lhs->val.kind == TV_MODULE) {
      const char *path = n->lhs->val.s;
      TxVal v;
      int ns = tx_ns_of_path(path);
      if (ns != NS_NONE && tx_ns_lookup(ns, n->name, &v)) {
        n->kind = TN_CONST;
        n->val = v;
        return;
      }
      const char *sub = arena_printf(P->a, "%s.%s", path, n->name);
      if (ns == NS_NONE || tx_ns_of_path(sub) != NS_NONE) {
        n->kind = TN_CONST;
        n->val = (TxVal){.kind = TV_MODULE, .s = sub};
        return;
      }
      nerr(P, n, "'%s.%s' is not supported by coil's Triton executor", path, n->name);
    }
    return;
  case TN_CALL:
    resolve_expr(P, n->lhs);
    resolve_list(P, n->kids, n->nkids);
    return;
  case TN_INDEX:
    resolve_expr(P, n->lhs);
    resolve_list(P, n->kids, n->nkids);
    return;
  case TN_TUPLE: case TN_LIST: case TN_CMP:
    resolve_list(P, n->kids, n->nkids);
    return;
  case TN_BINOP: case TN_AND: case TN_OR:
    resolve_expr(P, n->lhs);
    resolve_expr(P, n->rhs);
    return;
  case TN_UNOP: case TN_NOT:
    resolve_expr(P, n->lhs);
    return;
  case TN_IFEXP:
    resolve_expr(P, n->lhs);
    resolve_expr(P, n->cond);
    resolve_expr(P, n->rhs);
    return;
  case TN_CONST: case TN_SLICE:
    return;
  default:
    coil_unreachable("resolve_expr: statement node");
  }
}

static void resolve_stmts(Parser *P, TxNode **v, int n) {
  for (int i = 0; i < n; i++) {
    TxNode *s = v[i];
    switch (s->kind) {
    case TN_EXPR: case TN_RETURN:
      if (s->lhs) resolve_expr(P, s->lhs);
      break;
    case TN_ASSERT:
      resolve_expr(P, s->lhs);
      if (s->rhs) resolve_expr(P, s->rhs);
      break;
    case TN_ASSIGN:
      resolve_list(P, s->kids, s->nkids);
      resolve_expr(P, s->rhs);
      break;
    case TN_AUGASSIGN:
      resolve_expr(P, s->lhs);
      resolve_expr(P, s->rhs);
      break;
    case TN_FOR:
      resolve_expr(P, s->lhs);
      resolve_expr(P, s->rhs);
      resolve_stmts(P, s->body, s->nbody);
      break;
    case TN_WHILE: case TN_IF:
      resolve_expr(P, s->cond);
      resolve_stmts(P, s->body, s->nbody);
      resolve_stmts(P, s->orelse, s->norelse);
      break;
    default:
      break;
    }
  }
}

/* ---------------------------------------------------------- top level */

/* The index one past the end of the statement starting at i: its logical
 * line, plus the indented block after it, if any. */
static int stmt_end(Token *toks, int n, int i) {
  while (i < n && toks[i].kind != TK_NEWLINE && toks[i].kind != TK_EOF) i++;
  if (i < n && toks[i].kind == TK_NEWLINE) i++;
  if (i < n && toks[i].kind == TK_INDENT) {
    int depth = 0;
    for (; i < n; i++) {
      if (toks[i].kind == TK_INDENT) depth++;
      else if (toks[i].kind == TK_DEDENT && --depth == 0) return i + 1;
    }
  }
  return i;
}

/* a.b.c, built in the arena: a parse error jumps out of here. */
static const char *dotted(Parser *P) {
  Token *t = expect_kind(P, TK_NAME, "a module name");
  const char *s = arena_strndup(P->a, t->start, (size_t)t->len);
  while (accept(P, ".")) {
    t = expect_kind(P, TK_NAME, "a module name");
    s = arena_printf(P->a, "%s.%.*s", s, t->len, t->start);
  }
  return s;
}

static void add_alias(TxModule *m, const char *name, const char *path) {
  TxAlias *v = ARENA_ARRAY(&m->arena, TxAlias, m->naliases + 1);
  if (m->naliases) memcpy(v, m->aliases, sizeof(TxAlias) * (size_t)m->naliases);
  v[m->naliases++] = (TxAlias){name, path};
  m->aliases = v;
}

/* import a.b [as c] (, ...)* | from a.b import c [as d] (, ...)*
 * Errors here are ignored: the statement is skipped as Python code coil
 * does not need. */
static void parse_import(Parser *P) {
  if (setjmp(P->jb)) {
    coil_err_free(P->err);
    P->err = NULL;
    return;
  }
  if (accept(P, "import")) {
    do {
      const char *path = dotted(P);
      const char *name = path;
      if (accept(P, "as")) {
        Token *t = expect_kind(P, TK_NAME, "a name");
        name = arena_strndup(P->a, t->start, (size_t)t->len);
      } else {
        const char *dot = strchr(path, '.');
        if (dot) name = arena_strndup(P->a, path, (size_t)(dot - path));
        if (dot) path = name;
      }
      add_alias(P->m, name, path);
    } while (accept(P, ","));
  } else {
    expect(P, "from");
    const char *base = dotted(P);
    expect(P, "import");
    bool paren = accept(P, "(");
    do {
      if (paren && is(P, ")")) break;
      Token *t = expect_kind(P, TK_NAME, "a name");
      const char *item = arena_strndup(P->a, t->start, (size_t)t->len);
      const char *name = item;
      if (accept(P, "as")) {
        Token *a = expect_kind(P, TK_NAME, "a name");
        name = arena_strndup(P->a, a->start, (size_t)a->len);
      }
      add_alias(P->m, name, arena_printf(P->a, "%s.%s", base, item));
    } while (accept(P, ","));
  }
}

/* NAME [':' annotation] '=' value NEWLINE, where value is a number, True,
 * False, or constexpr(number) however the constexpr is spelled: a global a
 * kernel may read.  Anything else at top level is not a constant. */
static void parse_global(Parser *P, TxModule *m) {
  Token *t = &P->toks[P->pos], *end = &P->toks[P->end];
  const char *name = arena_strndup(P->a, t->start, (size_t)t->len);
  t++;
  if (t < end && tok_is(t, ":")) {
    while (t < end && !tok_is(t, "=") && t->kind != TK_NEWLINE) t++;
  }
  if (t >= end || !tok_is(t, "=")) return;
  t++;
  int parens = 0;
  while (t < end && t->kind == TK_NAME && !tok_is(t, "True") && !tok_is(t, "False")) {
    bool last = tok_is(t, "constexpr");
    t++;
    if (last && t < end && tok_is(t, "(")) {
      t++;
      parens = 1;
      break;
    }
    if (t >= end || !tok_is(t, ".")) return;
    t++;
  }
  bool neg = t < end && tok_is(t, "-");
  if (neg) t++;
  if (t >= end) return;
  TxVal v;
  if (t->kind == TK_INT) v = (TxVal){.kind = TV_INT, .i = neg ? -t->ival : t->ival};
  else if (t->kind == TK_FLOAT) v = (TxVal){.kind = TV_FLOAT, .f = neg ? -t->fval : t->fval};
  else if (!neg && (tok_is(t, "True") || tok_is(t, "False")))
    v = (TxVal){.kind = TV_BOOL, .i = tok_is(t, "True")};
  else return;
  t++;
  if (parens && (t >= end || !tok_is(t, ")"))) return;
  t += parens;
  if (t < end && t->kind != TK_NEWLINE) return;
  TxGlobal *g = ARENA_ARRAY(&m->arena, TxGlobal, m->nglobals + 1);
  if (m->nglobals) memcpy(g, m->globals, sizeof(TxGlobal) * (size_t)m->nglobals);
  g[m->nglobals++] = (TxGlobal){name, v};
  m->globals = g;
}

/* def NAME '(' [param (',' param)*] ')' ['->' test] ':' suite
 * param: NAME [':' test] ['=' test] */
static void parse_def(Parser *P, TxFunc *f) {
  P->nlocals = 0;
  P->caplocals = 0;
  P->locals = NULL;
  if (setjmp(P->jb)) {
    f->err = P->err;
    P->err = NULL;
    return;
  }
  expect(P, "def");
  Token *nt = expect_kind(P, TK_NAME, "a function name");
  f->name = arena_strndup(P->a, nt->start, (size_t)nt->len);
  f->loc = nt->loc;
  expect(P, "(");
  int cap = 0;
  while (!is(P, ")")) {
    if (is(P, "*") || is(P, "**") || is(P, "/"))
      perr(P, peek(P), "*args, **kwargs and '/' are not supported in a kernel's parameters");
    Token *pt = expect_kind(P, TK_NAME, "a parameter name");
    if (f->nparams == cap) {
      cap = cap ? cap * 2 : 16;
      TxParam *v = ARENA_ARRAY(P->a, TxParam, cap);
      if (f->nparams) memcpy(v, f->params, sizeof(TxParam) * (size_t)f->nparams);
      f->params = v;
    }
    TxParam *prm = &f->params[f->nparams++];
    prm->name = arena_strndup(P->a, pt->start, (size_t)pt->len);
    prm->loc = pt->loc;
    for (int i = 0; i < f->nparams - 1; i++)
      if (!strcmp(f->params[i].name, prm->name))
        perr(P, pt, "duplicate parameter '%s'", prm->name);
    add_local(P, prm->name);
    if (accept(P, ":")) {
      /* The annotation is not evaluated: `tl.constexpr` (however spelled)
       * marks a compile-time parameter. */
      int a0 = P->pos;
      parse_test(P);
      for (int i = a0; i < P->pos; i++)
        if (tok_is(&P->toks[i], "constexpr")) prm->constexpr_ = true;
    }
    if (accept(P, "=")) prm->dflt = parse_test(P);
    if (!accept(P, ",")) break;
  }
  expect(P, ")");
  if (accept(P, "->")) parse_test(P);
  parse_suite(P, &f->body, &f->nbody);
  /* Names are resolved once every def of the module is known. */
  f->nslots = P->nlocals;
  f->slotnames = P->locals;
}

static void resolve_def(Parser *P, TxFunc *f) {
  if (f->err) return;
  P->locals = f->slotnames;
  P->nlocals = f->nslots;
  if (setjmp(P->jb)) {
    f->err = P->err;
    P->err = NULL;
    return;
  }
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i].dflt) resolve_expr(P, f->params[i].dflt);
  resolve_stmts(P, f->body, f->nbody);
}

CoilErr *tx_parse_module(TxModule *m) {
  Token *toks;
  int n;
  CoilErr *err = lex_file(&m->arena, m->file, m->src, LEX_STRICT, &toks, &n);
  if (err) return err;
  Parser P = {.m = m, .a = &m->arena, .toks = toks};
  int i = 0;
  bool decorated = false;
  int cap = 0;
  while (i < n && toks[i].kind != TK_EOF) {
    Token *t = &toks[i];
    int end = stmt_end(toks, n, i);
    if (t->kind == TK_NEWLINE || t->kind == TK_DEDENT || t->kind == TK_INDENT) {
      i++;
      continue;
    }
    if (tok_is(t, "@")) {
      decorated = true;
    } else if (tok_is(t, "import") || tok_is(t, "from")) {
      P.pos = i;
      P.end = end;
      parse_import(&P);
      decorated = false;
    } else if (tok_is(t, "def")) {
      TxFunc *f = ARENA_NEW(&m->arena, TxFunc);
      f->jit = decorated;
      P.pos = i;
      P.end = end;
      /* toks[end] may be a DEDENT or the next statement: parse_suite stops
       * at end because peek() never goes past it. */
      parse_def(&P, f);
      if (!f->name) {
        /* The def's name itself did not parse; keep the error module-wide. */
        return f->err;
      }
      if (m->nfuncs == cap) {
        cap = cap ? cap * 2 : 8;
        TxFunc **v = ARENA_ARRAY(&m->arena, TxFunc *, cap);
        if (m->nfuncs) memcpy(v, m->funcs, sizeof(TxFunc *) * (size_t)m->nfuncs);
        m->funcs = v;
      }
      m->funcs[m->nfuncs++] = f;
      decorated = false;
    } else {
      if (t->kind == TK_NAME) {
        P.pos = i;
        P.end = end;
        parse_global(&P, m);
      }
      decorated = false;
    }
    i = end;
  }
  for (int k = 0; k < m->nfuncs; k++) resolve_def(&P, m->funcs[k]);
  return NULL;
}

TxFunc *tx_module_find(const TxModule *m, const char *name) {
  for (int i = 0; i < m->nfuncs; i++)
    if (!strcmp(m->funcs[i]->name, name)) return m->funcs[i];
  return NULL;
}
