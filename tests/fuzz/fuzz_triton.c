/* libFuzzer target: the Triton executor's lexer and parser on arbitrary
 * bytes.  Any input must parse or give a CoilErr, never crash. */
#include <stdlib.h>
#include <string.h>

#include "coil.h"
#include "tx/tx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  TxModule *m = NULL;
  CoilErr *e = tx_module_parse("fuzz.py", text, &m);
  coil_err_free(e);
  if (m) tx_module_free(m);
  free(text);
  return 0;
}
