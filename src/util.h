/* The base layer: arenas, growable strings, errors as values, small
 * helpers.  Everything else (compiler, targets, executor, commands) sits on
 * it; it calls nothing above it. */
#ifndef COIL_UTIL_H
#define COIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- util.c */

/* Arena: one per compilation.  Everything a compilation allocates lives in
 * it and is freed at once by arena_free(); nothing is freed piecemeal. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;
} Arena;

void *arena_alloc(Arena *a, size_t size);   /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

/* A 64-bit mix (splitmix64's finalizer), for hashes of small tuples. */
uint64_t coil_mix64(uint64_t z);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* A growable string; used by the dumps and the printers. */
typedef struct StrBuf {
  char *data;
  size_t len, cap;
} StrBuf;

void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_free(StrBuf *sb);

/* A position in a source file.  line and col are 1-based; line 0 means
 * "no position" (an error about a command-line argument, say). */
typedef struct SrcLoc {
  const char *file;
  const char *text; /* whole file contents, for printing the source line */
  int line, col;
} SrcLoc;

typedef struct CoilErr {
  char *msg;  /* fully formatted, possibly several lines, no trailing \n */
  bool index; /* a run found an index out of range (the program compiled) */
} CoilErr;

/* Build a user error.  With a position: "file:line:col: error: msg" plus the
 * source line and a caret.  Allocated with malloc so it outlives any arena. */
CoilErr *coil_err_at(SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
CoilErr *coil_err(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void coil_err_free(CoilErr *e);

_Noreturn void coil_unreachable_at(const char *file, int line, const char *msg);
#define coil_unreachable(msg) coil_unreachable_at(__FILE__, __LINE__, (msg))
#define coil_assert(cond)                                                      \
  do {                                                                         \
    if (!(cond)) coil_unreachable_at(__FILE__, __LINE__, "assert: " #cond);    \
  } while (0)

/* Read a whole file; NULL with *err set on failure. */
char *coil_read_file(const char *path, size_t *len, CoilErr **err);

/* Overflow-checked int64 arithmetic: false on overflow. */
bool mul_ok(int64_t a, int64_t b, int64_t *out);

double coil_now_ms(void); /* monotonic clock */

#endif
