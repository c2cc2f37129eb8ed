/* libcoil's public C API.
 *
 * coil compiles a function written the way a PyTorch user writes it (views,
 * casts, pointwise math, reductions over several axes at once) into fused
 * kernels, and runs them on buffers the caller owns.  This header is the
 * whole contract between libcoil and its users (the Python binding is one);
 * nothing else under src/ is public.
 *
 * Two ways in, one set of semantics:
 *   - source text in coil's Python subset: coil_compile_source();
 *   - a graph built node by node: coil_graph_new(), coil_graph_input(),
 *     coil_graph_call() with an op's PyTorch spelling ("aten.add.Tensor",
 *     "torch.sum", "F.silu", "Tensor.float"), coil_graph_output(), then
 *     coil_compile_graph().  The graph is kept as a program in coil's
 *     Python subset (coil_graph_source() shows it) and goes through the
 *     same front end, so both ways share one op table and one set of
 *     builders; an error in the graph points at the node's line there.
 *
 * Tensors are exchanged as DLPack's DLTensor (Debian: libdlpack-dev), the
 * ecosystem's zero-copy convention: shapes and strides in elements, data
 * owned by the caller.
 *
 * Errors are values: every function that can fail returns a coil_status
 * and, when err is not NULL, sets *err to a coil_error the caller frees
 * (NULL on success).  A message in the user's code has the form
 * "file:line:col: error: msg" followed by the source line and a caret.
 * The library never prints and never exits.
 *
 * Threads: separate programs and graphs may be built, compiled and run
 * from several threads at once; one program may be run by several threads
 * at once too (each run allocates its own temporaries).  A graph is not
 * to be used by two threads at once.
 *
 * An example program is examples/api/rms_grad.c. */
#ifndef COIL_PUBLIC_H
#define COIL_PUBLIC_H

#include <dlpack/dlpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COIL_API_VERSION 1

typedef enum coil_status {
  COIL_OK = 0,
  COIL_ERROR_USAGE,    /* the caller broke this header's contract (NULL, out of range) */
  COIL_ERROR_PROGRAM,  /* the program is not in coil's subset, or is wrong (shapes, dtypes) */
  COIL_ERROR_TENSOR,   /* a tensor handed to coil_run does not match the compiled program */
  COIL_ERROR_SYSTEM,   /* memory, the system compiler, the kernel cache */
  COIL_ERROR_INDEX,    /* coil_run: an index tensor held a value out of range (gather, embedding, x[idx]);
                        * the outputs are not written in full */
} coil_status;

typedef struct coil_error coil_error;
const char *coil_error_message(const coil_error *e);
coil_status coil_error_status(const coil_error *e);
void coil_error_free(coil_error *e);

/* ------------------------------------------------------------ options */

typedef struct coil_options {
  /* "c" (default: C with OpenMP, built by the system compiler, cached on
   * disk), "triton-npu" (the Ascend backend's sub-block dialect) or
   * "triton-gpu"; the Triton targets run on the CPU through coil's own
   * Triton executor, as a correctness tool. */
  const char *target;
  /* The function to compile when the source has several (NULL: the only
   * annotated one). */
  const char *fn;
  /* Comma-separated stage names ("graph,kernel,c"; "all") whose IR
   * coil_program_dump() returns.  NULL: none kept. */
  const char *dump;
  /* Parameters' dtypes and shapes, given or overriding their annotations,
   * one "NAME=DTYPE[d0, ...]" each (the syntax of annotations, and of
   * `coil run --arg`), or NULL. */
  const char *const *args;
  int nargs;
  /* "triton-gpu": the module offers a few tiles around the model's per
   * kernel and times them on its first call, caching the choice on disk
   * beside itself (`coil emit --autotune`, docs/triton.md).  Other
   * targets ignore it. */
  int autotune;
} coil_options;

/* ------------------------------------------------------------ programs */

typedef struct coil_program coil_program;

/* Compile text in coil's Python subset.  file names it in messages. */
coil_status coil_compile_source(const char *file, const char *text, const coil_options *opts,
                                coil_program **out, coil_error **err);

int coil_program_num_inputs(const coil_program *p);
int coil_program_num_outputs(const coil_program *p);
int coil_program_num_kernels(const coil_program *p);
/* The i-th input's or output's dtype, ndim and shape (strides: its
 * compiled strides for an input, contiguous for an output), pointing into
 * the program. */
