/* coil's Triton backends: the NPU dialect (Ascend, the seed's fixed DSL)
 * and the GPU dialect (NVIDIA), behind one tile model.
 *
 *   target.c   the Target rows: plan -> triton_plan, dump ->
 *              triton_plan_dump, emit -> emit_triton of Compiled.plan,
 *              run -> run_triton_kernels
 *   plan.c     the tile model (cores, on-chip buffer, alignment, SMs),
 *              block sizes, split reductions, and every launch: kernel,
 *              grid, num_warps, the arguments in parameter order, and the
 *              values each kernel reads; the -d triton dump.  Prints no
 *              code.
 *   module.c   emit_triton: the header, each kernel through its
 *              dialect's printer, the helpers they call, the tables and
 *              (option) the harness
 *   npu.c      one kernel in the NPU dialect   } print only, from the
 *   gpu.c      one kernel in the GPU dialect   } plan's TKernel, launches
 *   harness.c  the Python around the kernels: COIL_* tables,
 *              coil_launch(), and with --harness the standalone script
 *              (inputs, eager check, timing)
 *   print.c    shared printing: type names, values, reductions,
 *              signatures, the coil_* helpers, Python literals
 *   run.c      runs Compiled.code through coil's Triton executor (tx/)
 *              with the plan's launches
 *
 * Calls go one way: target.c -> {plan.c, module.c, run.c};
 * module.c -> {npu.c, gpu.c, harness.c}; those and module.c -> print.c.
 * plan.c and print.c call no other file of the backend.  The printers do
 * not decide launches: the plan is made once (by the pipeline, through
 * the row's plan) and every printer and the executor read the same one.
 *
 * Requires compiled programs (compile_source); reads the kernel IR and
 * never changes it.  Every size is static, so numels, loop counts and
 * blocks are tl.constexpr: Triton's interpreter runs the kernels. */
#ifndef COIL_TRITON_H
#define COIL_TRITON_H

#include "coil.h"

/* ------------------------------------------------------ the public API */

typedef enum TritonTarget { TRITON_NPU, TRITON_GPU } TritonTarget;

/* How the GPU dialect reads its inputs in reduction loops: tl.load of
 * pointer tiles, or bulk copies (TMA) through tensor descriptors where
 * the access allows (an affine index with a unit-stride axis in the
 * tile; see gpu_desc in plan.c), pointers elsewhere. */
typedef enum TritonGpuLoads { TRITON_LOADS_POINTER, TRITON_LOADS_TMA } TritonGpuLoads;

/* Who combines a split reduction's parts: the model's choice (the last
 * part's block where an x block's parts are a few KiB, see gpu_model in
 * plan.c), a second launch, or the block of the part that finishes last. */
typedef enum TritonGpuCombine { TRITON_COMBINE_MODEL, TRITON_COMBINE_LAUNCH, TRITON_COMBINE_LAST } TritonGpuCombine;

typedef struct TritonOptions {
  int npu_cores; /* vector cores (default 40) */
  int npu_ub_kb; /* on-chip unified buffer per core, KiB (default 192) */
  int gpu_sms;   /* streaming multiprocessors (default 132, an H200) */
  int gpu_smem_kb; /* shared memory per multiprocessor, KiB (default 228) */
  TritonGpuLoads gpu_loads; /* default pointer */
  /* --gpu-tile X,R,S,W: XBLOCK, RBLOCK, split parts and num_warps of every
   * GPU kernel with a reduction (and chain), in place of the model's
   * (0: the model's); for sweeps and autotuning */
  int64_t gpu_tile[4];
  bool gpu_nochain; /* --gpu-no-chain: every kernel its own launch */
  bool gpu_evict;   /* --gpu-evict-first: eviction_policy='evict_first' on the loads of reduction loops */
  /* --gpu-unroll N: Triton's loop_unroll_factor on the reduction loops of
   * pointer loads (1: none, the model's; for sweeps: docs/gpu.md) */
  int gpu_unroll;
  TritonGpuCombine gpu_combine; /* --gpu-combine launch|last (default: the model's) */
  /* --autotune (GPU): the plan offers candidate tiles around the model's
   * per kernel (TritonPlan.tune) and the module times them on its first
   * call, caching the choice on disk beside itself */
  bool autotune;
  bool harness;  /* append the standalone script */
} TritonOptions;

