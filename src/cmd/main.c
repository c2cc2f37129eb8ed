/* coil's command line.  The only file that prints errors and exits:
 * status 0 success, 1 a check failed, 2 any error (the user's or coil's). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "triton/triton.h"

static const char USAGE[] =
    "usage: coil COMMAND [options] FILE.py\n"
    "\n"
    "commands:\n"
    "  run FILE.py        compile the function, run it on the CPU, check it against the eager reference\n"
    "  emit FILE.py       print the generated code (--target c)\n"
    "  dump -d STAGES FILE.py\n"
    "                     print the IR after each stage in STAGES (comma-separated, or all):\n"
    "                     parse, graph, fuse, kernel, simplify, then the target's plan and code\n"
    "                     (c: schedule, c; triton-npu: triton, triton-npu; triton-gpu: triton, triton-gpu)\n"
    "  bench FILE.py [--json]\n"
    "                     time the kernels against the machine's read bandwidth\n"
    "  fuzz [--seed S] [--count N] [--out DIR]\n"
    "                     compile random functions and check each against the reference\n"
    "  ops [--json]       list the PyTorch spellings coil compiles, their dtypes and targets\n"
    "  triton-run KERNEL.py --grid G ...\n"
    "                     run a Triton kernel on the CPU with coil's executor\n"
    "\n"
    "`coil COMMAND --help` lists each command's options.\n";

static const char COMMON[] =
    "  --fn NAME              the function to compile (default: the file's only annotated function)\n"
    "  --arg NAME=DTYPE[d0,...]\n"
    "                         give or override a parameter's dtype and shape, e.g. --arg q=bf16[2,4096,64,128];\n"
    "                         a distribution may follow: --arg 's=f32[4] uniform(1, 2)', and the\n"
    "                         strides of a view (in elements; 0 repeats): --arg 'w=f32[4,8] stride(1,4)'\n";

static const char RUN_HELP[] =
    "usage: coil run FILE.py [options]\n"
    "\n"
    "Compiles the function into fused C kernels, builds them with the system C compiler\n"
    "($CC or cc; -O3 -march=native -fopenmp), runs them, and checks every output against\n"
    "coil's eager reference (PyTorch's dtype semantics, op by op).  It also prints the\n"
    "largest errors against a float64 evaluation of the same function.\n"
    "\n"
    "options:\n"
    "%s"
    "  --seed S               seed of the random inputs (default 0)\n"
    "  --inputs DIR           read each parameter from DIR/NAME.npy (C order, little-endian;\n"
    "                         a bf16 parameter is read from an f32 array, rounded to nearest even;\n"
    "                         a strided one holds the tensor, laid out into the storage)\n"
    "  --save DIR             write DIR/out0.npy, out1.npy... and the generated inputs DIR/NAME.npy\n"
    "                         (bf16 as f32 arrays; a strided input as the tensor its view is)\n"
    "  --rtol R, --atol A     override the tolerances\n"
    "  --equal-nan            NaN in both the result and the reference counts as equal\n"
    "  --huge-pages           put buffers of 2 MiB and more on transparent huge pages (madvise;\n"
    "                         fewer TLB misses, faster memory-bound kernels; see docs/bench.md)\n"
    "  --target T             c (default: C kernels built with cc), or triton-npu / triton-gpu:\n"
    "                         the Triton module `coil emit --target T` prints, run by coil's own\n"
    "                         Triton executor on the CPU and checked the same way; coil emit's\n"
    "                         --npu-* and --gpu-* options (tiles, splits, combines) apply to them\n"
    "\n"
    "The check is |got - ref| <= atol + rtol * |ref| per element (as torch.testing.assert_close).\n"
    "Default tolerances by output dtype (rtol, atol): f64 1e-7, 1e-7; f32 1.3e-6, 1e-5;\n"
    "f16 1e-3, 1e-5; bf16 1.6e-2, 1e-5; ints and bool exact.  For an output that depends on\n"
    "a reduction of N terms, atol is multiplied by sqrt(N): coil sums in another order than\n"
    "the reference (which accumulates in double), and that difference grows like sqrt(N).\n"
    "\n"
    "Inputs: randn (default), uniform(lo, hi), ones or arange, from the parameter's annotation.\n"
    "Integer parameters draw integers in [-8, 8] for randn and in [lo, hi) for uniform; bool\n"
    "parameters draw a fair coin.  A parameter with stride(...) is a view: the whole storage its\n"
    "strides span is drawn (arange counts storage elements) and the kernels read it in place.\n"
    "\n"
    "Kernels are cached under $COIL_CACHE_DIR (default $XDG_CACHE_HOME/coil or ~/.cache/coil).\n"
    "Exit status: 0 every output passes, 1 a mismatch, 2 an error.\n";

static const char DUMP_HELP[] =
    "usage: coil dump -d STAGES FILE.py [options]\n"
    "\n"
    "Prints the IR after each named stage (comma-separated), or all.  The stages every target\n"
    "shares: parse, graph, fuse, kernel, simplify; then the target's plan and its code:\n"
    "schedule and c for the C target (the default), triton and triton-npu or triton-gpu for\n"
    "the Triton targets.\n"
    "\n"
    "options:\n"
    "  --target T             c (the default), triton-npu or triton-gpu\n%s";

static const char EMIT_HELP[] =
    "usage: coil emit [--target c] FILE.py [options]\n"
    "\n"
    "Prints the generated code for the target.\n"
    "\n"
    "options:\n"
    "  --target T             c (the default), triton-npu or triton-gpu (one Python module)\n"
    "  --harness              triton targets: a standalone script that checks and times the kernels\n"
    "  --npu-cores N          triton-npu: vector cores of the tile model (default 40)\n"
    "  --npu-ub-kb K          triton-npu: on-chip buffer per core in KiB (default 192)\n"
    "  --gpu-loads L          triton-gpu: pointer (tl.load, the default) or tma (tensor descriptors where\n"
    "                         the access allows, software-pipelined loops)\n"
    "  --gpu-sms N            triton-gpu: multiprocessors of the tile model (default 132, an H200)\n"
    "  --gpu-tile X,R,S,W     triton-gpu: XBLOCK, RBLOCK, split parts and num_warps of every kernel with a\n"
    "                         reduction instead of the tile model's (0: the model's; for sweeps)\n"
    "  --gpu-no-chain         triton-gpu: no chains (each kernel of a normalisation its own launch)\n"
    "  --gpu-evict-first      triton-gpu: loads in reduction loops ask the L2 to evict their lines first\n"
    "  --gpu-unroll N         triton-gpu: unroll reduction loops N times (1: none; default: the model's, which unrolls\n"
    "                         only a variance's split column loop, twice; for sweeps)\n"
    "  --gpu-combine C        triton-gpu: who combines a split reduction's parts: launch (a second launch) or\n"
    "                         last (the block whose part ends last); default: the model's, last where an\n"
    "                         x block's parts are at most 4 KiB\n"
    "  --autotune             triton-gpu: a few tiles around the model's per kernel (blocks, warps, stages);\n"
    "                         the module times them on its first call and caches the choice beside itself\n"
    "                         (<module>.autotune.json; COIL_AUTOTUNE=0 off, =redo time again; docs/triton.md)\n"
    "  -d STAGES              print these stages' dumps instead (triton: the tile model)\n%s";

static int fail(CoilErr *e) {
  fprintf(stderr, "%s\n", e->msg);
  coil_err_free(e);
  return 2;
}

static int usage_error(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "coil %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see coil %s --help)\n", cmd);
  return 2;
}

static int unknown_target(const char *cmd, const char *name) {
  fprintf(stderr, "coil %s: unknown target '%s' (targets: %s)\n(see coil %s --help)\n", cmd, name, target_names(), cmd);
  return 2;
}

typedef struct Cli {
  CompileOptions co;
  RunOptions ro;
  const char *target;
  ArgOverride args[64];
  char argnames[64][128];
} Cli;

static bool parse_double(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return *s && !*end;
}

/* Parse the options every command shares; returns -1 on success, else the
 * exit status. */
