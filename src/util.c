/* Arena, string buffers, errors and small helpers shared by every pass. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coil.h"

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

void *arena_alloc(Arena *a, size_t size) {
#ifdef __SANITIZE_ADDRESS__
  /* Under AddressSanitizer every allocation gets a block of its own, so an
   * overflow past an arena array is reported instead of corrupting its
   * neighbour silently. */
  const bool exact = true;
#else
  const bool exact = false;
#endif
  size = (size + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (!b || exact || b->used + size > b->cap) {
    size_t cap = exact || size > (1u << 20) ? size : (1u << 20);
    b = malloc(sizeof(ArenaBlock) + cap);
    if (!b) coil_unreachable("out of memory");
    b->cap = cap;
    b->used = 0;
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) {
  return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void arena_free(Arena *a) {
  for (ArenaBlock *b = a->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  a->head = NULL;
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  sb->data = realloc(sb->data, cap);
  if (!sb->data) coil_unreachable("out of memory");
  sb->cap = cap;
}

void sb_putc(StrBuf *sb, char c) {
  sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = 0;
}

void sb_puts(StrBuf *sb, const char *s) {
  size_t n = strlen(s);
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  sb_reserve(sb, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

void sb_free(StrBuf *sb) {
  free(sb->data);
  *sb = (StrBuf){0};
}

static CoilErr *make_error(SrcLoc *loc, const char *fmt, va_list ap) {
  StrBuf sb = {0};
  if (loc && loc->line > 0)
    sb_printf(&sb, "%s:%d:%d: error: ", loc->file, loc->line, loc->col);
  else
    sb_puts(&sb, "error: ");
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *msg = malloc((size_t)n + 1);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  sb_puts(&sb, msg);
  free(msg);
  if (loc && loc->line > 0 && loc->text) {
    /* Find the line and print it with a caret under the column. */
    const char *p = loc->text;
    for (int l = 1; l < loc->line && *p; p++)
      if (*p == '\n') l++;
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    sb_printf(&sb, "\n  %.*s\n  ", (int)len, p);
    for (int i = 1; i < loc->col; i++) sb_putc(&sb, p[i - 1] == '\t' ? '\t' : ' ');
    sb_putc(&sb, '^');
  }
  CoilErr *e = malloc(sizeof *e);
  e->msg = sb.data;
  return e;
}

CoilErr *coil_err_at(SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  CoilErr *e = make_error(&loc, fmt, ap);
  va_end(ap);
  return e;
}

CoilErr *coil_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  CoilErr *e = make_error(NULL, fmt, ap);
  va_end(ap);
  return e;
}

void coil_err_free(CoilErr *e) {
  if (!e) return;
  free(e->msg);
  free(e);
}

_Noreturn void coil_unreachable_at(const char *file, int line, const char *msg) {
  fprintf(stderr, "%s:%d: internal error in coil: %s\n", file, line, msg);
  abort();
}

char *coil_read_file(const char *path, size_t *len, CoilErr **err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = coil_err("cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  StrBuf sb = {0};
  char buf[65536];
  size_t n;
  sb_reserve(&sb, 0);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    sb_reserve(&sb, n);
    memcpy(sb.data + sb.len, buf, n);
    sb.len += n;
    sb.data[sb.len] = 0;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    sb_free(&sb);
    *err = coil_err("cannot read %s", path);
    return NULL;
  }
  if (len) *len = sb.len;
  return sb.data;
}

bool mul_ok(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

double coil_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* splitmix64's finalizer: every input bit moves every output bit. */
uint64_t coil_mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