void triton_options_default(TritonOptions *o);
/* "triton-npu" / "triton-gpu" */
bool triton_target_from_name(const char *name, TritonTarget *t);
const char *triton_target_name(TritonTarget t);
/* "pointer" / "tma" */
bool triton_gpu_loads_from_name(const char *name, TritonGpuLoads *l);
/* "launch" / "last" */
bool triton_gpu_combine_from_name(const char *name, TritonGpuCombine *c);

/* One argument of a launch, in the kernel's parameter order. */
typedef struct TritonArg {
  const char *name; /* the kernel's parameter name */
  bool is_ptr;
  int buf;          /* is_ptr: a Program buffer id, or nbufs + k for scratch k */
  int64_t value;    /* !is_ptr: the tl.constexpr value */
} TritonArg;

typedef struct TritonLaunch {
  const char *kernel; /* the @triton.jit function */
  int src;            /* the Program kernel it computes */
  bool combine;       /* the second kernel of a split reduction */
  int64_t grid[3];
  int num_warps;
  int num_stages; /* a launch option; 0: Triton's default (only autotune candidates set it) */
  TritonArg *args;
  int nargs;
} TritonLaunch;

/* Scratch buffers hold the partial results of split reductions:
 * [nsplit, x numel] in the accumulation dtype.  Nothing needs to be
 * initialized: every element is written before it is read.  The
 * exceptions: the status (TritonPlan.status), and the zeroed ones, the
 * counters of a split whose last part's block combines (one int32 per x
 * block): zero before the first launch, and the launches leave them zero
 * again, so one allocation serves every call in a stream's order. */
typedef struct TritonScratch {
  const char *name;
  DType dtype;
  int64_t numel;
  bool zeroed;
} TritonScratch;

typedef struct TKernel TKernel;
typedef struct TritonPlan TritonPlan;

/* --autotune: one configuration a tuned kernel may run with: the launches
 * that replace the kernel's (one, two for a split reduction, a chain's
 * one), their pointers bound to the plan's buffer ids (scratch sized for
 * every candidate), and the plan whose TKernel its functions print from. */
typedef struct TritonCandidate {
  const char *label; /* "XBLOCK 64, RBLOCK 128, grid (2, 256, 1), num_warps 8" */
  TritonLaunch *launches;
  int nlaunches;
  const TritonPlan *plan;
} TritonCandidate;

/* A tuned kernel: a Program kernel (a chain's head for the chain), its
 * launches [first, first + nlaunches) in TritonPlan.launches, and its
 * candidates, cand[0] the model's choice (those launches). */
typedef struct TritonTune {
  int src;
  int first, nlaunches;
  TritonCandidate *cand;
  int ncand;
} TritonTune;

struct TritonPlan {
  TritonTarget target;
  TritonOptions opt;
  int nbufs; /* Program buffers; scratch k has buffer id nbufs + k */
  TritonScratch *scratch;
  int nscratch;
  TritonLaunch *launches; /* in launch order */
  int nlaunches;
  TKernel *kern; /* per Program kernel: the chosen tiles */
  /* The status, where a kernel has indexed loads (else -1): the buffer id
   * of one int32, zero before the launches, into which a kernel whose
   * index check fails stores the check's graph node + 1 (status_ptr).  A
   * GPU without Triton's debug mode compiles tl.device_assert out; the
   * status still tells the launcher (the harness's coil_launch raises
   * IndexError with the check's message; coil's executor returns it). */
  int status;
  /* --autotune: the kernels with candidates besides the model's (the
   * launches above are the model's; coil's executor runs those) */
  TritonTune *tune;
  int ntune;
};

/* Choose tiles and launches for every kernel of a compiled program. */
CoilErr *triton_plan(Arena *a, const Compiled *c, TritonTarget t, const TritonOptions *o, TritonPlan *plan);
/* The tile model's inputs and choices, as `coil emit -d triton` prints them. */
void triton_plan_dump(StrBuf *sb, const Compiled *c, const TritonPlan *plan);
/* `coil run`'s line of what runs: the launches, in order. */
void triton_plan_describe(StrBuf *sb, const Compiled *c, const TritonPlan *plan);
/* Print the complete Python module of a plan that triton_plan made for c
 * (with the plan's option harness: the standalone script). */
