/* Lexer for Python source: the one tokenizer of the function front end
 * (parse.c) and of the Triton executor (tx/parse.c).
 *
 * Produces NEWLINE/INDENT/DEDENT tokens as Python does: newlines inside
 * brackets and after a backslash join lines; blank and comment-only lines
 * are ignored; in indentation a tab advances to the next multiple of 8 and
 * a form feed starts the count again, as in CPython.  String literals of
 * every prefix and quote form are recognised (so f-strings in a skipped
 * main() lex fine) and decoded for simple escapes.  Numbers: decimal,
 * 0x/0o/0b integers, floats with '.' or an exponent, '_' separators.
 * Every token carries its file:line:col (1-based, in bytes).
 *
 * What is not Python depends on the caller (LexMode in lex.h): the front
 * end lets its parser judge the tokens of the one function it compiles,
 * the executor wants Python's own errors for the whole file. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

#define MAX_INDENT 256
/* LEX_STRICT only.  Deeper nesting is an error, which also bounds the
 * recursion of tx/parse.c (it has no depth limit of its own). */
#define MAX_BRACKETS 64

typedef struct Lexer {
  Arena *arena;
  LexMode mode;
  const char *file, *text;
  int line;
  const char *line_start;
  Token *toks;
  int n, cap;
  int depth;                 /* bracket nesting */
  int open[MAX_BRACKETS];    /* LEX_STRICT: the open brackets' tokens */
  int indents[MAX_INDENT];
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

/* Longest first; a single character is tried after these. */
static const char *puncts[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>",
    "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "@=",
};
/* The one-character punctuators Python has (LEX_STRICT rejects others). */
static const char single_puncts[] = "+-*/%&|^~<>()[]{},:.;@=";

static bool is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

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
      return coil_err_at(loc, "unterminated string literal");
    }
    if (triple ? (p[0] == q && p[1] == q && p[2] == q) : *p == q) break;
    if (*p == '\n') {
      if (!triple) {
        sb_free(&sb);
        return coil_err_at(loc, "unterminated string literal");
      }
      newline_at(L, p);
    }
    if (*p == '\\' && p[1]) {
      if (raw) {
        /* A raw string keeps the backslash, but it still escapes a quote. */
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

static bool is_digit_of(char c, int base) {
  if (base == 16) return isxdigit((unsigned char)c);
  if (base == 10) return c >= '0' && c <= '9';
  return c >= '0' && c < '0' + base;
}

/* A number starting at *pp: an integer (decimal, 0x, 0o, 0b) or a float. */
static CoilErr *lex_number(Lexer *L, const char **pp) {
  const char *s = *pp, *p = s;
  bool is_float = false;
  int base = 10;
  if (p[0] == '0' && p[1] && strchr("xXoObB", p[1])) {
    base = strchr("xX", p[1]) ? 16 : strchr("oO", p[1]) ? 8 : 2;
    p += 2;
    while (is_digit_of(*p, base) || *p == '_') p++;
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
  /* 1j, 0x1g, 1abc: Python's tokenizer stops here; the lenient mode leaves
   * the rest as a name for the parser to judge. */
  if (L->mode == LEX_STRICT && is_name_char(*p))
    return coil_err_at(here(L, s), "invalid number literal '%.*s'", (int)(p - s + 1), s);
  /* The digits without '_' (and without the 0x prefix): a literal of any
   * length converts exactly. */
  const char *d = base == 10 ? s : s + 2;
  char small[64];
  char *buf = (size_t)(p - d) < sizeof small ? small : arena_alloc(L->arena, (size_t)(p - d) + 1);
  size_t n = 0;
  for (const char *q = d; q < p; q++)
    if (*q != '_') buf[n++] = *q;
  buf[n] = 0;
  Token *t = push(L, is_float ? TK_FLOAT : TK_INT, s, (int)(p - s));
  if (is_float) {
    t->fval = strtod(buf, NULL);
  } else {
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, base);
    /* Python forbids leading zeros in a nonzero decimal (007 is not 7). */
    if (n == 0 || errno || v > (unsigned long long)INT64_MAX ||
        (base == 10 && n > 1 && buf[0] == '0' && v != 0))
      return coil_err_at(t->loc, "integer literal %.*s is out of range or malformed", t->len, t->start);
    t->ival = (int64_t)v;
  }
  *pp = p;
  return NULL;
}

/* At the start of a logical line (outside brackets): measure the
 * indentation and push INDENT/DEDENTs.  *blank: the line is blank or only
 * a comment, and was skipped whole. */
static CoilErr *lex_indent(Lexer *L, const char **pp, bool *blank) {
  int col = 0;
  const char *q = *pp;
  for (;; q++) {
    if (*q == ' ') col++;
    else if (*q == '\t') col = (col / 8 + 1) * 8;
    else if (*q == '\f') col = 0;
    else break;
  }
  *blank = *q == '\n' || *q == '#' || *q == '\r' || !*q;
  if (*blank) {
    while (*q && *q != '\n') q++;
    if (*q == '\n') newline_at(L, q), q++;
    *pp = q;
    return NULL;
  }
  if (col > L->indents[L->nindent - 1]) {
    if (L->nindent == MAX_INDENT) return coil_err_at(here(L, q), "indentation nested too deeply");
    L->indents[L->nindent++] = col;
    push(L, TK_INDENT, q, 0);
  } else {
    while (col < L->indents[L->nindent - 1]) {
      L->nindent--;
      push(L, TK_DEDENT, q, 0);
    }
    if (col != L->indents[L->nindent - 1])
      return coil_err_at(here(L, q), "unindent does not match any outer indentation level");
  }
  *pp = q;
  return NULL;
}

/* Punctuation at p (never a NUL).  Brackets are counted, for the NEWLINEs
 * they suppress; LEX_STRICT also matches them. */
static CoilErr *lex_punct(Lexer *L, const char **pp) {
  const char *p = *pp;
  char c = *p;
  int len = 1;
  for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++) {
    size_t n = strlen(puncts[i]);
    if (!strncmp(p, puncts[i], n)) { len = (int)n; break; }
  }
  bool strict = L->mode == LEX_STRICT;
  if (len == 1) {
    if (strict && !strchr(single_puncts, c))
      return coil_err_at(here(L, p), "invalid character '%c' in source", c);
    if (c == '(' || c == '[' || c == '{') {
      if (strict) {
        if (L->depth == MAX_BRACKETS) return coil_err_at(here(L, p), "brackets nested too deeply");
        L->open[L->depth] = L->n; /* the token pushed below */
      }
      L->depth++;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (L->depth > 0) L->depth--;
      else if (strict) return coil_err_at(here(L, p), "unmatched '%c'", c);
    }
  }
  push(L, TK_PUNCT, p, len);
  *pp = p + len;
  return NULL;
}

CoilErr *lex_file(Arena *a, const char *file, const char *text, LexMode mode,
                  Token **toks, int *ntoks) {
  Lexer L = {.arena = a, .mode = mode, .file = file, .text = text, .line = 1,
             .line_start = text};
  L.indents[0] = 0;
  L.nindent = 1;
  bool at_line_start = true;
  const char *p = text;
  CoilErr *e;
  while (*p) {
    if (at_line_start && L.depth == 0) {
      bool blank;
      if ((e = lex_indent(&L, &p, &blank))) return e;
      if (blank) continue;
      at_line_start = false;
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
    /* A backslash joins lines (a CRLF file's too). */
    if (c == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
      p += p[1] == '\n' ? 1 : 2;
      newline_at(&L, p);
      p++;
      continue;
    }
    if (isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
      const char *s = p;
      while (is_name_char(*p)) p++;
      /* String prefixes: r, b, f, u and their pairs (rb, Rb, fr, ...). */
      if ((*p == '"' || *p == '\'') && p - s <= 2 && strspn(s, "rRbBfFuU") >= (size_t)(p - s)) {
        bool raw = memchr(s, 'r', (size_t)(p - s)) || memchr(s, 'R', (size_t)(p - s));
        if ((e = lex_string(&L, s, &p, raw))) return e;
        continue;
      }
      push(&L, TK_NAME, s, (int)(p - s));
      continue;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p[1]))) {
      if ((e = lex_number(&L, &p))) return e;
      continue;
    }
    if (c == '"' || c == '\'') {
      if ((e = lex_string(&L, p, &p, false))) return e;
      continue;
    }
    if ((e = lex_punct(&L, &p))) return e;
  }
  if (L.depth > 0 && mode == LEX_STRICT) {
    const Token *o = &L.toks[L.open[L.depth - 1]];
    return coil_err_at(o->loc, "'%c' was never closed", *o->start);
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
