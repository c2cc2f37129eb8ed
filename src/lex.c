/* Lexer for Python source.
 *
 * Produces NEWLINE/INDENT/DEDENT tokens as Python does: newlines inside
 * brackets and after a backslash join lines; blank and comment-only lines
 * are ignored.  String literals of every prefix and quote form are
 * recognised (so f-strings in a skipped main() lex fine) and decoded for
 * simple escapes.  Unknown characters become one-character punctuators:
 * only the parser of the selected function judges them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "coil.h"

typedef struct Lexer {
  Arena *arena;
  const char *file, *text, *p;
  int line;
  const char *line_start;
  Token *toks;
  int n, cap;
  int depth; /* bracket nesting */
  int indents[256];
  int nindent;
} Lexer;

static SrcLoc here(Lexer *L, const char *at) {
  return (SrcLoc){L->file, L->text, L->line, (int)(at - L->line_start) + 1};
}

static Token *push(Lexer *L, TokKind k, const char *start, int len) {
  if (L->n == L->cap) {
    int cap = L->cap ? L->cap * 2 : 1024;
    Token *t = arena_alloc(L->arena, sizeof(Token) * (size_t)cap);
    if (L->n) memcpy(t, L->toks, sizeof(Token) * (size_t)L->n);
    L->toks = t;
    L->cap = cap;
  }
  Token *t = &L->toks[L->n++];
  *t = (Token){.kind = k, .start = start, .len = len, .loc = here(L, start)};
  return t;
}

bool tok_is(const Token *t, const char *s) {
  return (t->kind == TK_PUNCT || t->kind == TK_NAME) &&
         (int)strlen(s) == t->len && !memcmp(t->start, s, (size_t)t->len);
}

static const char *puncts[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>",
    "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "@=",
};

static void newline_at(Lexer *L, const char *p) {
  L->line++;
  L->line_start = p + 1;
}

/* Skip a string literal starting at p (just past any prefix) and decode it. */
static CoilErr *lex_string(Lexer *L, const char *start, const char **pp, bool raw) {
  const char *p = *pp;
  char q = *p;
  bool triple = p[1] == q && p[2] == q;
  SrcLoc loc = here(L, start);
  p += triple ? 3 : 1;
  StrBuf sb = {0};
  sb_puts(&sb, "");
  for (;;) {
    if (!*p) {
      sb_free(&sb);
      return coil_error_at(loc, "unterminated string literal");
    }
    if (triple ? (p[0] == q && p[1] == q && p[2] == q) : *p == q) break;
    if (*p == '\n') {
      if (!triple) {
        sb_free(&sb);
        return coil_error_at(loc, "unterminated string literal");
      }
      newline_at(L, p);
    }
    if (*p == '\\' && p[1]) {
      if (raw) {
        sb_putc(&sb, *p++);
      } else {
        p++;
        char c = *p;
        if (c == '\n') newline_at(L, p);
        sb_putc(&sb, c == 'n' ? '\n' : c == 't' ? '\t' : c);
        p++;
        continue;
      }
    }
    sb_putc(&sb, *p++);
  }
  p += triple ? 3 : 1;
  Token *t = push(L, TK_STR, start, (int)(p - start));
  t->loc = loc;
  t->str = arena_strdup(L->arena, sb.data);
  sb_free(&sb);
  *pp = p;
  return NULL;
}