typedef struct coil_tensor_info {
  const char *name;
  DLDataType dtype;
  int ndim;
  const int64_t *shape;
  const int64_t *strides;
} coil_tensor_info;
coil_status coil_program_input(const coil_program *p, int i, coil_tensor_info *info);
coil_status coil_program_output(const coil_program *p, int i, coil_tensor_info *info);
/* The target's code: a C translation unit or a Python module. */
const char *coil_program_code(const coil_program *p);
/* The IR dumps asked for by coil_options.dump ("" when none). */
const char *coil_program_dump(const coil_program *p);
/* Milliseconds from source to code. */
double coil_program_compile_ms(const coil_program *p);

/* Run the program on the caller's tensors: inputs in parameter order, with
 * the dtypes, shapes and strides compiled; outputs in return order,
 * contiguous, of the compiled dtypes and shapes.  Every data pointer is
 * host memory (kDLCPU).  The first run of a "c" program builds its kernels
 * (or loads them from the disk cache). */
coil_status coil_run(coil_program *p, int ninputs, const DLTensor *inputs, int noutputs,
                     const DLTensor *outputs, coil_error **err);
/* Build the code of n programs ahead of their first runs, together where
 * the target can: the "c" target compiles their kernels in a few
 * translation units, one run of the system compiler each, side by side on
 * the cores (a model's dozens of small programs cost a few compiles), and
 * programs whose code differs only in their names (a model's repeated
 * layers) share one compiled copy.  Programs already built, and those of
 * targets with nothing to build, are left as they are. */
coil_status coil_build(coil_program *const *programs, int n, coil_error **err);
void coil_program_free(coil_program *p);

/* The OpenMP threads the calling thread's runs use (as omp_set_num_threads). */
void coil_set_num_threads(int n);

/* ------------------------------------------------------------ graphs */

typedef struct coil_graph coil_graph;
/* A value of the graph: a tensor, or a tuple that coil_graph_item takes
 * apart (var_mean's two results). */
typedef int32_t coil_value;

typedef enum coil_arg_kind {
  COIL_ARG_VALUE,   /* .value */
  COIL_ARG_INT,     /* .i */
  COIL_ARG_FLOAT,   /* .f */
  COIL_ARG_BOOL,    /* .i */
  COIL_ARG_NONE,
  COIL_ARG_DTYPE,   /* .dtype */
  COIL_ARG_STRING,  /* .s */
  COIL_ARG_INTS,    /* .ints: a list of ints (a shape, dims) */
  COIL_ARG_VALUES,  /* .values: a list of values (cat's tensors; COIL_NO_VALUE for None,
                     * as in the Tensor?[] indices of aten.index and index_put) */
} coil_arg_kind;

#define COIL_NO_VALUE ((coil_value)-1)

typedef struct coil_arg {
  coil_arg_kind kind;
  union {
    coil_value value;
    int64_t i;
    double f;
    DLDataType dtype;
    const char *s;
    struct { const int64_t *data; int n; } ints;
    struct { const coil_value *data; int n; } values;
  };
} coil_arg;

/* name: the function's name in the program's text and in messages. */
coil_graph *coil_graph_new(const char *name);
void coil_graph_free(coil_graph *g);
/* A parameter.  strides NULL: contiguous. */
coil_status coil_graph_input(coil_graph *g, const char *name, DLDataType dtype, int ndim,
                             const int64_t *shape, const int64_t *strides, coil_value *out,
                             coil_error **err);
/* A call of op, spelled as PyTorch spells it: "aten.NAME.OVERLOAD",
 * "prims.NAME.OVERLOAD", "torch.NAME", "F.NAME" (torch.nn.functional),
 * "torch.linalg.NAME", or "Tensor.NAME" (a method: args[0] is self).
 * origin (or NULL) says where the node came from, for messages (the
 * user's file and line). */
coil_status coil_graph_call(coil_graph *g, const char *op, int nargs, const coil_arg *args, int nkw,
                            const char *const *kwnames, const coil_arg *kwargs, const char *origin,
                            coil_value *out, coil_error **err);
/* The index-th element of a tuple value. */
coil_status coil_graph_item(coil_graph *g, coil_value tuple, int index, coil_value *out, coil_error **err);
/* The graph's results, in order. */
coil_status coil_graph_output(coil_graph *g, int n, const coil_value *values, coil_error **err);
/* The program so far, as text in coil's Python subset. */
const char *coil_graph_source(const coil_graph *g);
/* Compile the graph (with its outputs set).  The graph may be freed after. */
coil_status coil_compile_graph(const coil_graph *g, const coil_options *opts, coil_program **out,
                               coil_error **err);

/* ------------------------------------------------------------ the op table */

/* Whether op (as coil_graph_call spells it) is a spelling coil compiles.
 * The op's arguments may still be refused when the graph compiles. */
bool coil_has_op(const char *op);

#ifdef __cplusplus
}
#endif

#endif
