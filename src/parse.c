/* Parser: Python tokens -> function headers, and one function's body as
 * coil's subset of Python.
 *
 * The top level is scanned for `def` headers, imports and assignments
 * (module constants); every other top-level statement (if __name__ blocks,
 * classes) is skipped by its indentation, and a body is parsed only when
 * it is compiled or called, so a file that is also a runnable PyTorch
 * script compiles as it is.  A top-level assignment outside the subset
 * keeps its error for the name it assigns.
 *
 * Requires: a token stream from lex_file().
 * Guarantees: every Node has a source position. */
#include <string.h>

#include "coil.h"

/* Nesting beyond this is an error, not a stack overflow. */
#define MAX_DEPTH 200

typedef struct Parser {
  Arena *arena;
  Module *m;
  int pos, end;
  int depth;
  int loops; /* enclosing loops: break and continue need one */
  int elifs; /* the elif chain being parsed: each is an if in the last one's else */
  CoilErr *err;
  SrcLoc err_loc;
  Func *f; /* the function being parsed: its locals and returns */
} Parser;

static Token *peek(Parser *P) { return &P->m->toks[P->pos]; }
static Token *next(Parser *P) {
  Token *t = &P->m->toks[P->pos];
  if (P->pos < P->end) P->pos++;
  return t;
}
static bool at(Parser *P, const char *s) { return tok_is(peek(P), s); }
static bool accept(Parser *P, const char *s) {
  if (!at(P, s)) return false;
  next(P);
  return true;
}

static void fail(Parser *P, SrcLoc loc, const char *msg, const Token *t) {
  if (P->err) return;
  P->err_loc = loc;
  if (t && t->kind == TK_NEWLINE) P->err = coil_err_at(loc, "%s, found end of line", msg);
  else if (t && (t->kind == TK_EOF || t->kind == TK_DEDENT))
    P->err = coil_err_at(loc, "%s, found end of function", msg);
  else if (t) P->err = coil_err_at(loc, "%s, found '%.*s'", msg, t->len, t->start);
  else P->err = coil_err_at(loc, "%s", msg);
}

static bool expect(Parser *P, const char *s) {
  if (accept(P, s)) return true;
  char msg[64];
  snprintf(msg, sizeof msg, "expected '%s'", s);
  fail(P, peek(P)->loc, msg, peek(P));
  return false;
}

static Node *new_node(Parser *P, NodeKind k, SrcLoc loc) {
  Node *n = ARENA_NEW(P->arena, Node);
  n->kind = k;
  n->loc = loc;
  return n;
}

static Node *expr(Parser *P);

/* Grow a Node* array held in an arena (doubling). */
static Node **push_node(Parser *P, Node **arr, int n, Node *x) {
  if ((n & (n - 1)) == 0) {
    Node **bigger = ARENA_ARRAY(P->arena, Node *, n ? n * 2 : 1);
    if (n) memcpy(bigger, arr, sizeof(Node *) * (size_t)n);
    arr = bigger;
  }
  arr[n] = x;
  return arr;
}

/* atom = NAME | INT | FLOAT | STR+ | True | False | None
 *      | '(' [expr {',' expr} [',']] ')' | '[' [expr {',' expr} [',']] ']' */
static Node *atom(Parser *P) {
  Token *t = peek(P);
  if (t->kind == TK_INT) { next(P); Node *n = new_node(P, ND_INT, t->loc); n->ival = t->ival; return n; }
  if (t->kind == TK_FLOAT) { next(P); Node *n = new_node(P, ND_FLOAT, t->loc); n->fval = t->fval; return n; }
  if (t->kind == TK_STR) {
    next(P);
    Node *n = new_node(P, ND_STR, t->loc);
    n->name = t->str;
    while (peek(P)->kind == TK_STR) n->name = arena_printf(P->arena, "%s%s", n->name, next(P)->str);
    return n;
  }
  if (t->kind == TK_NAME) {
    next(P);
    if (tok_is(t, "True") || tok_is(t, "False")) {
      Node *n = new_node(P, ND_BOOL, t->loc);
      n->ival = tok_is(t, "True");
      return n;
    }
    if (tok_is(t, "None")) return new_node(P, ND_NONE, t->loc);
    static const char *keywords[] = {"lambda", "if", "else", "for", "in", "while", "def",
                                     "class", "return", "yield", "import", "from", "with",
                                     "and", "or", "not", "is", "await", "async", "del",
                                     "pass", "global", "nonlocal", "assert", "raise", "try"};
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
      if (tok_is(t, keywords[i])) {
        if (!P->err) P->err_loc = t->loc;
        P->err = P->err ? P->err : coil_err_at(t->loc, "'%s' is not in coil's subset%s", keywords[i],
                                                 !strcmp(keywords[i], "not") ? " (use ~ on bool tensors)" : "");
        return NULL;
      }
    Node *n = new_node(P, ND_NAME, t->loc);
    n->name = arena_strndup(P->arena, t->start, (size_t)t->len);
    return n;
  }
  if (tok_is(t, "(") || tok_is(t, "[")) {
    bool list = tok_is(t, "[");
    const char *close = list ? "]" : ")";
    next(P);
    Node *n = new_node(P, list ? ND_LIST : ND_TUPLE, t->loc);
    bool comma = false;
    while (!at(P, close) && !P->err) {
      Node *e = expr(P);
      if (!e) return NULL;
      n->items = push_node(P, n->items, n->nitems++, e);
      if (!accept(P, ",")) break;
      comma = true;
    }
    if (!at(P, close) && !P->err && (peek(P)->kind == TK_EOF || peek(P)->kind == TK_DEDENT || peek(P)->kind == TK_NEWLINE)) {
      fail(P, t->loc, list ? "'[' was never closed" : "'(' was never closed", NULL);
      return NULL;
    }
    if (!expect(P, close)) return NULL;
    if (!list && n->nitems == 1 && !comma) return n->items[0]; /* parentheses */
    return n;
  }
  fail(P, t->loc, "expected an expression", t);
  return NULL;
}