static int parse_common(const char *cmd, int argc, char **argv, Cli *c, bool run_opts) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() \
  if (!v) return usage_error(cmd, "%s needs a value", a); \
  i++
    if (!strcmp(a, "--fn")) {
      NEED_VALUE();
      c->co.fn = v;
    } else if (!strcmp(a, "--arg")) {
      NEED_VALUE();
      const char *eq = strchr(v, '=');
      if (!eq || eq == v) return usage_error(cmd, "--arg %s: expected NAME=DTYPE[d0,...]", v);
      if (c->co.nargs == 64) return usage_error(cmd, "%s: too many --arg options", a);
      if (eq - v >= (long)sizeof c->argnames[0]) return usage_error(cmd, "--arg %s: the name is too long", v);
      memcpy(c->argnames[c->co.nargs], v, (size_t)(eq - v));
      c->argnames[c->co.nargs][eq - v] = 0;
      c->args[c->co.nargs] = (ArgOverride){c->argnames[c->co.nargs], eq + 1};
      c->co.nargs++;
    } else if (!strcmp(a, "-d") && !run_opts) {
      NEED_VALUE();
      c->co.dump = v;
    } else if (!strcmp(a, "--target")) {
      NEED_VALUE();
      c->target = v;
    } else if (run_opts && !strcmp(a, "--seed")) {
      NEED_VALUE();
      char *end;
      c->ro.seed = strtoull(v, &end, 10);
      if (!*v || *end) return usage_error(cmd, "--seed needs a non-negative integer, got '%s'", v);
    } else if (run_opts && !strcmp(a, "--inputs")) {
      NEED_VALUE();
      c->ro.inputs_dir = v;
    } else if (run_opts && !strcmp(a, "--save")) {
      NEED_VALUE();
      c->ro.save_dir = v;
    } else if (run_opts && !strcmp(a, "--rtol")) {
      NEED_VALUE();
      if (!parse_double(v, &c->ro.rtol) || c->ro.rtol < 0) return usage_error(cmd, "--rtol needs a non-negative number, got '%s'", v);
      c->ro.has_rtol = true;
    } else if (run_opts && !strcmp(a, "--atol")) {
      NEED_VALUE();
      if (!parse_double(v, &c->ro.atol) || c->ro.atol < 0) return usage_error(cmd, "--atol needs a non-negative number, got '%s'", v);
      c->ro.has_atol = true;
    } else if (run_opts && !strcmp(a, "--equal-nan")) {
      c->ro.equal_nan = true;
    } else if (run_opts && !strcmp(a, "--huge-pages")) {
      c->ro.huge_pages = true;
    } else if (a[0] == '-' && a[1]) {
      return usage_error(cmd, "unknown option %s", a);
    } else {
      if (c->co.file) return usage_error(cmd, "one input file only (got a second: %s)", a);
      c->co.file = a;
    }
