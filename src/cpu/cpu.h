/* The CPU target: the C printer and the JIT behind the pipeline's
 * target-independent kernels.
 *
 *   sched.c   per kernel: vector mode, tiles, split reductions, lanes,
 *             staged conversions, fast forms, prefetches
 *   chain.c   per program: kernels that run a row at a time in one
 *             parallel loop, and the row buffers between them
 *   emit.c    C11 with OpenMP, one function per kernel
 *   jit.c     the system compiler, a disk cache, dlopen
 *   target.c  the Target row: plan, dump, emit, run
 *
 * The schedule copies the kernels it changes (an r axis tiled for the
 * caches), so the program the pipeline hands over stays whole. */
#ifndef COIL_CPU_H
#define COIL_CPU_H

#include "coil.h"

/* ---------------------------------------------------------------- sched.c */

/* The CPU schedule of a kernel, chosen from the strides of its accesses:
 *   VEC_X: the innermost x axis is the unit-stride one (the seed: 128
 *          outputs, each a column).  A tile of XT outputs keeps XT
 *          accumulators; every r point updates them in one vector loop.
 *   VEC_R: the innermost r axis is the unit-stride one (a row sum).  Each
 *          output point reduces its rows with LANES independent
 *          accumulators, so the loop vectorises without reassociation.
 * Sums are blocked (RBLOCK r points, or CHUNK row elements, per flush) so
 * long reductions keep their precision.  When the x tiles alone cannot keep
 * the threads busy, each group's outer r space is cut into NSPLIT parts
 * whose partial accumulators are combined in a fixed order, so the result
 * does not depend on the number of threads. */
typedef enum VecMode { VEC_X, VEC_R } VecMode;

typedef struct CSched {
  VecMode mode;
  int64_t xtile;   /* points of the innermost x axis per tile (VEC_R: walked inside each outer r point) */
  int64_t nsplit;
  int64_t rblock;  /* VEC_X */
  int *runroll;    /* VEC_X, per group: r points per pass of the x loop */
  int *lanes;      /* VEC_R, per group: independent accumulators per row */
  int64_t chunk;   /* VEC_R */
  int *streams;    /* VEC_R, per group: a split part's chunks read as this many runs side by side (1: one run) */
  bool *nan_lanes; /* VEC_R, per reduction: a max/min keeps NaNs in lanes of their own */
  bool *bf16_keys; /* per reduction with NaN lanes: its values are bf16s, compared as 16-bit keys */
  bool narrow;     /* ask the C compiler for 128-bit vectors */
  /* Staged f16 conversions: per value, an f16 load converted a vector
   * block at a time (the CPU's converter) into an f32 block that the
   * vector loop reads; per store, an f16 store whose f32 values the loop
   * writes to a block, converted on the way out.  In the vector loop of the
   * load's group (VEC_R) or of the tile's x chunks (VEC_X); tails and
   * other places convert one value at a time. */
  bool *stage_load, *stage_store;
  /* Per group: its loops compute f32 and f64 exp, log, sigmoid in their fast
   * forms, valid on a range each value is checked against (a NaN, a zero,
   * an e^x that would be subnormal or inf are outside it); a VEC_R chunk,
   * or a VEC_X block of r points, where any value fell outside is run again
   * with the exact functions.  Where both apply they give the same bits. */
  bool *fast_math;
  /* Per value: a load that streams, prefetched stream_ahead points of the
   * r axis stream_axis ahead (0: not prefetched). */
  int64_t *stream_ahead;
  int *stream_axis;
  /* VEC_R, per value: where the row does not go on in memory, the axis
   * whose next point holds the row read after it (-1: none needed). */
  int *stream_wrap;
  /* The kernel's groups, values and stores are this schedule's copies
   * (it tiled an r axis), not the pipeline's. */
  bool copied;
} CSched;

/* Reorder each group's r axes so the heaviest load streams, re-merge,
 * and choose the parameters above. */
void sched_kernel_c(Arena *a, Kernel *k, const Program *p, CSched *s);
void sched_dump(StrBuf *sb, const Kernel *k, const CSched *s);
/* The decisions' invariants: lanes a power of two, staged conversions only
 * of f16 loads and stores contiguous along their vector loop. */
CoilErr *sched_verify(const Program *p, const Kernel *k, const CSched *s);
/* A value the C backend can compute in a fast form on a checked range
 * (CSched.fast_math): f32 and f64 exp, log and sigmoid. */
bool sched_has_fast_form(const KVal *v);

/* ---------------------------------------------------------------- chain.c */

/* The program level of the CPU schedule: which consecutive kernels run a
 * row at a time in one parallel loop (a chain), which values they pass
 * each other in row buffers, which kernel prefetches the next row and
 * which stores bypass the caches.  A kernel outside any chain is a chain
 * of one. */