/* call_args = [arg {',' arg} [',']] where arg = expr | NAME '=' expr */
static Node *call(Parser *P, Node *fn, SrcLoc loc) {
  Node *n = new_node(P, ND_CALL, loc);
  n->lhs = fn;
  int kwcap = 0;
  while (!at(P, ")") && !P->err) {
    Token *t = peek(P);
    if (t->kind == TK_NAME && tok_is(&P->m->toks[P->pos + 1], "=")) {
      next(P);
      next(P);
      Node *v = expr(P);
      if (!v) return NULL;
      if (n->nkw == kwcap) {
        kwcap = kwcap ? kwcap * 2 : 4;
        const char **names = ARENA_ARRAY(P->arena, const char *, kwcap);
        Node **vals = ARENA_ARRAY(P->arena, Node *, kwcap);
        if (n->nkw) {
          memcpy(names, n->kwnames, sizeof(char *) * (size_t)n->nkw);
          memcpy(vals, n->kwvals, sizeof(Node *) * (size_t)n->nkw);
        }
        n->kwnames = names;
        n->kwvals = vals;
      }
      n->kwnames[n->nkw] = arena_strndup(P->arena, t->start, (size_t)t->len);
      n->kwvals[n->nkw++] = v;
    } else {
      if (at(P, "*") || at(P, "**")) {
        fail(P, t->loc, "unsupported Python syntax: argument unpacking", NULL);
        return NULL;
      }
      if (n->nkw) {
        fail(P, t->loc, "positional argument follows keyword argument", NULL);
        return NULL;
      }
      Node *e = expr(P);
      if (!e) return NULL;
      n->items = push_node(P, n->items, n->nitems++, e);
    }
    if (!accept(P, ",")) break;
  }
  if (!at(P, ")") && !P->err && (peek(P)->kind == TK_EOF || peek(P)->kind == TK_DEDENT || peek(P)->kind == TK_NEWLINE)) {
    fail(P, loc, "'(' was never closed", NULL);
    return NULL;
  }
  if (!expect(P, ")")) return NULL;
  return n;
}

/* primary = atom { '.' NAME | '(' call_args ')' | '[' subscript ']' } */
static Node *primary(Parser *P) {
  Node *n = atom(P);
  while (n && !P->err) {
    Token *t = peek(P);
    if (accept(P, ".")) {
      Token *name = next(P);
      if (name->kind != TK_NAME) {
        fail(P, name->loc, "expected an attribute name", name);
        return NULL;
      }
      Node *a = new_node(P, ND_ATTR, name->loc);
      a->lhs = n;
      a->name = arena_strndup(P->arena, name->start, (size_t)name->len);
      n = a;
    } else if (accept(P, "(")) {
      n = call(P, n, t->loc);
    } else if (accept(P, "[")) {
      Node *s = new_node(P, ND_SUBSCRIPT, t->loc);
      s->lhs = n;
      Node *idx = new_node(P, ND_TUPLE, peek(P)->loc);
      while (!at(P, "]") && !P->err) {
        Node *e;
        if (at(P, "...")) {
          e = new_node(P, ND_ELLIPSIS, next(P)->loc);
        } else {
          SrcLoc at_item = peek(P)->loc;
          Node *lo = at(P, ":") ? NULL : expr(P);
          if (P->err) return NULL;
          e = lo;
          if (at(P, ":")) {
            /* lo:hi:step, each part optional */
            next(P);
            e = new_node(P, ND_SLICE, at_item);
            e->lhs = lo;
            if (!at(P, "]") && !at(P, ",") && !at(P, ":") && !(e->rhs = expr(P))) return NULL;
            if (accept(P, ":") && !at(P, "]") && !at(P, ",")) {
              Node *step = expr(P);
              if (!step) return NULL;
              e->items = push_node(P, e->items, e->nitems++, step);
            }
          }
        }
        if (!e) return NULL;
        idx->items = push_node(P, idx->items, idx->nitems++, e);
        if (!accept(P, ",")) break;
      }
      if (!expect(P, "]")) return NULL;
      /* x[i] keeps its item; x[i, j], x[:] and x[...] keep the tuple, which
       * tells a tensor subscript from a tuple index. */
      s->rhs = idx->nitems == 1 && idx->items[0]->kind != ND_SLICE && idx->items[0]->kind != ND_ELLIPSIS ? idx->items[0] : idx;
      n = s;
    } else {
      break;
    }
  }
  return n;
}

static Node *binary(Parser *P, Node *l, Token *op, Node *r, NodeKind k) {
  if (!l || !r) return NULL;
  Node *n = new_node(P, k, op->loc);
  n->op = arena_strndup(P->arena, op->start, (size_t)op->len);
  n->lhs = l;
  n->rhs = r;
  return n;
}

static Node *factor(Parser *P);

/* power = primary ['**' factor] */
static Node *power(Parser *P) {
  Node *n = primary(P);
  if (n && at(P, "**")) {
    Token *op = next(P);
    n = binary(P, n, op, factor(P), ND_BINARY);
  }
  return n;
}

/* factor = ('+' | '-' | '~') factor | power */
static Node *factor(Parser *P) {
  if (at(P, "-") || at(P, "+") || at(P, "~")) {
    if (++P->depth > MAX_DEPTH) {
      fail(P, peek(P)->loc, "expression nested too deeply", NULL);
      return NULL;
    }
    Token *op = next(P);
    Node *n = new_node(P, ND_UNARY, op->loc);
    n->op = arena_strndup(P->arena, op->start, (size_t)op->len);
    n->lhs = factor(P);
    P->depth--;
    return n->lhs ? n : NULL;
  }
  return power(P);
}