#undef NEED_VALUE
  }
  if (!c->co.file) return usage_error(cmd, "%s", "no input file");
  c->co.args = c->args;
  return -1;
}

static bool wants_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
  return false;
}

/* The integer after option argv[*i], in lo..hi, into *out; false (nothing
 * stored) when it is missing, not a whole decimal number, or out of range. */
static bool int_option(int argc, char **argv, int *i, long lo, long hi, int *out) {
  if (*i + 1 >= argc) return false;
  char *end = NULL;
  const char *t = argv[++*i];
  long v = strtol(t, &end, 10);
  if (end == t || *end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

/* The Triton targets' options (--harness, --npu-*, --gpu-*, --autotune):
 * each parsed into *topt and taken out of rargv (*rest shrinks), *tflags
 * set when one was given.  Returns -1, or the exit status of a usage
 * error. */
static int triton_options(const char *cmd, int *rest, char **rargv, TritonOptions *topt, bool *tflags) {
  int kept = 0;
  for (int i = 0; i < *rest; i++) {
    const char *a = rargv[i];
    if (!strcmp(a, "--harness")) topt->harness = *tflags = true;
    else if (!strcmp(a, "--npu-cores") || !strcmp(a, "--npu-ub-kb")) {
      if (!int_option(*rest, rargv, &i, 1, 65536, a[6] == 'c' ? &topt->npu_cores : &topt->npu_ub_kb))
        return usage_error(cmd, "%s needs an integer in 1..65536", a);
      *tflags = true;
    } else if (!strcmp(a, "--gpu-tile")) {
      const char *t = i + 1 < *rest ? rargv[++i] : "";
      int n = 0;
      char *end = (char *)t;
      while (n < 4) {
        long v = strtol(t, &end, 10);
        if (end == t || v < 0 || v > 65536 || (v & (v - 1))) break;
        topt->gpu_tile[n++] = v;
        if (*end != ',') break;
        t = end + 1;
      }
      if (n != 4 || *end) return usage_error(cmd, "%s needs XBLOCK,RBLOCK,SPLIT,WARPS (powers of two, 0: the model's)", a);
      *tflags = true;
    } else if (!strcmp(a, "--gpu-unroll")) {
      if (!int_option(*rest, rargv, &i, 1, 16, &topt->gpu_unroll)) return usage_error(cmd, "%s needs an integer in 1..16", a);
      *tflags = true;
    } else if (!strcmp(a, "--gpu-sms")) {
      if (!int_option(*rest, rargv, &i, 1, 65536, &topt->gpu_sms)) return usage_error(cmd, "%s needs an integer in 1..65536", a);
      *tflags = true;
    } else if (!strcmp(a, "--gpu-no-chain")) {
      topt->gpu_nochain = *tflags = true;
    } else if (!strcmp(a, "--gpu-evict-first")) {
      topt->gpu_evict = *tflags = true;
    } else if (!strcmp(a, "--autotune")) {
      topt->autotune = *tflags = true;
    } else if (!strcmp(a, "--gpu-combine")) {
      if (i + 1 >= *rest || !triton_gpu_combine_from_name(rargv[i + 1], &topt->gpu_combine))
        return usage_error(cmd, "%s needs launch or last", a);
      i++;
      *tflags = true;
    } else if (!strcmp(a, "--gpu-loads")) {
      if (i + 1 >= *rest || !triton_gpu_loads_from_name(rargv[i + 1], &topt->gpu_loads))
        return usage_error(cmd, "%s needs pointer or tma", a);
      i++;
      *tflags = true;
    } else rargv[kept++] = rargv[i];
  }
  *rest = kept;
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(USAGE, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  int rest = argc - 2;
  char **rargv = argv + 2;
  if (!strcmp(cmd, "fuzz")) return fuzz_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "triton-run")) return tx_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "ops")) return ops_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) {
    int status;
    CoilErr *e = bench_command(rest, rargv, &status);
    return e ? fail(e) : status;
  }
  Cli c = {0};
  if (!strcmp(cmd, "run")) {
    if (wants_help(rest, rargv)) { printf(RUN_HELP, COMMON); return 0; }
    TritonOptions topt;
    triton_options_default(&topt);
    bool tflags = false;
    int st = triton_options(cmd, &rest, rargv, &topt, &tflags);
    if (st >= 0) return st;
    if (topt.harness || topt.autotune) return usage_error(cmd, "%s", "--harness and --autotune are options of coil emit");
    st = parse_common(cmd, rest, rargv, &c, true);
    if (st >= 0) return st;
    if (!(c.co.target = target_find(c.target ? c.target : "c")))
      return unknown_target(cmd, c.target);
    if (tflags && c.co.target == &cpu_target)
      return usage_error(cmd, "%s", "--npu-cores, --npu-ub-kb and --gpu-* options need --target triton-npu or triton-gpu");
    if (c.co.target != &cpu_target) c.co.target_options = &topt;
    int status;
    CoilErr *e = run_command(&c.co, &c.ro, &status);
    if (e) return fail(e);
    return status;
  }
  if (!strcmp(cmd, "dump") || !strcmp(cmd, "emit")) {
    bool dump = cmd[0] == 'd';
    if (wants_help(rest, rargv)) { printf(dump ? DUMP_HELP : EMIT_HELP, COMMON); return 0; }
    TritonOptions topt;
    triton_options_default(&topt);
    bool tflags = false;
    if (!dump) {
      int ts = triton_options(cmd, &rest, rargv, &topt, &tflags);
      if (ts >= 0) return ts;
    }
    int st = parse_common(cmd, rest, rargv, &c, false);
    if (st >= 0) return st;
    if (dump && !c.co.dump) return usage_error(cmd, "%s", "-d STAGES is required (e.g. -d graph,kernel or -d all)");
    if (!(c.co.target = target_find(c.target ? c.target : "c")))
      return unknown_target(cmd, c.target);
    if (tflags && c.co.target == &cpu_target)
      return usage_error(cmd, "%s", "--harness, --npu-cores, --npu-ub-kb and --gpu-* options need --target triton-npu or triton-gpu");
    if (topt.autotune && c.co.target != &triton_gpu_target)
      return usage_error(cmd, "%s", "--autotune needs --target triton-gpu");
    if (c.co.target != &cpu_target) c.co.target_options = &topt;
    StrBuf out = {0};
    c.co.dump_out = &out;
    if (!dump && !c.co.dump) c.co.dump_out = NULL;
    Compiled comp;
    CoilErr *e = compile_source(&c.co, &comp);
    if (e) {
      sb_free(&out);
      compiled_free(&comp);
      return fail(e);
    }
    /* emit -d STAGES prints those stages' dumps instead of the code. */
    fputs(c.co.dump ? (out.data ? out.data : "") : comp.code.data, stdout);
    sb_free(&out);
    compiled_free(&comp);
    return 0;
  }
  fprintf(stderr, "coil: unknown command '%s'\n\n%s", cmd, USAGE);
  return 2;
}