CoilErr *emit_triton(StrBuf *out, const Compiled *c, const TritonPlan *plan);
/* The Target rows (target.c); CompileOptions.target_options may point to
 * TritonOptions.  Compiled.plan is then a TritonPlan. */
extern const Target triton_npu_target, triton_gpu_target;

/* ------------------------------------- internal to the Triton backend */

/* A reduction group's tiling.  Axes are the group's r axes outer to inner
 * (the IR's order); that is also their order in the tile. */
typedef struct TGroup {
  int naxes;
  int axes[COIL_MAX_DIMS];
  int64_t numel;                  /* product of the axis sizes */
  /* NPU */
  int64_t sub[COIL_MAX_DIMS];     /* R<k>BLOCK_SUB per axis */
  int split_axis;                 /* index into axes, or -1 */
  int64_t split_chunk;            /* elements of that axis per split */
  int64_t elem_bytes;             /* the model's bytes per tile element */
  int64_t budget;                 /* the model's elements per sub-tile */
  /* GPU */
  int64_t rblock;
  int64_t rchunk;                 /* elements of the flat r range per split */
  bool persistent;                /* one block covers the whole range */
} TGroup;

/* A load through a tensor descriptor (--gpu-loads tma): the buffer seen
 * as an n-dimensional tensor whose dims are the tile axes the index reads
 * (adjacent ones merged where memory and box allow), outer to inner by
 * stride, the last unit-stride; `box` is the block the tile covers in each.
 * The tile's start gives the coordinates; a box that can pass its dim's
 * size (a tail) is zero-filled by the copy, as a masked load. */
#define TDESC_MAX_DIMS 5
typedef struct TDescDim {
  int64_t size, stride, box;
  int naxes;
  int axes[2 * COIL_MAX_DIMS]; /* kernel axes merged into the dim, outer to inner */
} TDescDim;
typedef struct TDesc {
  int ndims;
  TDescDim d[TDESC_MAX_DIMS];
  int64_t offset; /* the index's constant term, elements */
  int64_t bytes;  /* of one box */
} TDesc;

struct TKernel {
  int64_t xnumel;
  int64_t nsplit;  /* > 1: the partial kernel + a combine kernel */
  int64_t xprogs;  /* programs along x */
  TGroup *g;       /* per group */
  int lead_load;   /* the value whose memory order leads the tile (-1) */
  bool x_contig;   /* the lead load is unit-stride along x */
  bool wide;       /* some index can pass 2^31: int64 indices */
  /* NPU */
  int64_t x0block, x0sub;
  int64_t csub_x, csub_s; /* combine kernel: X0BLOCK_SUB, S_SUB */
  int64_t cx0block;
  /* GPU */
  int64_t xblock;
  int num_warps;
  int unroll; /* the reduction loops' loop_unroll_factor (1: none) */
  int64_t cxblock, csblock; /* combine kernel */
  int cnum_warps;
  /* The split's combine runs in the block whose part finishes last (no
   * second launch): each part's block counts itself done on its x block's
   * counter (scratch buffer done, zeroed), and the last calls the combine
   * function, whose parameters cfn holds (a launch that is never launched:
   * it names the function and what it takes).  part_bytes: an x block's
   * parts, which that one block reads alone. */
  bool last_combine;
  int done;
  int64_t part_bytes;
  TritonLaunch *cfn;
  const char **ccall; /* per parameter of cfn: the part kernel's parameter that passes it */
  /* GPU, --gpu-loads tma: per value, its descriptor (NULL: a pointer load)
   * or why it has none; the stages of the loops that use descriptors, and
   * per axis the box a tile covers (x axes from XBLOCK, r from RBLOCK) */
  TDesc **desc;
  const char **desc_why;
  int num_stages;
  int64_t stage_bytes; /* the largest group's bytes per stage */
  int ctas_per_sm;     /* the blocks per multiprocessor the stages assume */
  int64_t *axbox;
  bool *axoob; /* the axis's box can pass its size (zero-filled tail) */
  /* GPU chains (plan.c, gpu_chains): consecutive kernels run as one
   * launch, XBLOCK points of the chain's outer axes O (the rows) a block,
   * each kernel a phase over the inner range (its r axes, or the x axes of
   * a pointwise kernel that O leaves); a value a kernel stores per O point
   * and a later one loads passes in registers. */
  int chain;        /* the chain's first kernel (its head), or -1 */
  int nchain;       /* the head: kernels in the chain */
  int no, ni;       /* the head: O axes and inner axes */
  int64_t *csize;   /* the head: sizes of the O axes, then the inner axes */
  int64_t cinner;   /* the head: the inner range (points of a row) */
  int64_t crblock;  /* the head: RBLOCK of every phase */
  bool cpersist;    /* the head: RBLOCK holds the row: loads shared between phases */
  int *cpos;        /* member: per axis, its place in csize, or -1 */
  int *hand_k;      /* member: per value, a load of a value an earlier member stores: that kernel, else -1 */
  int *hand_s;      /*   and its store */
  bool *cstore;     /* member: per store, whether it is written (false: only later members read it) */
  int *share_k;     /* member, cpersist: per load, an earlier member that loads the same element, else -1 */
  int *share_v;     /*   and its value */
  /* scratch buffer ids of the partials, per reduction (split only); then,
   * at ws[nreds + r], an arg-reduction's partial positions (int64) */
  int *ws;
  /* per value: read by a reduction (need_grp) or by a store (need_post),
   * directly or through the values it reads */
  bool *need_grp, *need_post;
  int launch, claunch; /* the main and the combine launch in TritonPlan.launches (-1: none, or last_combine) */
};