/* Left-associative binary levels, loosest last. */
static const char *const levels[][5] = {
    {"*", "/", "//", "%", "@"}, {"+", "-"}, {"<<", ">>"}, {"&"}, {"^"}, {"|"},
};
#define LOOSEST_LEVEL ((int)(sizeof levels / sizeof levels[0]) - 1)

static Node *level(Parser *P, int lv) {
  Node *n = lv == 0 ? factor(P) : level(P, lv - 1);
  for (;;) {
    if (!n) return NULL;
    Token *t = peek(P);
    bool hit = false;
    for (int i = 0; i < 5 && levels[lv][i]; i++) hit |= tok_is(t, levels[lv][i]);
    if (!hit || t->kind != TK_PUNCT) return n;
    next(P);
    n = binary(P, n, t, lv == 0 ? factor(P) : level(P, lv - 1), ND_BINARY);
  }
}

/* comparison = bitor [comp_op bitor]
 * comp_op = '<' | '<=' | '>' | '>=' | '==' | '!=' | 'in' | 'not' 'in' | 'is' ['not']
 * Chained comparisons are not in the subset. */
static const char *comp_op(Parser *P) {
  static const char *ops[] = {"<", "<=", ">", ">=", "==", "!="};
  for (size_t i = 0; i < 6; i++)
    if (at(P, ops[i]) && peek(P)->kind == TK_PUNCT) return ops[i];
  if (at(P, "in")) return "in";
  if (at(P, "is")) return tok_is(&P->m->toks[P->pos + 1], "not") ? "is not" : "is";
  if (at(P, "not") && tok_is(&P->m->toks[P->pos + 1], "in")) return "not in";
  return NULL;
}

static Node *comparison(Parser *P) {
  Node *n = level(P, LOOSEST_LEVEL);
  const char *op = n ? comp_op(P) : NULL;
  if (!op) return n;
  Token *t = next(P);
  if (!strcmp(op, "is not") || !strcmp(op, "not in")) next(P);
  Node *r = level(P, LOOSEST_LEVEL);
  if (!r) return NULL;
  Node *c = new_node(P, ND_COMPARE, t->loc);
  c->op = op;
  c->lhs = n;
  c->rhs = r;
  if (comp_op(P)) {
    fail(P, peek(P)->loc, "chained comparisons are not supported", NULL);
    return NULL;
  }
  return c;
}

/* not_test = 'not' not_test | comparison */
static Node *not_test(Parser *P) {
  if (!at(P, "not")) return comparison(P);
  if (++P->depth > MAX_DEPTH) {
    fail(P, peek(P)->loc, "expression nested too deeply", NULL);
    return NULL;
  }
  Token *t = next(P);
  Node *n = new_node(P, ND_UNARY, t->loc);
  n->op = "not";
  n->lhs = not_test(P);
  P->depth--;
  return n->lhs ? n : NULL;
}

/* or_test = and_test {'or' and_test};  and_test = not_test {'and' not_test} */
static Node *bool_test(Parser *P, bool is_or) {
  Node *n = is_or ? bool_test(P, false) : not_test(P);
  while (n && at(P, is_or ? "or" : "and")) {
    Token *t = next(P);
    Node *r = is_or ? bool_test(P, false) : not_test(P);
    if (!r) return NULL;
    Node *b = new_node(P, ND_BOOLOP, t->loc);
    b->op = is_or ? "or" : "and";
    b->lhs = n;
    b->rhs = r;
    n = b;
  }
  return n;
}

/* expr = or_test ['if' or_test 'else' expr] */
static Node *expr(Parser *P) {
  if (++P->depth > MAX_DEPTH) {
    fail(P, peek(P)->loc, "expression nested too deeply", NULL);
    return NULL;
  }
  Node *n = bool_test(P, true);
  if (n && at(P, "if")) {
    Token *t = next(P);
    Node *c = new_node(P, ND_COND, t->loc);
    c->lhs = n;
    if (!(c->cond = bool_test(P, true)) || !expect(P, "else") || !(c->rhs = expr(P))) n = NULL;
    else n = c;
  }
  P->depth--;
  if (n && at(P, "for")) {
    fail(P, peek(P)->loc, "comprehensions are not in coil's subset; write a for loop", NULL);
    return NULL;
  }
  return n;
}

/* Can the token start an expression?  A trailing comma (`a, = t`,
 * `return x,`) ends the list before '=', ':' or the end of the line. */
static bool ends_list(Parser *P) {
  Token *t = peek(P);
  return t->kind == TK_NEWLINE || t->kind == TK_EOF || t->kind == TK_DEDENT || tok_is(t, "=") || tok_is(t, ":") ||
         tok_is(t, ")") || tok_is(t, "]") || tok_is(t, "in");
}

/* A tuple expression without parentheses: `return a, b`.  With `target`,
 * the items are bitwise-or expressions, so that `for i, x in ...` stops at
 * `in`. */
static Node *expr_list_of(Parser *P, bool target) {
  SrcLoc loc = peek(P)->loc;
  Node *first = target ? level(P, LOOSEST_LEVEL) : expr(P);
  if (!first || !at(P, ",")) return first;
  Node *t = new_node(P, ND_TUPLE, loc);
  t->items = push_node(P, t->items, t->nitems++, first);
  while (accept(P, ",") && !P->err) {
    if (ends_list(P)) break;
    Node *e = target ? level(P, LOOSEST_LEVEL) : expr(P);
    if (!e) return NULL;
    t->items = push_node(P, t->items, t->nitems++, e);
  }
  return t;
}
static Node *expr_list(Parser *P) { return expr_list_of(P, false); }

/* Remember a name the body assigns: Python makes it local to the whole
 * function, so a read before its assignment is an error, not the module's
 * constant of that name. */
