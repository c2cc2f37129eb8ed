/* Python tokens for the Triton subset.
 *
 * Produces NAME, INT, FLOAT, STR and OP tokens plus NEWLINE, INDENT and
 * DEDENT as Python's tokenizer does: no NEWLINE inside brackets or after a
 * backslash, none for blank or comment-only lines, and one DEDENT per
 * closed indentation level.  A tab advances to the next multiple of 8.
 * Every token carries its line and column (1-based, in bytes). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tx/tx.h"

typedef struct Lexer {
  Arena *a;
  const char *file, *src, *p;
  int line;
  const char *line_start;
  TxTok *toks;
  int n, cap;
  int indents[128];
  int nindent;
  int depth; /* bracket nesting */
  const char *open[64]; /* the open brackets, for "never closed" */
  int open_line[64];
  const char *open_ls[64];
} Lexer;

static SrcLoc lex_loc(Lexer *L, const char *p) {
  return (SrcLoc){L->file, L->src, L->line, (int)(p - L->line_start) + 1};
}

static TxTok *push(Lexer *L, TxTokKind kind, const char *p, int len) {
  if (L->n == L->cap) {
    int cap = L->cap ? L->cap * 2 : 1024;
    TxTok *t = ARENA_ARRAY(L->a, TxTok, cap);
    if (L->n) memcpy(t, L->toks, sizeof(TxTok) * (size_t)L->n);
    L->toks = t;
    L->cap = cap;
  }
  TxTok *t = &L->toks[L->n++];
  *t = (TxTok){.kind = kind, .p = p, .len = len, .line = L->line,
               .col = (int)(p - L->line_start) + 1};
  return t;
}

bool tx_tok_is(const TxTok *t, const char *s) {
  if (t->kind != TXT_OP && t->kind != TXT_NAME) return false;
  size_t n = strlen(s);
  return (size_t)t->len == n && !memcmp(t->p, s, n);
}

static bool is_ident0(int c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c >= 0x80;
}
static bool is_ident(int c) { return is_ident0(c) || (c >= '0' && c <= '9'); }

/* Longest operators first. */
static const char *ops[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=",
    ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    ":=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "<", ">", "(", ")",
    "[", "]", "{", "}", ",", ":", ".", ";", "@", "=",
};

/* number: decimal, 0x/0o/0b ints, floats with '.', exponents, '_' */
static CoilErr *lex_number(Lexer *L) {
  const char *start = L->p;
  char buf[128];
  int n = 0;
  bool is_float = false;
  const char *q = L->p;
  if (q[0] == '0' && strchr("xXoObB", q[1]) && q[1]) {
    int base = (q[1] == 'x' || q[1] == 'X') ? 16 : (q[1] == 'o' || q[1] == 'O') ? 8 : 2;
    q += 2;
    while (is_ident(*q)) {
      if (*q != '_' && n < 120) buf[n++] = *q;
      q++;
    }
    buf[n] = 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, base);
    if (n == 0 || *end || errno || v > INT64_MAX)
      return coil_error_at(lex_loc(L, start), "invalid integer literal '%.*s'",
                           (int)(q - start), start);
    TxTok *t = push(L, TXT_INT, start, (int)(q - start));
    t->ival = (int64_t)v;
    L->p = q;
    return NULL;
  }
  while ((*q >= '0' && *q <= '9') || *q == '_' || *q == '.' || *q == 'e' ||
         *q == 'E' ||
         ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E'))) {
    if (*q == '.' || *q == 'e' || *q == 'E') is_float = true;
    if (*q != '_' && n < 120) buf[n++] = *q;
    q++;
  }
  buf[n] = 0;
  if (is_ident(*q))
    return coil_error_at(lex_loc(L, start), "invalid number literal '%.*s'",
                         (int)(q - start + 1), start);
  char *end;
  errno = 0;
  if (is_float) {
    double v = strtod(buf, &end);
    if (*end) return coil_error_at(lex_loc(L, start), "invalid float literal");
    TxTok *t = push(L, TXT_FLOAT, start, (int)(q - start));
    t->fval = v;
  } else {
    unsigned long long v = strtoull(buf, &end, 10);
    if (*end || errno || v > INT64_MAX)
      return coil_error_at(lex_loc(L, start),
                           "integer literal '%s' does not fit in 64 bits", buf);
    TxTok *t = push(L, TXT_INT, start, (int)(q - start));
    t->ival = (int64_t)v;
  }
  L->p = q;
  return NULL;
}

/* '...', "...", '''...''', """...""", with r/b/f prefixes already skipped.
 * Escapes are decoded for \n \t \\ \' \"; others are kept as written. */
static CoilErr *lex_string(Lexer *L, const char *start, bool raw) {
  char quote = *L->p;
  bool triple = L->p[1] == quote && L->p[2] == quote;
  const char *q = L->p + (triple ? 3 : 1);
  StrBuf sb = {0};
  sb_puts(&sb, "");
  int start_line = L->line;
  const char *start_line_start = L->line_start;
  for (;;) {
    if (!*q || (!triple && *q == '\n')) {
      sb_free(&sb);
      L->line = start_line;
      L->line_start = start_line_start;
      return coil_error_at(lex_loc(L, start), "unterminated string literal");
    }
    if (*q == quote && (!triple || (q[1] == quote && q[2] == quote))) break;
    if (*q == '\\' && !raw && q[1]) {
      char c = q[1];
      sb_putc(&sb, c == 'n' ? '\n' : c == 't' ? '\t' : c);
      if (c == '\n') { L->line++; L->line_start = q + 2; }
      q += 2;
      continue;
    }
    if (*q == '\n') {
      L->line++;
      L->line_start = q + 1;
    }
    sb_putc(&sb, *q++);
  }
  q += triple ? 3 : 1;
  /* The token keeps the position where the string started. */
  int line = L->line;
  const char *ls = L->line_start;
  L->line = start_line;
  L->line_start = start_line_start;
  TxTok *t = push(L, TXT_STR, start, (int)(q - start));
  L->line = line;
  L->line_start = ls;
  t->str = arena_strdup(L->a, sb.data);
  sb_free(&sb);
  L->p = q;
  return NULL;
}