/* What the printers share while they print one kernel (module.c makes
 * one per kernel; print.c's functions print into sb). */
typedef struct TPrint {
  StrBuf *sb;
  const Program *p;
  const Kernel *k;
  const TKernel *tk;
  TritonTarget target;
  Arena *a;
  int rank;              /* every value is a tensor of this rank */
  unsigned *helpers;     /* which coil_* helpers the module needs */
  const char *vpfx;      /* value names: vpfx "tmp" N ("k1_tmp3" in chains); NULL: "tmp" N */
  const char *const *names; /* per axis: its variable in the tile's canonical layout (index values) */
} TPrint;

enum { /* helper functions a module may need */
  TH_ROUND_BF16 = 1u << 0,
  TH_MAXIMUM = 1u << 1,
  TH_MINIMUM = 1u << 2,
  TH_MUL = 1u << 3,
  TH_TANH = 1u << 4,
  TH_POW = 1u << 5,
  TH_IPOW = 1u << 6,
  TH_DESCRIPTORS = 1u << 7, /* not a helper: triton.set_allocator for tl.make_tensor_descriptor */
  /* the rest of model code's math */
  TH_LIBDEVICE = 1u << 8, /* not a helper: from triton.language.extra import libdevice */
  TH_IDIV = 1u << 9,
  TH_IMOD = 1u << 10,
  TH_SHL = 1u << 11,
  TH_SHR = 1u << 12,
  TH_ARGMAX = 1u << 13,
  TH_ARGMIN = 1u << 14,
  TH_MAX_NAN = 1u << 15, /* the GPU dialect's NaN-propagating max and min of floats */
  TH_MIN_NAN = 1u << 16,
};

/* An arg-reduction's position identity: past every r point. */
#define TRI_ARG_NONE "9223372036854775807"

/* print.c: shared printing.  print.c calls nothing else of the backend. */
const char *tri_rtype(DType t); /* register type: tl.float32 for bf16 */
const char *tri_stype(DType t); /* storage type: tl.bfloat16 */
const char *tri_torch(DType t); /* "bfloat16" */
/* "[1, 1, 1]" for rank 3 */
const char *tri_ones(Arena *a, int rank);
/* The expression of value i converted to dtype `to`, as PyTorch converts. */
void tri_operand(TPrint *P, int i, DType to);
/* `tmpI = ...` for a value that is not a load or a reduction result. */
void tri_value(TPrint *P, int i, const char *indent);
/* A guarded load's fill, as tl.load's other=. */
void tri_fill(StrBuf *sb, const KVal *v);
/* The reduction's identity as a Python literal, its combine of two tiles,
 * and its reduction of a tile along dim 1. */