static void add_local(Parser *P, const char *name) {
  Func *f = P->f;
  if (!f) return;
  for (int i = 0; i < f->nlocals; i++)
    if (!strcmp(f->locals[i], name)) return;
  if ((f->nlocals & (f->nlocals - 1)) == 0) {
    const char **bigger = ARENA_ARRAY(P->arena, const char *, f->nlocals ? f->nlocals * 2 : 1);
    if (f->nlocals) memcpy(bigger, f->locals, sizeof(char *) * (size_t)f->nlocals);
    f->locals = bigger;
  }
  f->locals[f->nlocals++] = name;
}

/* An assignment target: a name, or a tuple or list of targets. */
static bool check_target(Parser *P, Node *n) {
  if (n->kind == ND_NAME) {
    add_local(P, n->name);
    return true;
  }
  if (n->kind == ND_TUPLE || n->kind == ND_LIST) {
    for (int i = 0; i < n->nitems; i++)
      if (!check_target(P, n->items[i])) return false;
    return true;
  }
  if (n->kind == ND_SUBSCRIPT || n->kind == ND_ATTR)
    fail(P, n->loc, "can only assign to names: assigning into a tensor changes it in place, which coil's subset "
                    "does not do (build a new tensor, e.g. with torch.where)", NULL);
  else
    fail(P, n->loc, "can only assign to names", NULL);
  return false;
}

static Stmt *push_stmt(Parser *P, Stmt *arr, int n) {
  if ((n & (n - 1)) == 0) {
    Stmt *bigger = ARENA_ARRAY(P->arena, Stmt, n ? n * 2 : 1);
    if (n) memcpy(bigger, arr, sizeof(Stmt) * (size_t)n);
    arr = bigger;
  }
  arr[n] = (Stmt){0};
  return arr;
}

static bool stmt(Parser *P, Stmt *s);

/* The statements a function body does not hold in coil's subset. */
static bool unsupported_statement(Parser *P, Token *t) {
  static const char *blocks[] = {"with", "def", "class", "try", "import", "from", "del", "global", "nonlocal",
                                 "lambda", "yield", "async", "await", "match", "except", "finally"};
  if (t->kind != TK_NAME) return false;
  for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
    if (tok_is(t, blocks[i])) {
      if (!strcmp(blocks[i], "match") && (tok_is(&P->m->toks[P->pos + 1], "=") || tok_is(&P->m->toks[P->pos + 1], "(")))
        return false; /* a variable or function named match */
      if (!P->err) P->err_loc = t->loc;
      P->err = P->err ? P->err
                      : coil_err_at(t->loc, "'%s' statements are not in coil's subset "
                                              "(a function body is assignments and a return)", blocks[i]);
      return true;
    }
  return false;
}

/* suite = ':' (simple_stmt | NEWLINE INDENT stmt+ DEDENT) */
static bool suite_after_colon(Parser *P, Stmt **body, int *n);
static bool suite(Parser *P, Stmt **body, int *n) {
  if (!expect(P, ":")) return false;
  return suite_after_colon(P, body, n);
}

static bool suite_after_colon(Parser *P, Stmt **body, int *n) {
  *body = NULL;
  *n = 0;
  if (peek(P)->kind != TK_NEWLINE) {
    *body = push_stmt(P, *body, 0);
    if (!stmt(P, &(*body)[0])) return false;
    *n = 1;
    return true;
  }
  next(P);
  if (peek(P)->kind != TK_INDENT) {
    fail(P, peek(P)->loc, "expected an indented block", NULL);
    return false;
  }
  next(P);
  while (peek(P)->kind != TK_DEDENT && peek(P)->kind != TK_EOF) {
    if (peek(P)->kind == TK_INDENT) {
      fail(P, peek(P)->loc, "unexpected indent", NULL);
      return false;
    }
    *body = push_stmt(P, *body, *n);
    if (!stmt(P, &(*body)[*n])) return false;
    (*n)++;
  }
  if (peek(P)->kind == TK_DEDENT) next(P);
  return true;
}

/* ['else' suite] after a loop or an if */
static bool else_suite(Parser *P, Stmt *s) {
  if (!at(P, "else")) return true;
  s->else_loc = next(P)->loc;
  return suite(P, &s->orelse, &s->norelse);
}

static bool loop_body(Parser *P, Stmt *s) {
  P->loops++;
  bool ok = suite(P, &s->body, &s->nbody);
  P->loops--;
  return ok && else_suite(P, s);
}

/* if_stmt = 'if' expr suite {'elif' expr suite} ['else' suite] */
static bool if_stmt(Parser *P, Stmt *s) {
  next(P);
  s->kind = ST_IF;
  if (!(s->value = expr(P)) || !suite(P, &s->body, &s->nbody)) return false;
  if (at(P, "elif")) {
    /* an elif is an if inside the else: the chain's length is nesting, and
     * the builder and the dump recurse over it */
    if (++P->elifs > 5 * MAX_DEPTH) {
      fail(P, peek(P)->loc, "too many elif branches in one chain", NULL);
      return false;
    }
    s->else_loc = peek(P)->loc;
    s->orelse = push_stmt(P, NULL, 0);
    s->norelse = 1;
    s->orelse[0].loc = peek(P)->loc;
    s->orelse[0].elif = true;
    bool ok = if_stmt(P, &s->orelse[0]);
    P->elifs--;
    return ok;
  }
  return else_suite(P, s);
}

/* simple_stmt = 'return' [expr_list] | 'pass' | 'break' | 'continue'
 *             | 'assert' expr [',' expr] | 'raise' [expr]
 *             | target {',' target} '=' expr_list
 *             | NAME augop expr_list
 *             | STR                  (a docstring)
 * stmt = simple_stmt NEWLINE | if_stmt | for_stmt | while_stmt */
