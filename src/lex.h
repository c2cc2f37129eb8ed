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

/* What the lexer does with source that is not Python.  Both modes reject
 * an unterminated string, a malformed or out-of-range integer literal and
 * inconsistent indentation. */
typedef enum LexMode {
  /* The front end: any character is accepted (an unknown one is a
   * one-character punctuator), a number may run into a name and brackets
   * are only counted, so that code coil skips (a main(), f-strings) never
   * stops it; the parser judges the tokens of the function it compiles. */
  LEX_LENIENT,
  /* The Triton executor: what Python's tokenizer rejects is an error, in
   * Python's words: an invalid character, a number running into a name
   * (1j, 0x1g), an unmatched or never closed bracket, and brackets nested
   * deeper than 64. */
  LEX_STRICT,
} LexMode;

/* Tokenize a whole Python file, with INDENT/DEDENT/NEWLINE as Python does
 * (brackets join lines). */
CoilErr *lex_file(Arena *a, const char *file, const char *text, LexMode mode,
                  Token **toks, int *ntoks);
bool tok_is(const Token *t, const char *s); /* a name or punct spelled s */

#endif
