/* Parser: Python tokens -> function headers, and one function's body as
 * coil's subset of Python.
 *
 * The top level is only scanned for `def` headers; every other top-level
 * statement (imports, if __name__ blocks, assignments) and every body but
 * the selected function's is skipped by its indentation, so a file that is
 * also a runnable PyTorch script compiles as it is.
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
  CoilErr *err;
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
  if (t && t->kind == TK_NEWLINE) P->err = coil_error_at(loc, "%s, found end of line", msg);
  else if (t && (t->kind == TK_EOF || t->kind == TK_DEDENT))
    P->err = coil_error_at(loc, "%s, found end of function", msg);
  else if (t) P->err = coil_error_at(loc, "%s, found '%.*s'", msg, t->len, t->start);
  else P->err = coil_error_at(loc, "%s", msg);
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
        P->err = P->err ? P->err : coil_error_at(t->loc, "'%s' is not in coil's subset%s", keywords[i],
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
    {"*", "/", "//", "%", "@"}, {"+", "-"}, {"&"}, {"^"}, {"|"},
};

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

/* comparison = bitor [('<'|'<='|'>'|'>='|'=='|'!=') bitor]
 * Chained comparisons are not in the subset. */
static Node *comparison(Parser *P) {
  Node *n = level(P, 4);
  static const char *ops[] = {"<", "<=", ">", ">=", "==", "!="};
  for (size_t i = 0; n && i < 6; i++)
    if (at(P, ops[i])) {
      Token *op = next(P);
      n = binary(P, n, op, level(P, 4), ND_COMPARE);
      for (size_t j = 0; n && j < 6; j++)
        if (at(P, ops[j])) {
          fail(P, peek(P)->loc, "chained comparisons are not supported", NULL);
          return NULL;
        }
      break;
    }
  return n;
}

/* expr = comparison   (the Python keywords and/or/not/if are outside the subset) */
static Node *expr(Parser *P) {
  if (++P->depth > MAX_DEPTH) {
    fail(P, peek(P)->loc, "expression nested too deeply", NULL);
    return NULL;
  }
  Node *n = comparison(P);
  P->depth--;
  if (n && (at(P, "and") || at(P, "or") || at(P, "if") || at(P, "is") || at(P, "in"))) {
    Token *t = peek(P);
    bool logic = at(P, "and") || at(P, "or");
    P->err = P->err ? P->err : coil_error_at(t->loc, "'%.*s' is not in coil's subset%s", t->len, t->start,
                                             logic ? " (use & and | on bool tensors)" : "");
    return NULL;
  }
  return n;
}

/* A tuple expression without parentheses: `return a, b` */
static Node *expr_list(Parser *P) {
  SrcLoc loc = peek(P)->loc;
  Node *first = expr(P);
  if (!first || !at(P, ",")) return first;
  Node *t = new_node(P, ND_TUPLE, loc);
  t->items = push_node(P, t->items, t->nitems++, first);
  while (accept(P, ",") && !P->err) {
    if (peek(P)->kind == TK_NEWLINE) break;
    Node *e = expr(P);
    if (!e) return NULL;
    t->items = push_node(P, t->items, t->nitems++, e);
  }
  return t;
}

/* stmt = 'return' expr_list NEWLINE
 *      | NAME {',' NAME} '=' expr_list NEWLINE
 *      | STR NEWLINE          (a docstring)
 *      | 'pass' NEWLINE */