static bool stmt(Parser *P, Stmt *s) {
  Token *t = peek(P);
  s->loc = t->loc;
  if (unsupported_statement(P, t)) return false;
  if (t->kind == TK_NAME) {
    if (tok_is(t, "if")) return if_stmt(P, s);
    if (tok_is(t, "while")) {
      next(P);
      s->kind = ST_WHILE;
      return (s->value = expr(P)) && loop_body(P, s);
    }
    if (tok_is(t, "for")) {
      next(P);
      s->kind = ST_FOR;
      Node *target = expr_list_of(P, true);
      if (!target || !check_target(P, target)) return false;
      s->targets = ARENA_ARRAY(P->arena, Node *, 1);
      s->targets[0] = target;
      s->ntargets = 1;
      if (!expect(P, "in")) return false;
      return (s->value = expr_list(P)) && loop_body(P, s);
    }
    if (tok_is(t, "elif") || tok_is(t, "else")) {
      fail(P, t->loc, "'elif' and 'else' must follow an if or a loop at the same indentation", NULL);
      return false;
    }
  }
  if (accept(P, "return")) {
    s->kind = ST_RETURN;
    if (P->f) P->f->has_return = true;
    if (peek(P)->kind != TK_NEWLINE) s->value = expr_list(P);
  } else if (accept(P, "pass")) {
    s->kind = ST_PASS;
  } else if (tok_is(t, "break") || tok_is(t, "continue")) {
    next(P);
    s->kind = tok_is(t, "break") ? ST_BREAK : ST_CONTINUE;
    if (!P->loops) {
      fail(P, t->loc, tok_is(t, "break") ? "'break' outside a loop" : "'continue' outside a loop", NULL);
      return false;
    }
  } else if (accept(P, "assert")) {
    s->kind = ST_ASSERT;
    if (!(s->value = expr(P))) return false;
    if (accept(P, ",") && !(s->msg = expr(P))) return false;
  } else if (accept(P, "raise")) {
    s->kind = ST_RAISE;
    if (peek(P)->kind != TK_NEWLINE && !(s->value = expr(P))) return false;
    if (accept(P, "from") && !expr(P)) return false;
  } else {
    Node *lhs = expr_list(P);
    if (!lhs) return false;
    Token *op = peek(P);
    if (accept(P, "=")) {
      s->kind = ST_ASSIGN;
      if (!check_target(P, lhs)) return false;
      Node **names = lhs->items;
      /* a, b = ... is two targets; `a, = t` one that unpacks a 1-tuple */
      if (lhs->kind != ND_TUPLE || lhs->nitems == 1) {
        names = ARENA_ARRAY(P->arena, Node *, 1);
        names[0] = lhs;
      }
      s->targets = names;
      s->ntargets = lhs->kind == ND_TUPLE && lhs->nitems != 1 ? lhs->nitems : 1;
      s->value = expr_list(P);
      if (at(P, "=")) {
        fail(P, peek(P)->loc, "chained assignment is not supported", NULL);
        return false;
      }
    } else if (op->kind == TK_PUNCT && op->len >= 2 && op->start[op->len - 1] == '=' && !at(P, "==") &&
               !at(P, "<=") && !at(P, ">=") && !at(P, "!=") && !at(P, ":=")) {
      next(P);
      if (lhs->kind != ND_NAME) {
        if (lhs->kind == ND_SUBSCRIPT || lhs->kind == ND_ATTR)
          fail(P, s->loc, "augmented assignment into a tensor changes it in place, which coil's subset does not do; "
                            "write y = x op v with a new name (or torch.where)", NULL);
        else
          fail(P, lhs->loc, "augmented assignment needs a single name as its target", NULL);
        return false;
      }
      add_local(P, lhs->name);
      s->kind = ST_AUG;
      s->targets = ARENA_ARRAY(P->arena, Node *, 1);
      s->targets[0] = lhs;
      s->ntargets = 1;
      Node *rhs = expr_list(P);
      if (!rhs) return false;
      Node *b = new_node(P, ND_BINARY, op->loc);
      b->op = arena_strndup(P->arena, op->start, (size_t)op->len - 1);
      b->lhs = lhs;
      b->rhs = rhs;
      s->value = b;
    } else if (lhs->kind == ND_STR) {
      s->kind = ST_EXPR;
      s->value = lhs;
    } else if (lhs->kind == ND_CALL) {
      fail(P, s->loc, "a call as a statement has no effect in coil's subset, which knows no mutation "
                      "(xs.append(v) is xs = xs + [v]); assign or return its result", NULL);
      return false;
    } else {
      fail(P, lhs->loc, "an expression statement has no effect in coil's subset; assign or return it", NULL);
      return false;
    }
  }
  if (P->err || (!s->value && (s->kind == ST_ASSIGN || s->kind == ST_AUG))) return false;
  if (peek(P)->kind != TK_NEWLINE) {
    fail(P, peek(P)->loc, "expected end of line", peek(P));
    return false;
  }
  next(P);
  return true;
}

/* Skip a statement and any indented block that follows it. */
static void skip_statement(Module *m, int *pos) {
  int i = *pos;
  while (m->toks[i].kind != TK_NEWLINE && m->toks[i].kind != TK_EOF) i++;
  if (m->toks[i].kind == TK_NEWLINE) i++;
  if (m->toks[i].kind == TK_INDENT) {
    int depth = 0;
    do {
      if (m->toks[i].kind == TK_INDENT) depth++;
      if (m->toks[i].kind == TK_DEDENT) depth--;
      i++;
    } while (depth > 0 && m->toks[i].kind != TK_EOF);
  }
  *pos = i;
}

/* def_header = 'def' NAME '(' [param {',' param}] ')' ['->' expr] ':'
 * param = NAME [':' STR] ['=' expr] */
