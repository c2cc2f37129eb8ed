/* libFuzzer target: coil's front end (lexer, parser, graph builder, fusion
 * with and without a kept node, and lowering) on arbitrary bytes.  Any input must give a graph or a
 * CoilErr, never a crash, a hang or a sanitizer report. */
#include <stdlib.h>
#include <string.h>

#include "coil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  Arena a = {0};
  Module m;
  CoilErr *e = parse_module(&a, "fuzz.py", text, &m);
  for (int i = 0; !e && i < m.nfuncs && i < 4; i++) {
    Graph g;
    CoilErr *ge = graph_build(&a, &m, m.funcs[i].name, NULL, 0, &g);
    if (!ge) {
      graph_quiet_nans(&a, &g);
      CoilErr *gv = graph_verify(&g);
      if (gv) abort(); /* the pass's marks must verify */
      Fusion f;
      Program p;
      /* Fusion once more with the node recompute.c would keep, if any. */
      bool *kept = ARENA_ARRAY(&a, bool, g.nnodes + 1);
      if (!fuse_graph(&a, &g, NULL, &f)) {
        int n = recompute_pick(&a, &g, &f);
        if (n >= 0) kept[n] = true;
      }
      if (!fuse_graph(&a, &g, kept, &f) && !lower_program(&a, &f, &p))
        for (int k = 0; k < p.nkernels; k++) {
          CoilErr *ve = kernel_verify(&p, &p.kernels[k]);
          if (ve) abort(); /* a lowered kernel must verify */
          simplify_kernel(&a, &p.kernels[k]);
        }
    }
    coil_err_free(ge);
  }
  coil_err_free(e);
  arena_free(&a);
  free(text);
  return 0;
}
