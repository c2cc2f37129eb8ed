/* The commands: coil run, emit, dump, bench, fuzz, triton-run.  The only
 * code that prints to a terminal or exits; everything below returns errors
 * as values. */
#ifndef COIL_CMD_H
#define COIL_CMD_H

#include "api/api.h"
#include "coil.h"
#include "cpu/cpu.h"

/* ------------------------------------------------------------------ run.c */

typedef struct RunOptions {
  uint64_t seed;
  const char *inputs_dir, *save_dir;
  double rtol, atol;
  bool has_rtol, has_atol, equal_nan;
  bool quiet;
  bool huge_pages; /* buffers of 2 MiB and more on transparent huge pages (run.c) */
} RunOptions;

/* Materialized tensors of one run. */
typedef struct Tensors {
  void **bufs; /* per Program buffer */
  int n;
} Tensors;

CoilErr *run_make_inputs(const Compiled *c, const RunOptions *o, Tensors *t);
CoilErr *run_kernels(const Compiled *c, JitLib *lib, Tensors *t);
void tensors_free(Tensors *t);
/* The kB of this process's memory on transparent huge pages (AnonHugePages
 * in /proc/self/smaps_rollup), or -1 where the kernel does not say. */
int64_t run_huge_page_kb(void);
/* Compile, run, check, print.  *status: 0 all outputs pass, 1 a mismatch. */
CoilErr *run_command(const CompileOptions *co, const RunOptions *ro, int *status);
typedef struct CheckStats {
  int64_t bad, first; /* mismatches, first mismatching flat index (-1) */
  double max_abs, max_rel; /* against float64; max_rel where |float64| > atol */
} CheckStats;

/* Compare an output with the references (assert_close semantics). */
int64_t check_output(const Buffer *b, const void *data, const RV *ref, const RV *ref64, double rtol, double atol,
                     bool equal_nan, bool lenient, CheckStats *st);
/* The longest reduction an output depends on (scales atol by its sqrt). */
int64_t reduction_length(const GNode *n, int64_t *memo);
double run_load_value(DType t, const void *base, int64_t i);
/* Default tolerances for an output dtype (documented in `coil run --help`). */
void default_tolerance(DType t, double *rtol, double *atol);

/* ----------------------------------------------------------------- fuzz.c */

/* coil fuzz: random functions in the subset, compiled and checked against
 * the reference; a mismatch or crash is minimised and written to --out. */
int fuzz_main(int argc, char **argv);

/* ------------------------------------------------------------------ ops.c */

/* coil ops [--json]: argv[0] is "ops". */
int ops_main(int argc, char **argv);

/* ---------------------------------------------------------------- bench.c */

/* coil bench: time the kernels against the machine's read bandwidth. */
CoilErr *bench_command(int argc, char **argv, int *status);

/* ----------------------------------------------------------- triton_run.c */

/* coil triton-run: argv[0] is "triton-run".  Prints errors to stderr and
 * returns the exit status (0, or 2 for the user's errors). */
int tx_main(int argc, char **argv);

#endif