static CoilErr *parse_def(Parser *P, Func *f) {
  Module *m = P->m;
  Token *name = next(P);
  if (name->kind != TK_NAME) return coil_err_at(name->loc, "expected a function name");
  f->name = arena_strndup(P->arena, name->start, (size_t)name->len);
  f->loc = name->loc;
  int cap = 0;
  if (!expect(P, "(")) return P->err;
  bool kwonly = false;
  while (!at(P, ")") && !P->err) {
    Token *pn = next(P);
    /* A bare `*` makes the parameters after it keyword-only. */
    if (tok_is(pn, "*") && !kwonly && (at(P, ",") || at(P, ")"))) {
      kwonly = true;
      if (!accept(P, ",")) break;
      continue;
    }
    if (tok_is(pn, "*") || tok_is(pn, "**") || tok_is(pn, "/"))
      return coil_err_at(pn->loc, "unsupported parameter form '%.*s'", pn->len, pn->start);
    if (pn->kind != TK_NAME) return coil_err_at(pn->loc, "expected a parameter name");
    if (f->nparams == cap) {
      cap = cap ? cap * 2 : 8;
      Param *np = ARENA_ARRAY(P->arena, Param, cap);
      if (f->nparams) memcpy(np, f->params, sizeof(Param) * (size_t)f->nparams);
      f->params = np;
    }
    Param *p = &f->params[f->nparams++];
    p->name = arena_strndup(P->arena, pn->start, (size_t)pn->len);
    p->loc = pn->loc;
    p->kwonly = kwonly;
    if (accept(P, ":")) {
      Token *a = peek(P);
      p->annot_loc = a->loc;
      if (a->kind == TK_STR) {
        p->annot = a->str;
        next(P);
      } else {
        /* A non-string annotation (torch.Tensor): skip it; the shape must then
         * come from --arg. */
        Node *ignored = expr(P);
        (void)ignored;
      }
    }
    if (accept(P, "=") && !(p->dflt = expr(P))) return P->err;
    if (!accept(P, ",")) break;
  }
  if (P->err || !expect(P, ")")) return P->err;
  if (accept(P, "->")) {
    Node *ignored = expr(P);
    (void)ignored;
    if (P->err) return P->err;
  }
  if (!expect(P, ":")) return P->err;
  if (peek(P)->kind != TK_NEWLINE) return coil_err_at(peek(P)->loc, "expected the function body on the next lines");
  next(P);
  if (peek(P)->kind != TK_INDENT) return coil_err_at(peek(P)->loc, "expected an indented function body");
  f->body_start = P->pos;
  int pos = P->pos - 1; /* the NEWLINE before the INDENT */
  pos++;
  int depth = 0;
  do {
    if (m->toks[pos].kind == TK_INDENT) depth++;
    if (m->toks[pos].kind == TK_DEDENT) depth--;
    pos++;
  } while (depth > 0 && m->toks[pos].kind != TK_EOF);
  f->body_end = pos;
  P->pos = pos;
  return NULL;
}

/* A dotted module name: NAME {'.' NAME}. */
static const char *dotted_name(Parser *P) {
  Token *t = next(P);
  if (t->kind != TK_NAME) return fail(P, t->loc, "expected a module name", t), NULL;
  StrBuf sb = {0};
  sb_printf(&sb, "%.*s", t->len, t->start);
  while (at(P, ".")) {
    next(P);
    t = next(P);
    if (t->kind != TK_NAME) {
      sb_free(&sb);
      return fail(P, t->loc, "expected a name after '.'", t), NULL;
    }
    sb_printf(&sb, ".%.*s", t->len, t->start);
  }
  char *r = arena_strdup(P->arena, sb.data);
  sb_free(&sb);
  return r;
}

static void add_import(Parser *P, const char *alias, const char *module, SrcLoc loc) {
  Module *m = P->m;
  Import *ni = ARENA_ARRAY(P->arena, Import, m->nimports + 1);
  if (m->nimports) memcpy(ni, m->imports, sizeof(Import) * (size_t)m->nimports);
  ni[m->nimports++] = (Import){alias, module, loc};
  m->imports = ni;
}

static const char *name_text(Parser *P, Token *t) { return arena_strndup(P->arena, t->start, (size_t)t->len); }

/* import_stmt = 'import' dotted ['as' NAME] {',' dotted ['as' NAME]}
 *             | 'from' dotted 'import' NAME ['as' NAME] {',' NAME ['as' NAME]}
 * `import torch.nn.functional` binds torch, as Python does; with `as F` it
 * binds F to the module itself. */
static CoilErr *parse_import(Parser *P, bool from) {
  if (from) {
    const char *base = dotted_name(P);
    if (!base) return P->err;
    if (!accept(P, "import")) return coil_err_at(peek(P)->loc, "expected 'import'");
    if (at(P, "*")) return NULL; /* names coil cannot know; a use of one is an undefined name */
    bool paren = accept(P, "(");
    do {
      Token *t = next(P);
      if (t->kind != TK_NAME) return coil_err_at(t->loc, "expected a name to import");
      const char *alias = name_text(P, t);
      const char *what = arena_printf(P->arena, "%s.%s", base, alias);
      if (accept(P, "as")) {
        Token *a = next(P);
        if (a->kind != TK_NAME) return coil_err_at(a->loc, "expected a name after 'as'");
        alias = name_text(P, a);
      }
      add_import(P, alias, what, t->loc);
    } while (accept(P, ",") && !(paren && at(P, ")")));
    if (paren && !expect(P, ")")) return P->err;
  } else {
    do {
      SrcLoc loc = peek(P)->loc;
      const char *mod = dotted_name(P);
      if (!mod) return P->err;
      if (accept(P, "as")) {
        Token *a = next(P);
        if (a->kind != TK_NAME) return coil_err_at(a->loc, "expected a name after 'as'");
        add_import(P, name_text(P, a), mod, loc);
      } else {
        size_t n = strcspn(mod, ".");
        add_import(P, arena_strndup(P->arena, mod, n), arena_strndup(P->arena, mod, n), loc);
      }
    } while (accept(P, ","));
  }
  if (peek(P)->kind != TK_NEWLINE && peek(P)->kind != TK_EOF && !at(P, ";"))
    return coil_err_at(peek(P)->loc, "expected the end of the import");
  return NULL;
}