enum { PF_MAX = 4, ROW_BUFS_MAX = 16 };

/* The next row's loads of a chain's first kernel. */
typedef struct RowPrefetch {
  int n;
  int buf[PF_MAX], esize[PF_MAX];
  const IExpr *index[PF_MAX]; /* in the first kernel's axes */
  int inner;                  /* the first kernel's axis along the row */
  int64_t len;                /* its length */
  int raxis;                  /* column chains: the first kernel's reduction axis, walked by the prefetching kernel's middle x axis */
} RowPrefetch;

typedef struct CChain {
  int first, n; /* kernels [first, first + n) */
  int64_t rows; /* n > 1: the first x axis the kernels share (1 for a column chain without one) */
  /* A column chain (ctile > 0): the kernels vectorise the same innermost x
   * axis (inner points), and run a tile of ctile of its points at a time,
   * in each row when outer (the first x axis is shared too). */
  int64_t ctile, inner;
  bool outer;
  bool narrow;  /* every kernel of the chain asks for 128-bit vectors */
  /* Row buffers: nbuf rows of bufsize[b] values; save[j][i] / reuse[j][i]:
   * the buffer value i of the chain's kernel j fills / reads instead of
   * computing, or -1. */
  int nbuf;
  int64_t bufsize[ROW_BUFS_MAX];
  DType buftype[ROW_BUFS_MAX];
  int **save, **reuse;
  int pf_kernel; /* chain index (>= 1) of the kernel that prefetches, or 0 */
  RowPrefetch pf;
  bool **stream; /* stream[j][s]: store s of kernel j bypasses the caches */
} CChain;

typedef struct CChains {
  CChain *chain;
  int n;
} CChains;

/* Also drops the x-loop staging (CSched) of a chain kernel whose only x
 * axis is the chain's row: it keeps no vector loop over x. */
void chain_plan(Arena *a, const Program *p, CSched *sched, CChains *out);
CoilErr *chain_verify(const Program *p, const CSched *sched, const CChains *c);
void chain_dump(StrBuf *sb, const Program *p, const CSched *sched, const CChains *c);

/* --------------------------------------------------------------- - emit.c */

/* Print the whole program as one C11 translation unit: one function
 * `void NAME(void *const *bufs)` per kernel, bufs indexed by buffer id. */
void emit_c(StrBuf *sb, const Program *p, const CSched *sched, const CChains *chains);
/* The two halves of emit_c, so several programs can share one library. */
void emit_c_prelude(StrBuf *sb);
void emit_c_kernels(StrBuf *sb, const Program *p, const CSched *sched, const CChains *chains);

/* ------------------------------------------------------------------ jit.c */

/* Compile C source with the system compiler into a shared library, through
 * a disk cache, and load it.
 *   cache dir: $COIL_CACHE_DIR, else $XDG_CACHE_HOME/coil, else ~/.cache/coil;
 *              created 0700; refused if another user owns it or others can
 *              write it.
 *   key:       SHA-256 of the source, the compiler (path, size, mtime), the
 *              flags and the CPU's feature flags (-march=native).
 *   writes:    to a temporary name, then rename(); a lock file serialises
 *              concurrent builds of one key, so they compile once.
 *   loads:     only after the library's recorded size and SHA-256 match;
 *              a corrupted entry is rebuilt. */
typedef struct JitLib {
  void *handle;
  char path[4400];
  bool cached; /* true when no compiler ran */
  double compile_ms;
} JitLib;

CoilErr *jit_compile(const char *source, JitLib *lib);
void *jit_symbol(JitLib *lib, const char *name);
/* to: another reference to from's library (dlopen counts them), so each
 * holder closes its own. */
CoilErr *jit_share(const JitLib *from, JitLib *to);
void jit_close(JitLib *lib);
const char *jit_cc(void);     /* $CC or cc */
const char *jit_flags(void);  /* the flags every kernel is built with */
CoilErr *jit_cache_dir(char *out, size_t n);

/* --------------------------------------------------------------- target.c */

/* The C target's plan of one compiled program (Compiled.plan). */
/* A kernel returns 0, or 1 + the graph node of an indexed load whose index
 * was out of range (ref_index_error). */
typedef int64_t (*CpuKernelFn)(void *const *bufs);

typedef struct CpuPlan {
  Program program; /* the kernels as scheduled (an r axis may be tiled) */
  CSched *sched;   /* per kernel */
  CChains chains;
  JitLib lib;      /* built on the first run */
  CpuKernelFn *fns; /* per kernel, found in lib when it is built */
  bool built;
} CpuPlan;

extern const Target cpu_target;
/* c's plan; c must have been compiled for cpu_target. */
CpuPlan *cpu_plan(const Compiled *c);

#endif