const char *tri_identity(const KRed *r);
void tri_combine(TPrint *P, const KRed *r, const char *a, const char *b);
void tri_reduce(TPrint *P, const KRed *r, const char *acc);
/* Arg-reductions (KRed.idx): the accumulator is two tiles, acc (values)
 * and acc_i (positions, int64; TRI_ARG_NONE where masked), the input
 * in and in_i.  The values holding arg-reduction r's value and index (-1:
 * none); `acc, acc_i = coil_argmax(acc, acc_i, in, in_i)`; the finish:
 * `res_v, res_x = tl.reduce((acc, acc_i), 1, coil_argmax)`, then each
 * result value = pre res_v/res_x post. */
void tri_arg_values(const Kernel *k, int r, int *val, int *idx);
void tri_arg_combine(TPrint *P, const KRed *r, const char *acc, const char *in, const char *indent);
void tri_arg_finish(TPrint *P, int r, const char *acc, const char *res, const char *pre, const char *post, const char *indent);
/* Every reduction, named res: its step `_res = combine(_res, res_in)` (an
 * arg-reduction's pair too), and its finish `res = pre reduce(_res) post`
 * (an arg-reduction's values and positions so). */
void tri_accumulate(TPrint *P, int r, const char *res, const char *indent);
void tri_finish(TPrint *P, int r, const char *res, const char *pre, const char *post, const char *indent);
/* The name of value i: "tmpI", with P->vpfx before it. */
const char *tri_vname(const TPrint *P, int i);
/* The value that holds reduction r's result, or -1. */
int tri_red_value(const Kernel *k, int r);
/* Convert a value to a buffer's storage dtype for tl.store. */
void tri_store_value(TPrint *P, int val, DType buf);

/* "\n@triton.jit\ndef NAME(params):\n" for the launch's arguments. */
void tri_signature(StrBuf *sb, const TritonLaunch *L);
/* Per buffer id (Program buffers, then scratch): the name of the launch's
 * pointer parameter bound to it, or NULL. */
const char **tri_launch_ptrs(Arena *a, const TritonPlan *plan, const TritonLaunch *L);
/* The descriptor allocator and the coil_* helpers that `helpers` (TH_*)
 * names. */
void tri_helpers(StrBuf *out, unsigned helpers);
/* An indexed load, value i: its index value (wrapped where it wraps)
 * checked in range by tl.device_assert on the lanes in mask (NULL: all),
 * and the load of ptr + index + its stride * that, masked by mask and the
 * check, so an index out of range is never read: `index` is its affine
 * part as the dialect prints it, `mask` the tile's (and guard's) mask. */
void tri_gather(TPrint *P, int i, const char *indent, const char *ptr, const char *index, const char *mask);
/* An indexed store, store s: its index value checked as tri_gather's, and
 * an atomic add of the value at ptr + index + its stride * that, masked by
 * mask and the check: points that name one element add one at a time, in
 * an order the device picks (as PyTorch's CUDA index_put does). */
void tri_indexed_add(TPrint *P, int s, const char *indent, const char *ptr, const char *index, const char *mask);
/* A Python string literal of s (single quotes, escapes). */
void tri_pystr(StrBuf *sb, const char *s);

/* npu.c, gpu.c: the kernel printers.  Each prints the @triton.jit
 * function(s) of one Program kernel: the plan's launches give the
 * signatures and the pointer names, its TKernel the tiles and the values
 * to print. */
void emit_triton_npu_kernel(TPrint *P, const TritonPlan *plan, int kernel);
void emit_triton_gpu_kernel(TPrint *P, const TritonPlan *plan, int kernel);

/* harness.c: the tables, coil_launch() and (harness) the script.  With
 * plan->ntune, tune_fn names the function each candidate's launch calls,
 * in order of tune, candidate, launch (module.c prints a variant where a
 * candidate's code differs from the model's). */
void triton_module_tables(StrBuf *sb, const Compiled *c, const TritonPlan *plan, const char *const *tune_fn);
void triton_harness(StrBuf *sb, const Compiled *c, const TritonPlan *plan);

/* run.c: run a compiled program's module (Compiled.code) through coil's
 * Triton executor on the CPU; bufs holds every Program buffer. */
CoilErr *run_triton_kernels(const Compiled *c, void *const *bufs, double *ms);

#endif
