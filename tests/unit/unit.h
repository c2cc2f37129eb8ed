/* What the C unit tests share: CHECK prints "ok unit/NAME" or
 * "FAIL unit/NAME: ..." for the runner to count, and jit_with_prelude
 * compiles test code after the C prelude the way kernels are compiled. */
#ifndef COIL_UNIT_H
#define COIL_UNIT_H
#include <stdio.h>

#include "cpu/cpu.h"

static int failures;

#define CHECK(name, cond)                                                                  \
  do {                                                                                     \
    if (cond) printf("ok unit/%s\n", name);                                                \
    else { printf("FAIL unit/%s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); failures++; } \
  } while (0)

/* The prelude, then src, compiled with the kernels' flags; on failure
 * prints "FAIL unit/WHAT_compile" and returns false. */
static inline bool jit_with_prelude(const char *src, const char *what, JitLib *lib) {
  StrBuf sb = {0};
  emit_c_prelude(&sb);
  sb_puts(&sb, src);
  CoilErr *e = jit_compile(sb.data, lib);
  sb_free(&sb);
  if (!e) return true;
  printf("FAIL unit/%s_compile: %s\n", what, e->msg);
  coil_err_free(e);
  return false;
}
#endif
