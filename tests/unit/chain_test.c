/* Unit tests of the CPU chain plan (chain.c): what softmax's and
 * logsumexp's kernels are planned to share, and the verifier's refusals of
 * plans that would print wrong C; and the schedule verifier's (sched.c).  Each CHECK prints "ok unit/chain_NAME"
 * or "FAIL unit/chain_NAME: ...". */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu.h"

static int failures;

#define CHECK(name, cond)                                                                        \
  do {                                                                                           \
    if (cond) printf("ok unit/chain_%s\n", name);                                                \
    else { printf("FAIL unit/chain_%s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); failures++; } \
  } while (0)

static const char src[] =
    "import torch\n"
    "def softmax(x: \"f32[8192, 4096]\"):\n"
    "    e = torch.exp(x - x.amax(dim=-1, keepdim=True))\n"
    "    return e / e.sum(dim=-1, keepdim=True)\n"
    "def lse(x: \"bf16[256, 8192]\"):\n"
    "    return torch.logsumexp(x.float(), dim=-1)\n"
    "def cols(x: \"f32[4096, 64]\"):\n"
    "    return x.sum(0), x.amax(0)\n"
    "def chsoft(x: \"f32[16, 21, 256, 256]\"):\n"
    "    return torch.softmax(x, dim=1)\n"
    "def chsoft_nan(x: \"f32[16, 21, 256, 256]\"):\n"
    "    return torch.softmax(torch.where(x > 3, torch.nan, x), dim=1)\n"
    "def chsoft_rows(x: \"f32[64, 21, 128, 128]\"):\n"
    "    return torch.softmax(x, dim=1)\n"
    "def three_shared(x: \"f64[4, 60, 128, 128]\"):\n"
    "    m = x.amax(dim=1, keepdim=True)\n"
    "    e = (x - m).exp()\n"
    "    l = (x.abs() + 1).log()\n"
    "    t = (x * 0.5).sigmoid()\n"
    "    return e / e.sum(dim=1, keepdim=True) + l / l.sum(dim=1, keepdim=True) + t / t.sum(dim=1, keepdim=True)\n"
    "def soft0_small(x: \"f32[300, 5000]\"):\n"
    "    return torch.softmax(x, dim=0)\n"
    "def norm_stack(x: \"f32[256, 1024]\", w: \"f32[1024]\"):\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=-1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=-1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5) * w\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    return x\n"
    "def channel_norm_stack(x: \"f32[16, 32, 128, 128]\"):\n"
    "    m = x.mean(dim=1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5)\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5)\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5)\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    m = x.mean(dim=1, keepdim=True)\n"
    "    v = ((x - m) * (x - m)).mean(dim=1, keepdim=True)\n"
    "    x = (x - m) * torch.rsqrt(v + 1e-5)\n"
    "    x = x + torch.tanh(x * 0.5)\n"
    "    return x\n"
    "def rms_f16(x: \"f16[64, 1024]\"):\n"
    "    xf = x.float()\n"
    "    return (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6)).half()\n";

static char path[64];

static bool compile_fn(const char *fn, Compiled *c) {
  CompileOptions o = {.file = path, .fn = fn, .target = &cpu_target};
  CoilErr *e = compile_source(&o, c);
  if (e) {
    printf("FAIL unit/chain_compile_%s: %s\n", fn, e->msg);
    coil_err_free(e);
    failures++;
    return false;
  }
  return true;
}

static void test_softmax(Compiled *c) {
  const Program *p = &cpu_plan(c)->program;
  const CChains *cs = &cpu_plan(c)->chains;
  CHECK("softmax_one_chain", p->nkernels == 3 && cs->n == 1 && cs->chain[0].n == 3 && cs->chain[0].rows == 8192);
  const CChain *ch = &cs->chain[0];
  /* exp(x - max) is computed by the sum's kernel and read back by the division's. */
  int saved = -1, reused = -1;
  for (int v = 0; v < p->kernels[1].nvals; v++)
    if (ch->save[1][v] == 0) saved = v;
  for (int v = 0; v < p->kernels[2].nvals; v++)
    if (ch->reuse[2][v] == 0) reused = v;
  CHECK("softmax_row_buffer", ch->nbuf == 1 && saved >= 0 && p->kernels[1].vals[saved].op == OP_EXP && reused >= 0 &&
                                  p->kernels[2].vals[reused].op == OP_EXP && ch->bufsize[0] == 4096);
  CHECK("softmax_prefetch", ch->pf_kernel == 1 && ch->pf.n == 1 && ch->pf.len == 4096);
  CHECK("softmax_streams_output", ch->stream[2][0] && !ch->narrow);
  CHECK("verify_accepts", chain_verify(p, cpu_plan(c)->sched, cs) == NULL);
  /* A row buffer read before any kernel of the chain filled it. */
  int keep = ch->reuse[1][0];
  ch->reuse[1][0] = 0;
  ch->save[1][saved] = -1;
  CoilErr *e = chain_verify(p, cpu_plan(c)->sched, cs);
  CHECK("verify_rejects_unfilled_row_buffer", e && strstr(e->msg, "before any kernel fills it"));
  coil_err_free(e);
  ch->reuse[1][0] = keep;
  ch->save[1][saved] = 0;
  /* Chains that do not cover every kernel once. */
  cs->chain[0].n = 2;
  e = chain_verify(p, cpu_plan(c)->sched, cs);
  CHECK("verify_rejects_uncovered_kernel", e && strstr(e->msg, "cover 2 of 3 kernels"));
  coil_err_free(e);
  cs->chain[0].n = 3;
  /* A kernel of the chain walking an x tile across rows. */
  cpu_plan(c)->sched[1].xtile = 2;
  e = chain_verify(p, cpu_plan(c)->sched, cs);
  CHECK("verify_rejects_x_tile_in_chain", e && strstr(e->msg, "walks an x tile of 2"));
  coil_err_free(e);
  cpu_plan(c)->sched[1].xtile = 1;
  CHECK("verify_accepts_restored", chain_verify(p, cpu_plan(c)->sched, cs) == NULL);
}

static void test_lse(Compiled *c) {
  const CChain *ch = &cpu_plan(c)->chains.chain[0];
  CHECK("lse_chain", c->program.nkernels == 2 && cpu_plan(c)->chains.n == 1 && ch->n == 2 && ch->nbuf == 0 && ch->pf_kernel == 1);
  /* The max over rows of 8192 keeps its NaNs apart; its output is tiny, so nothing streams. */
  CHECK("lse_nan_lanes", cpu_plan(c)->sched[0].nan_lanes[0] && !ch->stream[1][0]);
}

/* A column reduction is split across threads: never part of a chain. */
static void test_cols(Compiled *c) {
  CHECK("cols_alone", cpu_plan(c)->chains.n == c->program.nkernels && cpu_plan(c)->chains.chain[0].n == 1 && !cpu_plan(c)->chains.chain[0].pf_kernel);
}

/* Softmax over the channels of NCHW: 16 rows (too few for a row chain),
 * so a column chain: tiles of 2048 of the 65536 columns, the exp kept in
 * a tile buffer (21 channels by 2048 columns), the division prefetching
 * the next tile and streaming its stores. */
static void test_column_chain(Compiled *c) {
  const Program *p = &cpu_plan(c)->program;
  CChains *cs = &cpu_plan(c)->chains;
  CChain *ch = &cs->chain[0];
  CHECK("column_chain", p->nkernels == 3 && cs->n == 1 && ch->n == 3 && ch->ctile == 2048 && ch->outer && ch->rows == 16 &&
                            ch->inner == 65536);
  int saved = -1, reused = -1;
  for (int v = 0; v < p->kernels[1].nvals; v++)
    if (ch->save[1][v] == 0) saved = v;
  for (int v = 0; v < p->kernels[2].nvals; v++)
    if (ch->reuse[2][v] == 0) reused = v;
  CHECK("column_chain_tile_buffer", ch->nbuf == 1 && ch->bufsize[0] == 21 * 2048 && saved >= 0 &&
                                        p->kernels[1].vals[saved].op == OP_EXP && reused >= 0 && p->kernels[2].vals[reused].op == OP_EXP);
  CHECK("column_chain_prefetch", ch->pf_kernel == 2 && ch->pf.n == 1 && ch->pf.raxis == p->kernels[0].groups[0].axes[0]);
  CHECK("column_chain_streams_output", ch->stream[2][0]);
  CHECK("column_chain_unsplit", cpu_plan(c)->sched[0].nsplit == 1 && cpu_plan(c)->sched[1].nsplit == 1 && cpu_plan(c)->sched[2].nsplit == 1);
  CHECK("column_chain_verify_accepts", chain_verify(p, cpu_plan(c)->sched, cs) == NULL);
  ch->ctile = 65537;
  CoilErr *e = chain_verify(p, cpu_plan(c)->sched, cs);
  CHECK("column_chain_verify_rejects_tile", e && strstr(e->msg, "column chain 0"));
  coil_err_free(e);
  ch->ctile = 2048;
  cpu_plan(c)->sched[1].nsplit = 4;
  e = chain_verify(p, cpu_plan(c)->sched, cs);
  CHECK("column_chain_verify_rejects_split_kernel", e && strstr(e->msg, "does not fit column chain"));
  coil_err_free(e);
  cpu_plan(c)->sched[1].nsplit = 1;
}

/* The same with a NaN constant in the shared value: the constants match
 * by their bits (NaN != NaN as floats once kept the buffer from forming). */
static void test_column_chain_nan_const(Compiled *c) {
  const CChain *ch = &cpu_plan(c)->chains.chain[0];
  CHECK("column_chain_tile_buffer_with_nan_constant", cpu_plan(c)->chains.n == 1 && ch->ctile && ch->nbuf == 1);
}

/* 64 rows would make a row chain; the column chain covers the same three
 * kernels and is preferred (its tiles stay in L2, a row is 1.4 MB). */
static void test_column_chain_preferred(Compiled *c) {
  const CChain *ch = &cpu_plan(c)->chains.chain[0];
  CHECK("column_chain_preferred_to_rows", cpu_plan(c)->chains.n == 1 && ch->n == 3 && ch->ctile == 2048 && ch->outer && ch->rows == 64);
}

/* Three values the divisions could read back (exp, log, sigmoid; each
 * divided by its own sum, so no larger value covers two of them), each a
 * tile of 60 x 512 f64 (240 KB): the chain's buffers stop at 512 KB, so
 * two are kept and the third is computed again. */
static void test_chain_buffer_budget(Compiled *c) {
  const CChain *ch = &cpu_plan(c)->chains.chain[0];
  int64_t bytes = 0;
  for (int b = 0; b < ch->nbuf; b++) bytes += ch->bufsize[b] * 8;
  CHECK("chain_buffers_within_budget", cpu_plan(c)->chains.n == 1 && ch->ctile == 512 && ch->nbuf == 2 && bytes <= 512 << 10);
}

/* Softmax over 300 rows of 5000 columns: a tile of 128 columns holds the
 * 300 points within the budget, but 40 tiles are too few tasks. */
static void test_column_chain_too_few_tiles(Compiled *c) {
  CHECK("column_chain_too_few_tiles", cpu_plan(c)->chains.n == c->program.nkernels && cpu_plan(c)->chains.chain[0].ctile == 0);
}

/* The schedule verifier (sched.c) on an f16 rms norm's staged
 * conversions, and its refusals. */
static void test_sched_verify(Compiled *c) {
  const Program *p = &cpu_plan(c)->program;
  const Kernel *k1 = &p->kernels[1];
  CSched *s1 = &cpu_plan(c)->sched[1];
  int staged = -1, f32val = -1;
  for (int i = 0; i < k1->nvals; i++) {
    if (s1->stage_load[i]) staged = i;
    if (k1->vals[i].dtype == DT_F32 && k1->vals[i].op != OP_INPUT) f32val = i;
  }
  CHECK("sched_stages_rms_f16", p->nkernels == 2 && staged >= 0 && s1->stage_store[0] && cpu_plan(c)->sched[0].stage_load[0]);
  CHECK("sched_verify_accepts", sched_verify(p, k1, s1) == NULL);
  s1->stage_load[f32val] = true;
  CoilErr *e = sched_verify(p, k1, s1);
  CHECK("sched_verify_rejects_staged_f32_value", e && strstr(e->msg, "which is no f16 load"));
  coil_err_free(e);
  s1->stage_load[f32val] = false;
  s1->nsplit = 2;
  e = sched_verify(p, k1, s1);
  CHECK("sched_verify_rejects_staged_split_store", e && strstr(e->msg, "no unsplit f16 store"));
  coil_err_free(e);
  s1->nsplit = 1;
  cpu_plan(c)->sched[0].lanes[0] = 48;
  e = sched_verify(p, &p->kernels[0], &cpu_plan(c)->sched[0]);
  CHECK("sched_verify_rejects_lanes", e && strstr(e->msg, "not a power of two"));
  coil_err_free(e);
  cpu_plan(c)->sched[0].lanes[0] = 64;
  cpu_plan(c)->sched[0].xtile = 4; /* a row of rms_norm: no outer r point to walk a tile inside */
  e = sched_verify(p, &p->kernels[0], &cpu_plan(c)->sched[0]);
  CHECK("sched_verify_rejects_row_x_tile", e && strstr(e->msg, "but the group has none"));
  coil_err_free(e);
  cpu_plan(c)->sched[0].xtile = 1;
  cpu_plan(c)->sched[0].streams[0] = 4; /* rows of rms_norm, unsplit: no part to read as runs */
  e = sched_verify(p, &p->kernels[0], &cpu_plan(c)->sched[0]);
  CHECK("sched_verify_rejects_streams_unsplit", cpu_plan(c)->sched[0].nsplit == 1 && e && strstr(e->msg, "4 streams, but"));
  coil_err_free(e);
  cpu_plan(c)->sched[0].streams[0] = 1;
  CHECK("sched_no_fast_math_without_exp_log", !cpu_plan(c)->sched[0].fast_math[0]);
  cpu_plan(c)->sched[0].fast_math[0] = true; /* a mean of squares: no exp, no log */
  e = sched_verify(p, &p->kernels[0], &cpu_plan(c)->sched[0]);
  CHECK("sched_verify_rejects_fast_math_without_exp_log", e && strstr(e->msg, "computes none"));
  coil_err_free(e);
}

/* Six layer norms, each followed by x + tanh(x / 2): one chain of 13
 * kernels.  Each reduction reads the layer before it from a row buffer
 * instead of recomputing every earlier layer from x, so no kernel computes
 * more than one tanh per element (the sixth layer's once computed six);
 * the buffers take turns in two places, each read only by the kernel
 * after its filler.  The same for four channel norms in a column chain
 * (tile buffers of 32 channels x 1024 columns).  names: the checks' prefix. */
static void test_norm_stack(Compiled *c, const char *names, int layers, int64_t place) {
  const Program *p = &cpu_plan(c)->program;
  const CChain *ch = &cpu_plan(c)->chains.chain[0];
  char what[96];
#define NAMED(s) (snprintf(what, sizeof what, "%s_%s", names, s), what)
  CHECK(NAMED("one_chain"), cpu_plan(c)->chains.n == 1 && ch->n == 2 * layers + 1 && p->nkernels == 2 * layers + 1);
  CHECK(NAMED("two_places"), ch->nbuf == 2 && ch->bufsize[0] == place && ch->bufsize[1] == place);
  int most = 0, reads = 0, fills = 0;
  bool next_only = true;
  for (int j = 0; j < ch->n; j++) {
    const Kernel *k = &p->kernels[j];
    bool *need = calloc((size_t)k->nvals + 1, 1);
    for (int r = 0; r < k->nreds; r++) kernel_mark_from(k, k->reds[r].src, need, ch->reuse[j]);
    for (int t = 0; t < k->nstores; t++) kernel_mark_from(k, k->stores[t].val, need, ch->reuse[j]);
    int tanhs = 0;
    for (int v = 0; v < k->nvals; v++) {
      tanhs += need[v] && ch->reuse[j][v] < 0 && k->vals[v].op == OP_TANH;
      reads += ch->reuse[j][v] >= 0;
      if (ch->save[j][v] < 0) continue;
      fills++;
      /* Until the place is filled again, kernel j + 1 reads it and no other. */
      for (int jc = j + 1; jc < ch->n; jc++) {
        bool reads_it = false, refills = false;
        for (int u = 0; u < p->kernels[jc].nvals; u++) {
          reads_it |= ch->reuse[jc][u] == ch->save[j][v];
          refills |= ch->save[jc][u] == ch->save[j][v];
        }
        if (reads_it != (jc == j + 1)) next_only = false;
        if (refills) break;
      }
    }
    if (tanhs > most) most = tanhs;
    free(need);
  }
  CHECK(NAMED("one_tanh_per_kernel"), most == 1);
  CHECK(NAMED("each_layer_buffered"), fills == 2 * layers - 2 && reads == 2 * layers - 2 && next_only);
  CoilErr *e = chain_verify(p, cpu_plan(c)->sched, &cpu_plan(c)->chains);
  CHECK(NAMED("verifies"), !e);
  coil_err_free(e);
#undef NAMED
}

int main(void) {
  snprintf(path, sizeof path, "/tmp/coil_chain_test_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, src, sizeof src - 1) != (ssize_t)(sizeof src - 1)) {
    printf("FAIL unit/chain_tempfile: cannot write %s\n", path);
    return 1;
  }
  close(fd);
  Compiled c;
  if (compile_fn("softmax", &c)) test_softmax(&c);
  compiled_free(&c);
  if (compile_fn("lse", &c)) test_lse(&c);
  compiled_free(&c);
  if (compile_fn("cols", &c)) test_cols(&c);
  compiled_free(&c);
  if (compile_fn("chsoft", &c)) test_column_chain(&c);
  compiled_free(&c);
  if (compile_fn("chsoft_nan", &c)) test_column_chain_nan_const(&c);
  compiled_free(&c);
  if (compile_fn("chsoft_rows", &c)) test_column_chain_preferred(&c);
  compiled_free(&c);
  if (compile_fn("three_shared", &c)) test_chain_buffer_budget(&c);
  compiled_free(&c);
  if (compile_fn("soft0_small", &c)) test_column_chain_too_few_tiles(&c);
  compiled_free(&c);
  if (compile_fn("norm_stack", &c)) test_norm_stack(&c, "norm_stack", 6, 1024);
  compiled_free(&c);
  if (compile_fn("channel_norm_stack", &c)) test_norm_stack(&c, "channel_norm_stack", 4, 32 * 1024);
  compiled_free(&c);
  if (compile_fn("rms_f16", &c)) test_sched_verify(&c);
  compiled_free(&c);
  unlink(path);
  return failures ? 1 : 0;
}
