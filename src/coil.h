/* coil: a compiler for fused multi-axis reductions.
 *
 * One header, in sections, one section per source file (as chibicc does).
 * Exported names carry a module prefix; enum constants carry a kind prefix.
 *
 * Error discipline (two tiers):
 *   - the user's errors are values: a function that can fail returns a
 *     CoilErr* (NULL on success) carrying "file:line:col: error: msg", the
 *     source line and a caret.  Only main.c prints them and exits (status 2).
 *   - coil's own bugs call coil_unreachable(), which names coil's file:line.
 */
#ifndef COIL_H
#define COIL_H

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
  char *msg; /* fully formatted, possibly several lines, no trailing \n */
} CoilErr;

/* Build a user error.  With a position: "file:line:col: error: msg" plus the
 * source line and a caret.  Allocated with malloc so it outlives any arena. */
CoilErr *coil_error_at(SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
CoilErr *coil_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void coil_error_free(CoilErr *e);

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

/* --------------------------------------------------------------- dtype.c */

/* The dtypes coil knows, in the order of the X-macro below. */
#define COIL_DTYPES(X)                                                         \
  /* name   spelling size   c_storage   c_compute  torch name */               \
  X(BOOL, "bool", 1, "uint8_t", "int", "bool")                                 \
  X(I32, "i32", 4, "int32_t", "int32_t", "int32")                              \
  X(I64, "i64", 8, "int64_t", "int64_t", "int64")                              \
  X(F16, "f16", 2, "uint16_t", "float", "float16")                             \
  X(BF16, "bf16", 2, "uint16_t", "float", "bfloat16")                          \
  X(F32, "f32", 4, "float", "float", "float32")                                \
  X(F64, "f64", 8, "double", "double", "float64")

typedef enum DType {
#define X(name, sp, sz, st, ct, tn) DT_##name,
  COIL_DTYPES(X)
#undef X
  DT_COUNT
} DType;

const char *dtype_name(DType t);      /* "bf16" */
const char *dtype_torch_name(DType t);/* "bfloat16" */
int dtype_size(DType t);
const char *dtype_c_storage(DType t); /* how an element is stored in C */
const char *dtype_c_compute(DType t); /* the C type arithmetic happens in */
bool dtype_from_name(const char *s, size_t n, DType *out);
bool dtype_is_float(DType t);
bool dtype_is_int(DType t); /* i32, i64 (not bool) */

/* PyTorch's promotion lattice for two tensor dtypes (torch.promote_types). */
DType dtype_promote(DType a, DType b);

/* Exact conversions with round-to-nearest-even, as PyTorch does them. */
static inline uint16_t f32_to_bf16(float f) {
  union { float f; uint32_t u; } v = {f};
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40);
  uint32_t rounding = 0x7fffu + ((v.u >> 16) & 1u);
  return (uint16_t)((v.u + rounding) >> 16);
}
static inline float bf16_to_f32(uint16_t h) {
  union { uint32_t u; float f; } v = {(uint32_t)h << 16};
  return v.f;
}
uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);

/* Round a double to what a value of dtype t can hold (for floats: to the
 * nearest representable value; ints and bool are handled by the caller). */
double dtype_round(DType t, double x);

#endif