/* A top-level assignment: NAME [':' annotation] '=' expr_list, or a
 * tuple of names.  One outside the subset is kept with its error (for the
 * name it assigns, reported where a function uses it) and skipped. */
static void parse_global(Parser *P) {
  Module *m = P->m;
  int start = P->pos;
  Token *first = peek(P);
  Global g = {.name = name_text(P, first)};
  if (tok_is(&m->toks[P->pos + 1], ":")) {
    /* EPS: float = 1e-6: the annotation is not evaluated */
    next(P);
    next(P);
    Node *annot = expr(P);
    if (annot && at(P, "=")) {
      Node *target = new_node(P, ND_NAME, first->loc);
      target->name = g.name;
      next(P);
      g.st = (Stmt){.kind = ST_ASSIGN, .loc = first->loc, .ntargets = 1};
      g.st.targets = ARENA_ARRAY(P->arena, Node *, 1);
      g.st.targets[0] = target;
      if ((g.st.value = expr_list(P)) && peek(P)->kind != TK_NEWLINE && peek(P)->kind != TK_EOF)
        fail(P, peek(P)->loc, "expected end of line", peek(P));
    } else if (!P->err) {
      P->pos = start;
      skip_statement(m, &P->pos);
      return; /* an annotation without a value binds nothing */
    }
  } else if (stmt(P, &g.st) && g.st.kind != ST_ASSIGN) {
    fail(P, first->loc, "expected an assignment", NULL);
  }
  if (P->err) {
    /* "FILE:L:C: error: MSG\n..." keeps MSG; the error is made again,
     * from MSG and its position, where the name is used. */
    const char *msg = strstr(P->err->msg, "error: ");
    msg = msg ? msg + 7 : P->err->msg;
    g.err = arena_printf(P->arena, "module constant '%s' is not in coil's subset: %.*s", g.name, (int)strcspn(msg, "\n"), msg);
    g.err_loc = P->err_loc.line ? P->err_loc : first->loc;
    coil_err_free(P->err);
    P->err = NULL;
    g.st = (Stmt){.kind = ST_ASSIGN, .loc = first->loc};
  }
  P->pos = start;
  skip_statement(m, &P->pos);
  Global *ng = ARENA_ARRAY(P->arena, Global, m->nglobals + 1);
  if (m->nglobals) memcpy(ng, m->globals, sizeof(Global) * (size_t)m->nglobals);
  ng[m->nglobals++] = g;
  m->globals = ng;
}

CoilErr *parse_module(Arena *a, const char *file, const char *text, Module *m) {
  *m = (Module){.file = file, .text = text};
  CoilErr *e = lex_file(a, file, text, LEX_LENIENT, &m->toks, &m->ntoks);
  if (e) return e;
  Parser P = {.arena = a, .m = m, .end = m->ntoks - 1};
  int cap = 0;
  while (peek(&P)->kind != TK_EOF) {
    if (accept(&P, "def")) {
      if (m->nfuncs == cap) {
        cap = cap ? cap * 2 : 8;
        Func *nf = ARENA_ARRAY(a, Func, cap);
        if (m->nfuncs) memcpy(nf, m->funcs, sizeof(Func) * (size_t)m->nfuncs);
        m->funcs = nf;
      }
      Func *f = &m->funcs[m->nfuncs];
      *f = (Func){0};
      if ((e = parse_def(&P, f))) return e;
      m->nfuncs++;
    } else if (at(&P, "import") || at(&P, "from")) {
      bool from = accept(&P, "from");
      if (!from) next(&P);
      /* An import coil cannot read (a relative one, say) binds nothing:
       * the file is Python that ran, and a function that uses one of its
       * names gets that name's error; the rest of the file compiles. */
      int start = P.pos;
      if ((e = parse_import(&P, from))) {
        coil_err_free(e);
        P.err = NULL; /* it may be the error just freed */
        P.pos = start;
      } else if (accept(&P, ";") && peek(&P)->kind != TK_NEWLINE) {
        continue; /* `import os; import math as m`: the next statement of the line */
      }
      skip_statement(m, &P.pos);
    } else if (peek(&P)->kind == TK_NAME && !at(&P, "else") && !at(&P, "try") && !at(&P, "finally") &&
               (tok_is(&m->toks[P.pos + 1], "=") || tok_is(&m->toks[P.pos + 1], ",") ||
                                               tok_is(&m->toks[P.pos + 1], ":"))) {
      parse_global(&P);
    } else {
      skip_statement(m, &P.pos);
    }
  }
  return NULL;
}

CoilErr *parse_body(Arena *a, Module *m, Func *f) {
  Parser P = {.arena = a, .m = m, .pos = f->body_start, .end = f->body_end, .f = f};
  /* Parsing a body twice (two defs of one name are both selected by it)
   * starts over rather than appending past the array's capacity. */
  f->body = NULL;
  f->nbody = 0;
  f->locals = NULL;
  f->nlocals = 0;
  f->has_return = false;
  for (int i = 0; i < f->nparams; i++) add_local(&P, f->params[i].name);
  P.pos = f->body_start - 1; /* the NEWLINE before the INDENT: the body is a suite */
  if (!suite_after_colon(&P, &f->body, &f->nbody)) return P.err ? P.err : coil_err_at(f->loc, "invalid function body");
  return NULL;
}

