/* One Python lexer: the function front end (parse.c) and the Triton
 * executor's kernel parser (tx/parse.c) read the same tokens. */
#ifndef COIL_LEX_H
#define COIL_LEX_H

#include "util.h"

/* ----------------------------------------------------------------- lex.c */

typedef enum TokKind {
  TK_NAME, TK_INT, TK_FLOAT, TK_STR, TK_PUNCT,
  TK_NEWLINE, TK_INDENT, TK_DEDENT, TK_EOF
} TokKind;

typedef struct Token {
  TokKind kind;
  const char *start; /* points into the source text */
  int len;
  SrcLoc loc;
  int64_t ival;
  double fval;
  char *str; /* TK_STR: the decoded contents */
} Token;

/* Tokenize a whole Python file, with INDENT/DEDENT/NEWLINE as Python does
 * (brackets join lines).  Any character is accepted so that code coil
 * skips (a main(), f-strings) never stops it; the parser judges tokens. */
CoilErr *lex_file(Arena *a, const char *file, const char *text, Token **toks,
                  int *ntoks);
bool tok_is(const Token *t, const char *s); /* a name or punct spelled s */

#endif