CoilErr *lex_file(Arena *a, const char *file, const char *text, Token **toks,
                  int *ntoks) {
  Lexer L = {.arena = a, .file = file, .text = text, .p = text, .line = 1,
             .line_start = text};
  L.indents[0] = 0;
  L.nindent = 1;
  bool at_line_start = true;
  const char *p = text;
  while (*p) {
    if (at_line_start && L.depth == 0) {
      /* Measure indentation; blank and comment lines don't count. */
      int col = 0;
      const char *q = p;
      while (*q == ' ' || *q == '\t') col = *q++ == '\t' ? (col / 8 + 1) * 8 : col + 1;
      if (*q == '\n' || *q == '#' || *q == '\r' || !*q) {
        while (*q && *q != '\n') q++;
        if (*q == '\n') newline_at(&L, q), q++;
        p = q;
        continue;
      }
      at_line_start = false;
      if (col > L.indents[L.nindent - 1]) {
        if (L.nindent == 256) return coil_error_at(here(&L, q), "indentation nested too deeply");
        L.indents[L.nindent++] = col;
        push(&L, TK_INDENT, q, 0);
      } else {
        while (col < L.indents[L.nindent - 1]) {
          L.nindent--;
          push(&L, TK_DEDENT, q, 0);
        }
        if (col != L.indents[L.nindent - 1])
          return coil_error_at(here(&L, q), "unindent does not match any outer indentation level");
      }
      p = q;
    }
    char c = *p;
    if (c == '\n') {
      if (L.depth == 0) {
        push(&L, TK_NEWLINE, p, 0);
        at_line_start = true;
      }
      newline_at(&L, p);
      p++;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') { p++; continue; }
    if (c == '#') { while (*p && *p != '\n') p++; continue; }
    if (c == '\\' && p[1] == '\n') { newline_at(&L, p + 1); p += 2; continue; }
    if (isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
      const char *s = p;
      while (isalnum((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80) p++;
      /* String prefixes: r, b, f, u and their combinations. */
      if ((*p == '"' || *p == '\'') && p - s <= 2) {
        bool raw = memchr(s, 'r', (size_t)(p - s)) || memchr(s, 'R', (size_t)(p - s));
        CoilErr *e = lex_string(&L, s, &p, raw);
        if (e) return e;
        continue;
      }
      push(&L, TK_NAME, s, (int)(p - s));
      continue;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p[1]))) {
      const char *s = p;
      bool is_float = false;
      if (c == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (isxdigit((unsigned char)*p) || *p == '_') p++;
      } else {
        while (isdigit((unsigned char)*p) || *p == '_') p++;
        if (*p == '.') { is_float = true; p++; while (isdigit((unsigned char)*p) || *p == '_') p++; }
        if ((*p == 'e' || *p == 'E') &&
            (isdigit((unsigned char)p[1]) || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
          is_float = true;
          p += 2;
          while (isdigit((unsigned char)*p)) p++;
        }
      }
      char buf[128];
      size_t n = 0;
      for (const char *q = s; q < p && n + 1 < sizeof buf; q++)
        if (*q != '_') buf[n++] = *q;
      buf[n] = 0;
      Token *t = push(&L, is_float ? TK_FLOAT : TK_INT, s, (int)(p - s));
      if (is_float) {
        t->fval = strtod(buf, NULL);
      } else {
        char *end;
        unsigned long long v = strtoull(buf, &end, 0);
        if (v > (unsigned long long)INT64_MAX || (n > 1 && buf[0] == '0' && buf[1] != 'x' && buf[1] != 'X' && v != 0))
          return coil_error_at(t->loc, "integer literal %.*s is out of range or malformed", t->len, t->start);
        t->ival = (int64_t)v;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      CoilErr *e = lex_string(&L, p, &p, false);
      if (e) return e;
      continue;
    }
    int len = 1;
    for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++) {
      size_t n = strlen(puncts[i]);
      if (!strncmp(p, puncts[i], n)) { len = (int)n; break; }
    }
    if (len == 1) {
      if (c == '(' || c == '[' || c == '{') L.depth++;
      if ((c == ')' || c == ']' || c == '}') && L.depth > 0) L.depth--;
    }
    push(&L, TK_PUNCT, p, len);
    p += len;
  }
  if (!at_line_start) push(&L, TK_NEWLINE, p, 0);
  while (L.nindent > 1) {
    L.nindent--;
    push(&L, TK_DEDENT, p, 0);
  }
  push(&L, TK_EOF, p, 0);
  *toks = L.toks;
  *ntoks = L.n;
  return NULL;
}