static void dump_node(StrBuf *sb, const Node *n) {
  switch (n->kind) {
  case ND_NAME: sb_puts(sb, n->name); break;
  case ND_INT: sb_printf(sb, "%lld", (long long)n->ival); break;
  case ND_FLOAT: sb_printf(sb, "%.17g", n->fval); break;
  case ND_BOOL: sb_puts(sb, n->ival ? "True" : "False"); break;
  case ND_NONE: sb_puts(sb, "None"); break;
  case ND_STR: sb_printf(sb, "\"%s\"", n->name); break;
  case ND_SLICE:
    if (n->lhs) dump_node(sb, n->lhs);
    sb_puts(sb, ":");
    if (n->rhs) dump_node(sb, n->rhs);
    if (n->nitems) { sb_puts(sb, ":"); dump_node(sb, n->items[0]); }
    break;
  case ND_ELLIPSIS: sb_puts(sb, "..."); break;
  case ND_ATTR: dump_node(sb, n->lhs); sb_printf(sb, ".%s", n->name); break;
  case ND_SUBSCRIPT: dump_node(sb, n->lhs); sb_puts(sb, "["); dump_node(sb, n->rhs); sb_puts(sb, "]"); break;
  case ND_CALL:
    dump_node(sb, n->lhs);
    sb_puts(sb, "(");
    for (int i = 0; i < n->nitems; i++) { if (i) sb_puts(sb, ", "); dump_node(sb, n->items[i]); }
    for (int i = 0; i < n->nkw; i++) {
      if (i || n->nitems) sb_puts(sb, ", ");
      sb_printf(sb, "%s=", n->kwnames[i]);
      dump_node(sb, n->kwvals[i]);
    }
    sb_puts(sb, ")");
    break;
  case ND_TUPLE: case ND_LIST:
    sb_puts(sb, n->kind == ND_LIST ? "[" : "(");
    for (int i = 0; i < n->nitems; i++) { if (i) sb_puts(sb, ", "); dump_node(sb, n->items[i]); }
    if (n->kind == ND_TUPLE && n->nitems == 1) sb_puts(sb, ",");
    sb_puts(sb, n->kind == ND_LIST ? "]" : ")");
    break;
  case ND_BINARY: case ND_COMPARE:
    sb_puts(sb, "("); dump_node(sb, n->lhs); sb_printf(sb, " %s ", n->op); dump_node(sb, n->rhs); sb_puts(sb, ")");
    break;
  case ND_UNARY: sb_printf(sb, "(%s%s", n->op, !strcmp(n->op, "not") ? " " : ""); dump_node(sb, n->lhs); sb_puts(sb, ")"); break;
  case ND_BOOLOP:
    sb_puts(sb, "("); dump_node(sb, n->lhs); sb_printf(sb, " %s ", n->op); dump_node(sb, n->rhs); sb_puts(sb, ")");
    break;
  case ND_COND:
    sb_puts(sb, "("); dump_node(sb, n->lhs); sb_puts(sb, " if "); dump_node(sb, n->cond); sb_puts(sb, " else ");
    dump_node(sb, n->rhs); sb_puts(sb, ")");
    break;
  }
}

/* One statement a line, "  LINE:COL  " first, nested bodies indented by
 * two more spaces; `else:` has its own position. */
static void dump_stmts(StrBuf *sb, const Stmt *body, int n, int depth) {
  for (int i = 0; i < n; i++) {
    const Stmt *s = &body[i];
    sb_printf(sb, "  %d:%d  %*s", s->loc.line, s->loc.col, 2 * depth, "");
    switch (s->kind) {
    case ST_RETURN: sb_puts(sb, "return"); if (s->value) { sb_puts(sb, " "); dump_node(sb, s->value); } break;
    case ST_ASSIGN:
      for (int j = 0; j < s->ntargets; j++) { dump_node(sb, s->targets[j]); sb_puts(sb, j + 1 < s->ntargets ? ", " : " = "); }
      dump_node(sb, s->value);
      break;
    case ST_EXPR: dump_node(sb, s->value); break;
    case ST_AUG:
      sb_printf(sb, "%s %s= ", s->targets[0]->name, s->value->op);
      dump_node(sb, s->value->rhs);
      break;
    case ST_PASS: sb_puts(sb, "pass"); break;
    case ST_BREAK: sb_puts(sb, "break"); break;
    case ST_CONTINUE: sb_puts(sb, "continue"); break;
    case ST_ASSERT:
      sb_puts(sb, "assert ");
      dump_node(sb, s->value);
      if (s->msg) { sb_puts(sb, ", "); dump_node(sb, s->msg); }
      break;
    case ST_RAISE: sb_puts(sb, "raise"); if (s->value) { sb_puts(sb, " "); dump_node(sb, s->value); } break;
    case ST_IF: case ST_WHILE: case ST_FOR:
      if (s->kind == ST_FOR) {
        sb_puts(sb, "for ");
        dump_node(sb, s->targets[0]);
        sb_puts(sb, " in ");
      } else {
        sb_puts(sb, s->kind == ST_WHILE ? "while " : s->elif ? "elif " : "if ");
      }
      dump_node(sb, s->value);
      sb_puts(sb, ":\n");
      dump_stmts(sb, s->body, s->nbody, depth + 1);
      if (s->norelse && s->orelse[0].elif) {
        dump_stmts(sb, s->orelse, 1, depth);
      } else if (s->norelse) {
        sb_printf(sb, "  %d:%d  %*selse:\n", s->else_loc.line, s->else_loc.col, 2 * depth, "");
        dump_stmts(sb, s->orelse, s->norelse, depth + 1);
      }
      continue;
    }
    sb_puts(sb, "\n");
  }
}

void parse_dump(StrBuf *sb, const Func *f) {
  sb_printf(sb, "def %s(", f->name);
  for (int i = 0; i < f->nparams; i++) {
    const Param *p = &f->params[i];
    if (p->kwonly && (!i || !f->params[i - 1].kwonly)) sb_puts(sb, i ? ", *" : "*");
    sb_printf(sb, "%s%s%s%s%s", i || p->kwonly ? ", " : "", p->name, p->annot ? ": \"" : "", p->annot ? p->annot : "",
              p->annot ? "\"" : "");
    if (p->dflt) { sb_puts(sb, "="); dump_node(sb, p->dflt); }
  }
  sb_puts(sb, "):\n");
  dump_stmts(sb, f->body, f->nbody, 0);
}