/* At the start of a logical line: measure indentation, emit INDENT/DEDENT.
 * Returns false for a blank or comment-only line (skipped entirely). */
static CoilErr *lex_indent(Lexer *L, bool *skip) {
  const char *q = L->p;
  int col = 0;
  for (;; q++) {
    if (*q == ' ') col++;
    else if (*q == '\t') col = (col / 8 + 1) * 8;
    else if (*q == '\f') col = 0;
    else break;
  }
  if (*q == '\n' || *q == '#' || *q == '\r' || !*q) {
    while (*q && *q != '\n') q++;
    if (*q == '\n') {
      q++;
      L->line++;
      L->line_start = q;
    }
    L->p = q;
    *skip = *q != 0;
    return NULL;
  }
  *skip = false;
  L->p = q;
  int cur = L->indents[L->nindent - 1];
  if (col > cur) {
    if (L->nindent == 128)
      return coil_error_at(lex_loc(L, q), "too many indentation levels");
    L->indents[L->nindent++] = col;
    push(L, TXT_INDENT, q, 0);
  } else {
    while (col < L->indents[L->nindent - 1]) {
      L->nindent--;
      push(L, TXT_DEDENT, q, 0);
    }
    if (col != L->indents[L->nindent - 1])
      return coil_error_at(lex_loc(L, q),
                           "unindent does not match any outer indentation level");
  }
  return NULL;
}

CoilErr *tx_lex(Arena *a, const char *file, const char *src, TxTok **out,
                int *ntoks) {
  Lexer L = {.a = a, .file = file, .src = src, .p = src, .line = 1,
             .line_start = src, .nindent = 1};
  CoilErr *err;
  bool at_line_start = true;
  for (;;) {
    if (at_line_start && L.depth == 0) {
      bool skip;
      if ((err = lex_indent(&L, &skip))) return err;
      if (skip) continue;
      at_line_start = false;
    }
    const char *p = L.p;
    if (!*p) break;
    if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f') {
      L.p++;
      continue;
    }
    if (*p == '#') {
      while (*L.p && *L.p != '\n') L.p++;
      continue;
    }
    if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
      L.p += p[1] == '\n' ? 2 : 3;
      L.line++;
      L.line_start = L.p;
      continue;
    }
    if (*p == '\n') {
      if (L.depth == 0) {
        push(&L, TXT_NEWLINE, p, 1);
        at_line_start = true;
      }
      L.p++;
      L.line++;
      L.line_start = L.p;
      continue;
    }
    if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
      if ((err = lex_number(&L))) return err;
      continue;
    }
    if (is_ident0((unsigned char)*p)) {
      const char *q = p;
      while (is_ident((unsigned char)*q)) q++;
      /* String prefixes: r, b, f, u and their pairs. */
      if ((*q == '\'' || *q == '"') && q - p <= 2) {
        bool raw = false, ok = true;
        for (const char *c = p; c < q; c++) {
          if (*c == 'r' || *c == 'R') raw = true;
          else if (!strchr("bBfFuU", *c)) ok = false;
        }
        if (ok) {
          L.p = q;
          if ((err = lex_string(&L, p, raw))) return err;
          continue;
        }
      }
      push(&L, TXT_NAME, p, (int)(q - p));
      L.p = q;
      continue;
    }
    if (*p == '\'' || *p == '"') {
      if ((err = lex_string(&L, p, false))) return err;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
      size_t n = strlen(ops[i]);
      if (!strncmp(p, ops[i], n)) {
        if (strchr("([{", *p) && n == 1) {
          if (L.depth == 64) return coil_error_at(lex_loc(&L, p), "brackets nested too deeply");
          L.open[L.depth] = p;
          L.open_line[L.depth] = L.line;
          L.open_ls[L.depth] = L.line_start;
          L.depth++;
        }
        if (strchr(")]}", *p) && n == 1) {
          if (L.depth == 0)
            return coil_error_at(lex_loc(&L, p), "unmatched '%c'", *p);
          L.depth--;
        }
        push(&L, TXT_OP, p, (int)n);
        L.p += n;
        found = true;
        break;
      }
    }
    if (!found)
      return coil_error_at(lex_loc(&L, p), "invalid character '%c' in source",
                           *p);
  }
  if (L.depth) {
    const char *o = L.open[L.depth - 1];
    L.line = L.open_line[L.depth - 1];
    L.line_start = L.open_ls[L.depth - 1];
    return coil_error_at(lex_loc(&L, o), "'%c' was never closed", *o);
  }
  if (L.n && L.toks[L.n - 1].kind != TXT_NEWLINE &&
      L.toks[L.n - 1].kind != TXT_DEDENT)
    push(&L, TXT_NEWLINE, L.p, 0);
  while (L.nindent > 1) {
    L.nindent--;
    push(&L, TXT_DEDENT, L.p, 0);
  }
  push(&L, TXT_EOF, L.p, 0);
  *out = L.toks;
  *ntoks = L.n;
  return NULL;
}