static bool stmt(Parser *P, Stmt *s) {
  Token *t = peek(P);
  s->loc = t->loc;
  if (accept(P, "return")) {
    s->kind = ST_RETURN;
    if (peek(P)->kind == TK_NEWLINE) {
      fail(P, t->loc, "a function must return a tensor", NULL);
      return false;
    }
    s->value = expr_list(P);
  } else if (tok_is(t, "pass")) {
    next(P);
    s->kind = ST_EXPR;
  } else {
    Node *lhs = expr_list(P);
    if (!lhs) return false;
    if (accept(P, "=")) {
      s->kind = ST_ASSIGN;
      Node **names = lhs->items;
      if (lhs->kind != ND_TUPLE) {
        names = ARENA_ARRAY(P->arena, Node *, 1);
        names[0] = lhs;
      }
      int n = lhs->kind == ND_TUPLE ? lhs->nitems : 1;
      for (int i = 0; i < n; i++)
        if (names[i]->kind != ND_NAME) {
          fail(P, names[i]->loc, "can only assign to names", NULL);
          return false;
        }
      s->targets = names;
      s->ntargets = n;
      s->value = expr_list(P);
      if (at(P, "=")) {
        fail(P, peek(P)->loc, "chained assignment is not supported", NULL);
        return false;
      }
    } else if (peek(P)->kind == TK_PUNCT && peek(P)->len >= 2 && peek(P)->start[peek(P)->len - 1] == '=' &&
               !at(P, "==") && !at(P, "<=") && !at(P, ">=") && !at(P, "!=")) {
      fail(P, peek(P)->loc, "augmented assignment is not supported; write x = x op y", NULL);
      return false;
    } else if (lhs->kind == ND_STR) {
      s->kind = ST_EXPR;
    } else {
      fail(P, lhs->loc, "an expression statement has no effect in coil's subset; assign or return it", NULL);
      return false;
    }
  }
  if (P->err || (!s->value && s->kind != ST_EXPR)) return false;
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
  if (name->kind != TK_NAME) return coil_error_at(name->loc, "expected a function name");
  f->name = arena_strndup(P->arena, name->start, (size_t)name->len);
  f->loc = name->loc;
  int cap = 0;
  if (!expect(P, "(")) return P->err;
  while (!at(P, ")") && !P->err) {
    Token *pn = next(P);
    if (tok_is(pn, "*") || tok_is(pn, "**") || tok_is(pn, "/"))
      return coil_error_at(pn->loc, "unsupported parameter form '%.*s'", pn->len, pn->start);
    if (pn->kind != TK_NAME) return coil_error_at(pn->loc, "expected a parameter name");
    if (f->nparams == cap) {
      cap = cap ? cap * 2 : 8;
      Param *np = ARENA_ARRAY(P->arena, Param, cap);
      if (f->nparams) memcpy(np, f->params, sizeof(Param) * (size_t)f->nparams);
      f->params = np;
    }
    Param *p = &f->params[f->nparams++];
    p->name = arena_strndup(P->arena, pn->start, (size_t)pn->len);
    p->loc = pn->loc;
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
    if (accept(P, "=")) {
      Node *ignored = expr(P);
      (void)ignored;
    }
    if (!accept(P, ",")) break;
  }
  if (P->err || !expect(P, ")")) return P->err;
  if (accept(P, "->")) {
    Node *ignored = expr(P);
    (void)ignored;
    if (P->err) return P->err;
  }
  if (!expect(P, ":")) return P->err;
  if (peek(P)->kind != TK_NEWLINE) return coil_error_at(peek(P)->loc, "expected the function body on the next lines");
  next(P);
  if (peek(P)->kind != TK_INDENT) return coil_error_at(peek(P)->loc, "expected an indented function body");
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
    } else {
      skip_statement(m, &P.pos);
    }
  }
  return NULL;
}

CoilErr *parse_body(Arena *a, Module *m, Func *f) {
  Parser P = {.arena = a, .m = m, .pos = f->body_start, .end = f->body_end};
  /* Parsing a body twice (two defs of one name are both selected by it)
   * starts over rather than appending past the array's capacity. */
  f->body = NULL;
  f->nbody = 0;
  next(&P); /* INDENT */
  int cap = 0;
  while (peek(&P)->kind != TK_DEDENT && peek(&P)->kind != TK_EOF) {
    Token *t = peek(&P);
    if (t->kind == TK_INDENT) return coil_error_at(t->loc, "unexpected indent");
    static const char *blocks[] = {"if", "for", "while", "with", "def", "class", "try", "import", "from",
                                   "assert", "raise", "del", "global", "nonlocal", "lambda", "yield"};
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
      if (tok_is(t, blocks[i]) && t->kind == TK_NAME)
        return coil_error_at(t->loc, "'%s' statements are not in coil's subset "
                             "(a function body is assignments and a return)", blocks[i]);
    if (f->nbody == cap) {
      cap = cap ? cap * 2 : 16;
      Stmt *ns = ARENA_ARRAY(a, Stmt, cap);
      if (f->nbody) memcpy(ns, f->body, sizeof(Stmt) * (size_t)f->nbody);
      f->body = ns;
    }
    Stmt *s = &f->body[f->nbody];
    *s = (Stmt){0};
    if (!stmt(&P, s)) return P.err ? P.err : coil_error_at(t->loc, "invalid statement");
    f->nbody++;
  }
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
  case ND_UNARY: sb_printf(sb, "(%s", n->op); dump_node(sb, n->lhs); sb_puts(sb, ")"); break;
  }
}

void parse_dump(StrBuf *sb, const Func *f) {
  sb_printf(sb, "def %s(", f->name);
  for (int i = 0; i < f->nparams; i++)
    sb_printf(sb, "%s%s%s%s%s", i ? ", " : "", f->params[i].name, f->params[i].annot ? ": \"" : "",
              f->params[i].annot ? f->params[i].annot : "", f->params[i].annot ? "\"" : "");
  sb_puts(sb, "):\n");
  for (int i = 0; i < f->nbody; i++) {
    const Stmt *s = &f->body[i];
    sb_printf(sb, "  %d:%d  ", s->loc.line, s->loc.col);
    if (s->kind == ST_RETURN) sb_puts(sb, "return ");
    if (s->kind == ST_ASSIGN)
      for (int j = 0; j < s->ntargets; j++) sb_printf(sb, "%s%s", s->targets[j]->name, j + 1 < s->ntargets ? ", " : " = ");
    if (s->value) dump_node(sb, s->value);
    else sb_puts(sb, "pass");
    sb_puts(sb, "\n");
  }
}
