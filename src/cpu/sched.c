/* CPU scheduling: loop order, vector mode, tiles, blocking and splits.
 * See the sched.c section of coil.h for what each parameter means.  All
 * decisions come from the kernel's access strides and sizes; none depends
 * on the number of threads, so results are reproducible everywhere.
 *
 * Loop order: the load that moves the most bytes streams (its r axes in
 * decreasing stride).  Another load laid out across it (the seed's q: 256
 * contiguous bytes per r point, 16 KB apart) gets the inner r axis tiled
 * so that both read runs of a page or more (tile_inner_r); streamed loads
 * are prefetched ahead (choose_stream_prefetch).
 * X tiles: up to MAX_XTILE points, so a column sum reads whole rows (its
 * block accumulators live in L1/L2; the C printer takes 8 r points per pass
 * over them).
 * The code-shape decisions that follow from these (lanes per row, r points
 * per pass, NaN lanes for long max rows, the vector width) are made here
 * too, so the C printer decides nothing; chain.c adds the program-level
 * ones.  `coil dump -d schedule` prints them all. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"

/* Fewer tasks than this and the reduction is split across threads. */
#define TARGET_TASKS 64
/* A split part should still hold this many elements of work. */
#define MIN_SPLIT_WORK (1 << 15)
/* VEC_R: independent lanes per row (several vector registers, so the adds
 * do not wait on each other; a power of two, so they fold pairwise, and no
 * more than the row has) and the row chunk summed before each flush. */
#define LANES 64
#define CHUNK 4096
/* VEC_X: r points per block flush, and the widest x tile. */
#define RBLOCK 256
#define MAX_XTILE 16384

/* The load that moves the most bytes per r point of group gi, or NULL. */
static const KVal *group_lead(const Kernel *k, int gi) {
  int lead = kernel_group_lead(k, gi);
  return lead >= 0 ? &k->vals[lead] : NULL;
}

/* VEC_X: r points per pass of the x loop when the body allows it, and the
 * smallest x tile worth it (a small tile keeps its accumulators in
 * registers anyway).  Without per-r-point values (a column sum), R_UNROLL
 * r points go through the x loop at once: each block accumulator is read
 * and written once per R_UNROLL points and that many rows stream side by
 * side.  Each lane still adds its terms one by one in r order, so the sums
 * are those of the plain loop. */
enum { R_UNROLL = 8, XT_UNROLL_MIN = 512 };

static int r_unroll(const Kernel *k, const CSched *s, int g, bool *mark, bool *varies) {
  if (XT_UNROLL_MIN > s->xtile) return 1;
  kernel_varies_along(k, k->x[k->nx - 1], varies);
  kernel_mark_group(k, g, mark, NULL);
  for (int i = 0; i < k->nvals; i++)
    if (mark[i] && !varies[i] && k->vals[i].op != OP_CONST) return 1; /* computed once per r point */
  return R_UNROLL;
}

/* Max and min rows of f32.  c_max's NaN test costs a second compare and
 * mask logic per value (logsumexp's max pass: 5.2 cycles per 16 bf16
 * values, 3.0 without the test).  So in the lane loop a lane keeps the
 * plain max (lane > v ? lane : v: on equal values the later one, as
 * c_max), and a second lane keeps the largest magnitude bits seen (an AND
 * and an unsigned max), above inf's only after a NaN; that NaN is put into
 * its lane before the lanes are folded with c_max.  Long rows only: for
 * rows of 16 (08_many_short_rows) the extra lanes and the check made it
 * 1.7x slower.  (A float blend, v != v ? v : lane, was tried instead: gcc
 * spelled it as compares and masked moves, logsumexp 10.8 ms against 8.9
 * here and 3.4 against 1.7 on the 16-core Intel host, tools/ab_bench.sh.
 * The integer form was once 3.4x slower there, before the JIT preferred
 * 512-bit vectors on AVX-512: gcc 13 at 256 bits.) */
enum { NAN_LANES_MIN_ROW = 1024 };

static bool nan_lanes(const Kernel *k, const KRed *r) {
  const KGroup *G = &k->groups[r->group];
  return (r->op == OP_AMAX || r->op == OP_AMIN) && !strcmp(dtype_c_compute(r->dtype), "float") &&
         k->axes[G->axes[G->naxes - 1]].size >= NAN_LANES_MIN_ROW;
}

/* A max/min with NaN lanes whose values are all bf16s (a bf16 value, or
 * one widened from bf16 exactly) compares them as 16-bit integers: a bf16
 * is the top half of its f32, and flipping a negative one's magnitude bits
 * orders the halves as the values (-0 just below +0; NaNs apart, in the
 * NaN lane as 16-bit magnitudes).  A 512-bit vector then holds 32 of them:
 * logsumexp's max pass as part of the whole, 8.9 -> 7.9 ms. */
static bool is_bf16_value(const Kernel *k, int i) {
  const KVal *v = &k->vals[i];
  if (v->dtype == DT_BF16) return true;
  return v->op == OP_CAST && v->dtype == DT_F32 && k->vals[v->arg[0]].dtype == DT_BF16;
}

/* Vector width.  Streaming a row reduction of 4-byte elements reads memory
 * faster with 128-bit loads than with 512-bit ones on AMD Zen 4 (a plain
 * f32 row sum reaches the read ceiling at 128 bits, about 75% of it at 512;
 * measured 2026-11-29), and slower on the 2-core Intel VMs with AVX-512
 * (02_row_sum_f32 7% slower at 128 bits, 2026-12-01), while
 * arithmetic-heavy bodies (exp) and the x-vectorised schedule, which keeps
 * its tile of accumulators in registers, need the widest vectors
 * everywhere.  So a kernel whose vector loops all reduce rows, load
 * elements of 4 bytes or more and do little arithmetic per element (cost
 * below) is marked narrow, and the C prelude's COIL_NARROW asks for 128-bit
 * vectors where the compiler targets AMD Zen (-march=native defines
 * __znverN__): the machine is known there, not here, and the C stays the
 * same for every machine.  Every other kernel keeps the compiler's
 * choice. */
enum { NARROW_MIN_ROW = 1024, NARROW_MAX_COST = 4 };

static bool prefers_narrow(const Kernel *k, const CSched *s, bool *mark, bool *varies) {
  if (s->mode != VEC_R || !k->ngroups) return false;
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    if (k->axes[G->axes[G->naxes - 1]].size < NARROW_MIN_ROW) return false; /* short rows: the fold dominates */
    kernel_varies_along(k, G->axes[G->naxes - 1], varies);
    kernel_mark_group(k, g, mark, NULL);
    int cost = 0;
    for (int i = 0; i < k->nvals; i++) {
      if (!mark[i] || !varies[i]) continue;
      if (k->vals[i].op == OP_INPUT && dtype_size(k->vals[i].dtype) < 4) return false;
      cost += op_cost(k->vals[i].op);
    }
    for (int r = 0; r < k->nreds; r++) cost += k->reds[r].group == g;
    if (cost > NARROW_MAX_COST) return false;
  }
  return true;
}

/* f16 <-> f32 through the CPU's converter.  gcc converts f16 with integer
 * and float arithmetic (the branch-free functions of the C prelude: about
 * 8 vector operations per 16 values one way, 12 the other) and does not
 * vectorise _Float16 conversions at all (gcc 12: one vcvtph2ps per value);
 * x86's F16C converts 16 values in one instruction.  So an f16 load that is
 * contiguous along the vector loop is converted a block at a time into an
 * f32 block in L1 before the loop (coil_f16_to_f32_n), and an f16 store
 * along it is written to an f32 block and converted after the loop
 * (coil_f32_to_f16_n).  Same values either way (round to nearest even,
 * subnormals exact; tests/unit/convert_test.c).  17_rms_norm_f16: 17.6 ->
 * 8.3-8.7 ms on the development machine (docs/bench.md).
 *   VEC_R: loads in a group, contiguous along its inner axis, converted
 *     per block of lanes.
 *   VEC_X: loads and stores of the tile's x loop (not split), contiguous
 *     along the inner x axis, converted per chunk.  Not those read inside
 *     a group's r loops: converting a chunk of x per r point (8 r points
 *     per pass, blocks of 8 x 256 values) made f16 column sums 10-25%
 *     slower than converting in the loop; the block's stores and reloads
 *     cost more there than the bit arithmetic they save.
 * Blocks shorter than STAGE_MIN values are not worth the extra copy. */
enum { STAGE_MIN = 16 };

static bool contiguous_along(const IExpr *ix, int ax) { return ax >= 0 && ix_coef(ix, ax) == 1 && !ix_mentions_nonlinear(ix, ax); }

/* An f16 store of a value loaded as it is (x.half() of an f32 x: the
 * store converts the load's f32, kernel_stored_value) is a copy at memory
 * speed either way; through a staging row it ran 10-25% slower (the row's
 * extra store and load), so such a store converts in the loop. */
static bool stores_a_load(const Program *p, const Kernel *k, const KStore *st) {
  return k->vals[kernel_stored_value(p, k, st)].op == OP_INPUT;
}

static void stage_conversions(Arena *a, const Program *p, const Kernel *k, CSched *s, bool *mark) {
  s->stage_load = ARENA_ARRAY(a, bool, k->nvals + 1);
  s->stage_store = ARENA_ARRAY(a, bool, k->nstores + 1);
  int xin = s->mode == VEC_X && k->nx ? k->x[k->nx - 1] : -1;
  bool x_blocks = xin >= 0 && s->nsplit == 1 && s->xtile >= STAGE_MIN;
  bool *in_group = ARENA_ARRAY(a, bool, k->nvals + 1);
  for (int g = 0; g < k->ngroups; g++) {
    kernel_mark_group(k, g, mark, NULL);
    for (int i = 0; i < k->nvals; i++) in_group[i] |= mark[i];
  }
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->dtype != DT_F16 || v->nguard) continue; /* a guarded load reads no block */
    if (s->mode == VEC_R && v->scope >= 0) {
      const KGroup *G = &k->groups[v->scope];
      s->stage_load[i] = s->lanes[v->scope] >= STAGE_MIN && contiguous_along(v->index, G->axes[G->naxes - 1]);
    } else if (s->mode == VEC_X && v->scope < 0) {
      s->stage_load[i] = x_blocks && !in_group[i] && contiguous_along(v->index, xin);
    }
  }
  for (int t = 0; t < k->nstores; t++)
    s->stage_store[t] = x_blocks && !k->stores[t].indexed && p->bufs[k->stores[t].buf].dtype == DT_F16 && contiguous_along(k->stores[t].index, xin) &&
                        !stores_a_load(p, k, &k->stores[t]);
}

/* Fast forms of exp, log and sigmoid (CSched.fast_math).  The exact c_expf and
 * c_logf spend much of their work on inputs rows rarely hold: 2^k in two
 * halves so that subnormal results and overflow come out right, the
 * subnormal scaling and the zero/negative/inf/NaN masks of log.  Their fast
 * forms leave that out and are exact copies of the rest (the same bits where
 * they apply); a range key per value, its largest per lane compared after
 * the chunk, says whether the chunk must run again exactly.  A log per element (16_entropy) went from
 * 7.6-8.2 ms to 4.9-5.0 (check included); an exp per
 * element saves less (5 of 18 operations, for a check of 3): 15_logsumexp
 * 11.6-12.2 -> 10.8-11.3 ms, a row sum of sigmoid 5.3-6.2 -> 4.8-5.1.  tanh
 * has none: its exp form (for |x| >= 0.55) with the fast exp measured no
 * faster (8.2-8.8 ms either way; its division and polynomial dominate).
 * f64 the same way (c_expd_fast, c_logd_fast, c_sigmoidd_fast): a row
 * entropy of f64 10.7 -> 8.4 ms, a row sum of exp 6.7 -> 6.2.
 * The rerun needs no undo: a VEC_R chunk starts its lanes afresh, a VEC_X
 * r block its blk accumulators (and the r digits are decoded again from
 * the block's start). */
bool sched_has_fast_form(const KVal *v) {
  return (v->op == OP_EXP || v->op == OP_LOG || v->op == OP_SIGMOID) && (v->cdtype == DT_F32 || v->cdtype == DT_F64);
}

static void choose_fast_math(Arena *a, const Kernel *k, CSched *s) {
  s->fast_math = ARENA_ARRAY(a, bool, k->ngroups + 1);
  bool *varies = ARENA_ARRAY(a, bool, k->nvals + 1);
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    /* VEC_R: only what the vector loop computes (a value that does not
     * vary along it is computed once per chunk, exactly); VEC_X: all of
     * the block's values. */
    if (s->mode == VEC_R) kernel_varies_along(k, G->axes[G->naxes - 1], varies);
    for (int i = 0; i < k->nvals; i++)
      s->fast_math[g] |= k->vals[i].scope == g && (s->mode == VEC_X || varies[i]) && sched_has_fast_form(&k->vals[i]);
  }
}

/* Software prefetch of streamed inputs.  On a 2-core Intel VM (2026-12-01)
 * the hardware prefetchers alone left every reduction with more than a
 * few operations per cache line at a third to a half of the read ceiling:
 * one core keeps too few lines in flight for the memory's latency unless
 * told what comes next.  A prefetch into L2 (prefetcht1) of each streamed
 * load's line STREAM_AHEAD_BYTES ahead fixed that: in a driver,
 * 08_many_short_rows 25 -> 9.3 ms, 13_layer_norm_stats 5.6-6.1 -> 3.1,
 * 16_entropy 7.5 -> 4.2, 14_nhwc_col_var 7.8 -> 5.0 (2 threads; 4 KB ahead
 * about as good, 2 KB a third worse, into L1 a third worse).
 *   VEC_R: a load contiguous along the row, ahead by that many bytes of
 *     its row.  The address ahead is the load's own index with the row's
 *     point moved ahead, which is what the loop reads later where the row
 *     goes on in memory where the loop goes next (the next outer r point,
 *     the tile's next x point or, for one r axis, the next x point; a
 *     whole-tensor row has nothing after it).  Where it does not (a slice
 *     of each row), a point ahead past the row's end is taken in the next
 *     row (stream_wrap: that axis one point on; so at most a row ahead,
 *     where rows are shorter than 8 KB): sliced rows of f32[8192,
 *     8200] summed to 8192 ran at 0.75 of the ceiling against 0.97 for
 *     whole rows, an entropy over slices at 0.45 against 0.77.
 *   VEC_X: a load contiguous along the tile's x axis that moves with the
 *     inner r axis, ahead by as many r points as the group's such loads
 *     take to read that many bytes (the seed: 768 bytes per r point, 11
 *     ahead; at least a pass of the x loop's r points); the address is
 *     exactly what the loop reads then; where the inner r axis is shorter
 *     than twice that (tiled, tile_inner_r), whole points of the next outer
 *     r axis ahead instead, with the inner point where it is (moving the
 *     inner point past its end would be a different tile's data).  Only
 *     where they read less than that per r point: column sums of whole
 *     rows (03_col_sum, 32 KB per r point) stream at the ceiling without,
 *     and prefetching any distance ahead made them 1.25-1.35x slower.
 * stream_ahead counts points of stream_axis. */
enum { STREAM_AHEAD_BYTES = 8192 };

static bool streams_x(const KVal *v, int xin, int rin) {
  return v->op == OP_INPUT && !v->nguard && contiguous_along(v->index, xin) && !ix_mentions_nonlinear(v->index, rin) && ix_coef(v->index, rin);
}

static void choose_stream_prefetch(Arena *a, const Program *p, const Kernel *k, CSched *s) {
  s->stream_ahead = ARENA_ARRAY(a, int64_t, k->nvals + 1);
  s->stream_axis = ARENA_ARRAY(a, int, k->nvals + 1);
  s->stream_wrap = ARENA_ARRAY(a, int, k->nvals + 1);
  for (int i = 0; i < k->nvals; i++) s->stream_wrap[i] = -1;
  int xin = k->nx ? k->x[k->nx - 1] : -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope < 0 || v->nguard) continue; /* a guarded load's address may be outside its buffer */
    const KGroup *G = &k->groups[v->scope];
    int rin = G->axes[G->naxes - 1];
    if (s->mode == VEC_R) {
      int next = s->xtile > 1 ? xin : G->naxes > 1 ? G->axes[G->naxes - 2] : xin;
      if (!contiguous_along(v->index, rin) || (next >= 0 && ix_mentions_nonlinear(v->index, next))) continue;
      s->stream_ahead[i] = STREAM_AHEAD_BYTES / dtype_size(p->bufs[v->buf].dtype);
      s->stream_axis[i] = rin;
      if (next >= 0 && ix_coef(v->index, next) != k->axes[rin].size) {
        /* At most a row ahead: the point ahead is in this row or the next. */
        s->stream_wrap[i] = next;
        if (s->stream_ahead[i] > k->axes[rin].size) s->stream_ahead[i] = k->axes[rin].size;
      }
    } else if (xin >= 0 && streams_x(v, xin, rin)) {
      int64_t bytes = 0;
      for (int j = 0; j < k->nvals; j++)
        if (k->vals[j].scope == v->scope && streams_x(&k->vals[j], xin, rin)) bytes += s->xtile * dtype_size(p->bufs[k->vals[j].buf].dtype);
      int64_t ahead = (STREAM_AHEAD_BYTES + bytes - 1) / bytes, n = k->axes[rin].size;
      if (ahead < s->runroll[v->scope]) ahead = s->runroll[v->scope];
      if (bytes >= STREAM_AHEAD_BYTES) continue;
      s->stream_ahead[i] = ahead, s->stream_axis[i] = rin;
      if (2 * ahead > n && G->naxes > 1) /* a short inner axis (tile_inner_r): whole steps of the next one */
        s->stream_ahead[i] = (ahead + n - 1) / n, s->stream_axis[i] = G->axes[G->naxes - 2];
    }
  }
}

/* Streams.  A split reduction's part is a long contiguous run of chunks
 * (a whole-tensor sum, a few long rows), and one core reading one stream
 * does not reach the memory's bandwidth on every machine: on a 2-core
 * Intel VM (2026-12-01) a bf16 sum read as one run a thread took 10.4 ms
 * for 268 MB, as four runs side by side 8.5 ms (31.5 GB/s, the read
 * ceiling), each 64-point block of the vector loop taken from each run in
 * turn.  Each run keeps its own lanes and accumulator and adds its chunks
 * in order; the runs' accumulators are added in run order after them, and
 * the part's chunks past the last whole set go on in one run.  Only where
 * the part's units are whole chunks of the one r axis (a group of one
 * axis, the chunk dividing it and the lanes dividing the chunk), with no
 * x tile, NaN lanes, fast forms or staged loads: the plain sums and
 * min/max of long runs, where the read is all the work. */
enum { STREAMS = 4 };

/* Whether group g's split parts can be read as runs (what the C printer's
 * form of them assumes; the verifier's check). */
static bool streams_allowed(const Kernel *k, const CSched *s, int g) {
  const KGroup *G = &k->groups[g];
  if (s->mode != VEC_R || s->nsplit < 2 || s->xtile > 1 || G->naxes != 1 || s->fast_math[g]) return false;
  if (k->axes[G->axes[0]].size % s->chunk || s->chunk % s->lanes[g]) return false;
  for (int r = 0; r < k->nreds; r++)
    if (k->reds[r].group == g && s->nan_lanes[r]) return false;
  for (int i = 0; i < k->nvals; i++)
    if (k->vals[i].scope == g && s->stage_load[i]) return false;
  return true;
}

/* ... and worth it: each run gets at least two chunks of every part. */
static bool streams_fit(const Kernel *k, const CSched *s, int g) {
  return streams_allowed(k, s, g) && k->axes[k->groups[g].axes[0]].size / s->chunk / s->nsplit >= 2 * STREAMS;
}

/* The code-shape decisions that follow from the mode and the tiles. */
static void shape_loops(Arena *a, const Program *p, const Kernel *k, CSched *s) {
  bool *mark = ARENA_ARRAY(a, bool, k->nvals + 1), *varies = ARENA_ARRAY(a, bool, k->nvals + 1);
  s->runroll = ARENA_ARRAY(a, int, k->ngroups + 1);
  s->lanes = ARENA_ARRAY(a, int, k->ngroups + 1);
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    int64_t n = k->axes[G->axes[G->naxes - 1]].size;
    int L = 1;
    while (L * 2 <= LANES && L * 2 <= n) L *= 2;
    s->lanes[g] = s->mode == VEC_R ? L : 0;
  }
  s->nan_lanes = ARENA_ARRAY(a, bool, k->nreds + 1);
  for (int g = 0; g < k->ngroups; g++) s->runroll[g] = s->mode == VEC_X ? r_unroll(k, s, g, mark, varies) : 1;
  s->bf16_keys = ARENA_ARRAY(a, bool, k->nreds + 1);
  for (int r = 0; r < k->nreds; r++) {
    s->nan_lanes[r] = s->mode == VEC_R && nan_lanes(k, &k->reds[r]);
    s->bf16_keys[r] = s->nan_lanes[r] && is_bf16_value(k, k->reds[r].src);
  }
  s->narrow = prefers_narrow(k, s, mark, varies);
  stage_conversions(a, p, k, s, mark);
  choose_fast_math(a, k, s);
  choose_stream_prefetch(a, p, k, s);
  s->streams = ARENA_ARRAY(a, int, k->ngroups + 1);
  for (int g = 0; g < k->ngroups; g++) s->streams[g] = streams_fit(k, s, g) ? STREAMS : 1;
}

/* VEC_R x tiles.  Where a group reduces over an outer r axis too (a
 * channel's statistics over batch and pixels: x = C, r = N, HW of an NCHW
 * tensor), one x point at a time reads a piece of the row (HW, 32 KB in
 * 06_channel_stats), then jumps a whole outer stride (4 MB) to the next
 * piece, and every jump restarts the hardware prefetcher.  When the pieces
 * of adjacent x points lie side by side (the lead load's stride along the
 * innermost x axis is the inner r axis's length, which is contiguous), a
 * tile of them is walked inside each outer r point instead: the reads run
 * RUN_BYTES at a time.  Each x point still adds its chunks in the same
 * order.  06's kernel in a driver: 5.3-6.2 ms one channel at a time,
 * 4.8-5.3 in tiles of 8 (runs of 256 KB; 512 KB and 2 MB no faster, 128 KB
 * slower), about what a plain read of the same bytes takes; the emitted
 * form, `tools/ab_bench.sh`, 4.64 -> 3.79 ms (docs/bench.md).  The tile
 * walks each chunk of its x point's piece before the next x point: chunk
 * by chunk across the tile, 8 KB reads 32 KB apart, it was 7% slower than
 * no tile.  At least RTILE_MIN_TILES tiles along the axis, so threads
 * still share it (fewer tiles than tasks wanted split the reduction, as
 * for any kernel). */
enum { RUN_BYTES = 256 << 10, RTILE_MIN_TILES = 16 };

static int64_t r_tile(const Kernel *k) {
  if (!k->nx || !k->ngroups) return 1;
  int xin = k->x[k->nx - 1];
  int64_t nx = k->axes[xin].size, tile = 0;
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    const KVal *lead = group_lead(k, g);
    if (G->naxes < 2 || !lead) return 1;
    int rin = G->axes[G->naxes - 1];
    int64_t len = k->axes[rin].size;
    if (ix_mentions_nonlinear(lead->index, xin) || ix_mentions_nonlinear(lead->index, rin)) return 1;
    if (ix_coef(lead->index, rin) != 1 || ix_coef(lead->index, xin) != len) return 1;
    int64_t piece = len * dtype_size(lead->dtype), t = (RUN_BYTES + piece - 1) / piece;
    if (!tile || t < tile) tile = t;
  }
  if (tile > nx / RTILE_MIN_TILES) tile = nx / RTILE_MIN_TILES;
  return tile > 1 ? tile : 1;
}

/* VEC_X: tiles of the inner r axis for a load laid out across the lead.
 * The seed reads grad_out (the lead, f32) along (r2 heads, r3 tokens) and
 * q (bf16) along (r3, r2): r axes in the lead's order stream grad_out, but
 * q then gives 256 contiguous bytes per r point, 16 KB apart, and its rows
 * are read in 64 pieces at 64 different times.  Tiling the inner r axis
 * (r3 -> r3 outer, r3i of B points) and walking the other load's own row
 * axis (r2) between the two makes both read runs: grad_out B x 512 bytes
 * (B = 8: 4 KB) per r2 point, q whole 16 KB rows per tile.  On a 2-core
 * Intel VM, `coil bench` (tools/ab_bench.sh, 3 rounds, 2026-12-01): 16.8 ->
 * 12.4 ms, 0.80 -> 1.06 of the read ceiling (with the prefetch of the next
 * r2 point's runs, choose_stream_prefetch).  The transposed tiling (r2 in
 * blocks of 16 inside r3: q 4 KB runs, grad_out 16 streams) measured slower
 * on an AMD Zen 4 machine (2026-11-30), 30-32 ms against 23; this one keeps
 * the heavier load in page-long runs.
 * Only where the lead reads under RUN_MIN_BYTES per r point, its rows lie
 * side by side along the inner r axis, the other load's rows lie side by
 * side along another r axis of the group (at least RUN_MIN_BYTES of them),
 * and some B up to 4x the least one divides the inner axis at least twice. */
enum { RUN_MIN_BYTES = 4096 };

static int64_t load_bytes(const Program *p, const KVal *v) { return dtype_size(p->bufs[v->buf].dtype); }

static bool rows_along(const Kernel *k, const KVal *v, int ax, int xin) {
  return !ix_mentions_nonlinear(v->index, ax) && ix_coef(v->index, ax) == k->axes[xin].size;
}

/* The kernel's arrays this pass changes, copied first: the pipeline's
 * program shares them (the C target plans on a copy of the kernel array,
 * not of each kernel's arrays). */
static void copy_on_write(Arena *a, Kernel *k, CSched *s) {
  if (s->copied) return;
  s->copied = true;
  KGroup *groups = ARENA_ARRAY(a, KGroup, k->ngroups + 1);
  memcpy(groups, k->groups, sizeof(KGroup) * (size_t)k->ngroups);
  k->groups = groups;
  KVal *vals = ARENA_ARRAY(a, KVal, k->capvals + 1);
  memcpy(vals, k->vals, sizeof(KVal) * (size_t)k->nvals);
  k->vals = vals;
  KStore *stores = ARENA_ARRAY(a, KStore, k->nstores + 1);
  memcpy(stores, k->stores, sizeof(KStore) * (size_t)k->nstores);
  k->stores = stores;
}

static void tile_inner_r(Arena *a, Kernel *k, const Program *p, CSched *s, int g) {
  KGroup *G = &k->groups[g];
  const KVal *lead = group_lead(k, g);
  if (G->naxes < 2 || G->naxes >= COIL_MAX_DIMS || !k->nx || !lead) return;
  int xin = k->x[k->nx - 1], rin = G->axes[G->naxes - 1];
  int64_t lead_row = k->axes[xin].size * load_bytes(p, lead);
  if (!contiguous_along(lead->index, xin) || !rows_along(k, lead, rin, xin) || lead_row >= RUN_MIN_BYTES) return;
  int across = -1;
  for (int i = 0; i < k->nvals && across < 0; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope != g || !contiguous_along(v->index, xin) || rows_along(k, v, rin, xin)) continue;
    for (int j = 0; j + 1 < G->naxes && across < 0; j++)
      if (rows_along(k, v, G->axes[j], xin) && k->axes[G->axes[j]].size * k->axes[xin].size * load_bytes(p, v) >= RUN_MIN_BYTES)
        across = j;
  }
  /* B: the smallest divisor of the inner axis that makes the lead's runs
   * RUN_MIN_BYTES, if one does within 4x that (4095 = 9 x 455: runs of 9). */
  int64_t n = k->axes[rin].size, B = (RUN_MIN_BYTES + lead_row - 1) / lead_row;
  while (B <= 4 * ((RUN_MIN_BYTES + lead_row - 1) / lead_row) && n % B) B++;
  if (across < 0 || n % B || n < 2 * B) return;
  /* r -> B r + ri: ri is a new axis of B points, r keeps the rest. */
  copy_on_write(a, k, s);
  G = &k->groups[g];
  int ri = k->naxes;
  KAxis *axes = ARENA_ARRAY(a, KAxis, ri + 1);
  memcpy(axes, k->axes, sizeof(KAxis) * (size_t)ri);
  axes[ri] = axes[rin];
  axes[ri].size = B;
  axes[ri].name = arena_printf(a, "%si", axes[rin].name ? axes[rin].name : "r");
  axes[rin].size /= B;
  k->axes = axes;
  k->naxes = ri + 1;
  IExpr **sub = ARENA_ARRAY(a, IExpr *, k->naxes);
  sub[rin] = ix_add(a, ix_scale(a, ix_axis(a, rin), B), ix_axis(a, ri));
  kernel_subst(a, k, sub);
  /* (..., across, ..., r) -> (..., r, across, ri) */
  int a2 = G->axes[across];
  memmove(&G->axes[across], &G->axes[across + 1], sizeof(int) * (size_t)(G->naxes - across - 1));
  G->axes[G->naxes - 1] = a2;
  G->axes[G->naxes++] = ri;
}

static int64_t group_points(const Kernel *k, const KGroup *g, int skip_inner) {
  int64_t n = 1;
  for (int i = 0; i < g->naxes - skip_inner; i++) n *= k->axes[g->axes[i]].size;
  return n;
}

void sched_kernel_c(Arena *a, Kernel *k, const Program *p, CSched *s) {
  *s = (CSched){.mode = VEC_X, .nsplit = 1, .chunk = CHUNK, .rblock = RBLOCK};
  int xin = k->nx ? k->x[k->nx - 1] : -1;
  int64_t wx = 0, wr = 0;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (v->op != OP_INPUT || v->scope < 0) continue;
    const KGroup *g = &k->groups[v->scope];
    int rin = g->axes[g->naxes - 1];
    if (xin >= 0 && ix_coef(v->index, xin) == 1) wx += dtype_size(v->dtype);
    /* A load that does not vary along x is read once per r point either
     * way (VEC_X hoists it out of the x loop): it streams nothing along r.
     * A sum at indices' index row (ids[r], beside values[r, x]) made
     * Llama's embedding gradient a row reduction of 256-float strides,
     * 3.5x slower than columns. */
    if (ix_coef(v->index, rin) == 1 && (xin < 0 || kval_mentions(v, xin))) wr += dtype_size(v->dtype);
  }
  if (k->ngroups && (xin < 0 || wr > wx)) s->mode = VEC_R;
  int64_t xpoints = 1;
  for (int i = 0; i < k->nx; i++) xpoints *= k->axes[k->x[i]].size;
  int64_t tiles;
  if (s->mode == VEC_X) {
    for (int g = 0; g < k->ngroups; g++) tile_inner_r(a, k, p, s, g);
    /* Tiles of at most MAX_XTILE points, as even as possible. */
    int64_t inner = xin >= 0 ? k->axes[xin].size : 1;
    int64_t ntx = (inner + MAX_XTILE - 1) / MAX_XTILE;
    s->xtile = (inner + ntx - 1) / ntx;
    if (ntx > 1) s->xtile = (s->xtile + 15) / 16 * 16;
    ntx = (inner + s->xtile - 1) / s->xtile;
    tiles = xpoints / inner * ntx;
  } else {
    s->xtile = r_tile(k);
    int64_t inner = k->nx ? k->axes[xin].size : 1;
    tiles = xpoints / inner * ((inner + s->xtile - 1) / s->xtile);
  }
  if (!k->ngroups || tiles >= TARGET_TASKS) {
    shape_loops(a, p, k, s);
    return;
  }
  /* Split: as many parts as keep every part worth a thread's while. */
  int64_t want = (TARGET_TASKS + tiles - 1) / tiles;
  for (int g = 0; g < k->ngroups; g++) {
    const KGroup *G = &k->groups[g];
    int64_t units, work;
    if (s->mode == VEC_R) {
      int64_t n = k->axes[G->axes[G->naxes - 1]].size;
      /* A tile walks whole outer r points (emit.c). */
      units = group_points(k, G, 1) * (s->xtile > 1 ? 1 : (n + s->chunk - 1) / s->chunk);
      work = group_points(k, G, 0) * s->xtile;
    } else {
      units = (group_points(k, G, 0) + s->rblock - 1) / s->rblock;
      work = group_points(k, G, 0) * s->xtile;
    }
    int64_t by_work = work / MIN_SPLIT_WORK;
    if (want > units) want = units;
    if (want > by_work) want = by_work;
  }
  s->nsplit = want > 1 ? want : 1;
  shape_loops(a, p, k, s);
}

CoilErr *sched_verify(const Program *p, const Kernel *k, const CSched *s) {
  if (s->nsplit < 1 || s->xtile < 1)
    return coil_err("schedule verifier: %s: %lld splits, tile %lld", k->name, (long long)s->nsplit, (long long)s->xtile);
  if (s->mode == VEC_R && !k->ngroups) return coil_err("schedule verifier: %s vectorises over an r axis but reduces nothing", k->name);
  for (int g = 0; g < k->ngroups && s->mode == VEC_R; g++) {
    int L = s->lanes[g];
    if (L < 1 || (L & (L - 1))) return coil_err("schedule verifier: %s group %d: %d lanes, not a power of two", k->name, g, L);
    if (s->xtile > 1 && k->groups[g].naxes < 2)
      return coil_err("schedule verifier: %s group %d: an x tile of %lld walked inside outer r points, but the group has none", k->name, g,
                        (long long)s->xtile);
  }
  for (int g = 0; g < k->ngroups; g++) {
    if (s->streams[g] != 1 && (s->streams[g] < 1 || !streams_allowed(k, s, g)))
      return coil_err("schedule verifier: %s group %d: %d streams, but its units are not whole chunks of one split r axis "
                        "read plainly (no x tile, NaN lanes, fast forms or staged loads)",
                        k->name, g, s->streams[g]);
  }
  if (s->mode == VEC_R && s->xtile > 1 && !k->nx)
    return coil_err("schedule verifier: %s: an x tile of %lld but no x axis", k->name, (long long)s->xtile);
  int xin = s->mode == VEC_X && k->nx ? k->x[k->nx - 1] : -1;
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (!s->stage_load[i]) continue;
    if (v->op != OP_INPUT || v->dtype != DT_F16 || v->nguard)
      return coil_err("schedule verifier: %s stages v%d, which is no f16 load or a guarded one", k->name, i);
    int ax = s->mode == VEC_X ? xin : v->scope >= 0 ? k->groups[v->scope].axes[k->groups[v->scope].naxes - 1] : -1;
    if (!contiguous_along(v->index, ax))
      return coil_err("schedule verifier: %s stages v%d, which is not contiguous along its vector loop", k->name, i);
  }
  for (int t = 0; t < k->nstores; t++) {
    if (!s->stage_store[t]) continue;
    if (p->bufs[k->stores[t].buf].dtype != DT_F16 || s->nsplit != 1 || !contiguous_along(k->stores[t].index, xin))
      return coil_err("schedule verifier: %s stages store %d, which is no unsplit f16 store contiguous along its x loop", k->name, t);
  }
  for (int r = 0; r < k->nreds; r++)
    if (s->bf16_keys[r] && (!s->nan_lanes[r] || !is_bf16_value(k, k->reds[r].src)))
      return coil_err("schedule verifier: %s acc%d: bf16 keys for values that are not bf16s in NaN lanes", k->name, r);
  for (int i = 0; i < k->nvals; i++) {
    const KVal *v = &k->vals[i];
    if (!s->stream_ahead[i]) continue;
    int rin = v->scope >= 0 ? k->groups[v->scope].axes[k->groups[v->scope].naxes - 1] : -1;
    bool streams = v->op == OP_INPUT && !v->nguard && rin >= 0 &&
                   (s->mode == VEC_R ? contiguous_along(v->index, rin) : k->nx && streams_x(v, k->x[k->nx - 1], rin));
    if (!streams || s->stream_ahead[i] < 0)
      return coil_err("schedule verifier: %s prefetches v%d ahead, which is no load streaming along its vector loop", k->name, i);
  }
  for (int g = 0; g < k->ngroups; g++) {
    if (!s->fast_math[g]) continue;
    bool any = false;
    for (int i = 0; i < k->nvals; i++) any |= k->vals[i].scope == g && sched_has_fast_form(&k->vals[i]);
    if (!any) return coil_err("schedule verifier: %s group %d: fast exp, log, sigmoid, but the group computes none", k->name, g);
  }
  return NULL;
}

/* "group g: exp, sigmoid in fast forms; ...": the ops the group computes
 * in a fast form, in the order exp, log, sigmoid. */
static void dump_fast_math(StrBuf *sb, const Kernel *k, const CSched *s, int g) {
  static const Op ops[] = {OP_EXP, OP_LOG, OP_SIGMOID};
  static const char *const names[] = {"exp", "log", "sigmoid"};
  int n = 0;
  sb_printf(sb, "  group %d:", g);
  for (int o = 0; o < 3; o++) {
    bool any = false;
    for (int i = 0; i < k->nvals; i++) any |= k->vals[i].scope == g && k->vals[i].op == ops[o] && sched_has_fast_form(&k->vals[i]);
    if (any) sb_printf(sb, "%s %s", n++ ? "," : "", names[o]);
  }
  sb_printf(sb, " in fast form%s; a %s with a value off %s range runs again exactly\n", n > 1 ? "s" : "",
            s->mode == VEC_R ? "chunk" : "block of r points", n > 1 ? "their" : "its");
}

void sched_dump(StrBuf *sb, const Kernel *k, const CSched *s) {
  sb_printf(sb, "schedule %s (cpu)\n", k->name);
  sb_printf(sb, "  loops: x");
  for (int i = 0; i < k->nx; i++) sb_printf(sb, " %s[%lld]", k->axes[k->x[i]].name, (long long)k->axes[k->x[i]].size);
  for (int g = 0; g < k->ngroups; g++) {
    sb_printf(sb, " | group %d:", g);
    for (int i = 0; i < k->groups[g].naxes; i++) {
      int ax = k->groups[g].axes[i];
      sb_printf(sb, " %s[%lld]", k->axes[ax].name, (long long)k->axes[ax].size);
    }
  }
  sb_puts(sb, "\n");
  if (s->mode == VEC_X)
    sb_printf(sb, "  vectorise over the innermost x axis: tile %lld, r block %lld\n", (long long)s->xtile, (long long)s->rblock);
  else {
    sb_puts(sb, "  vectorise over the innermost r axis:");
    for (int g = 0; g < k->ngroups; g++) sb_printf(sb, "%s %d", g ? "," : "", s->lanes[g]);
    sb_printf(sb, " lanes%s, chunk %lld\n", k->ngroups > 1 ? " (by group)" : "", (long long)s->chunk);
    if (s->xtile > 1)
      sb_printf(sb, "  x tile %lld: adjacent x points walked inside each outer r point (their pieces lie side by side)\n",
                (long long)s->xtile);
  }
  for (int g = 0; g < k->ngroups; g++)
    if (s->mode == VEC_X && s->runroll[g] > 1) sb_printf(sb, "  group %d: %d r points per pass of the x loop\n", g, s->runroll[g]);
  for (int r = 0; r < k->nreds; r++)
    if (s->nan_lanes[r])
      sb_printf(sb, "  acc%d: %s\n", r,
                s->bf16_keys[r] ? "bf16 values compared as 16-bit integers; NaNs found at both ends of their order"
                                : "NaNs kept in lanes of their own");
  sb_printf(sb, "  split each reduction into %lld part%s\n", (long long)s->nsplit, s->nsplit == 1 ? "" : "s");
  for (int g = 0; g < k->ngroups; g++)
    if (s->streams[g] > 1) sb_printf(sb, "  group %d: each part's chunks read as %d runs side by side\n", g, s->streams[g]);
  if (s->narrow) sb_puts(sb, "  asks for vectors of 128 bits on AMD Zen (a light row reduction of 4-byte loads)\n");
  for (int i = 0; i < k->nvals; i++)
    if (s->stage_load[i]) {
      Arena a = {0};
      sb_printf(sb, "  v%d: f16 load converted a vector block at a time: b%d[", i, k->vals[i].buf);
      ix_print(sb, k->vals[i].index, kernel_axis_names(&a, k), false);
      sb_puts(sb, "]\n");
      arena_free(&a);
    }
  for (int t = 0; t < k->nstores; t++)
    if (s->stage_store[t]) sb_printf(sb, "  store %d: f16, written as f32 and converted a vector block at a time\n", t);
  for (int g = 0; g < k->ngroups; g++)
    if (s->fast_math[g]) dump_fast_math(sb, k, s, g);
  for (int i = 0; i < k->nvals; i++)
    if (s->stream_ahead[i]) {
      sb_printf(sb, "  v%d: prefetched %lld point%s of %s ahead", i, (long long)s->stream_ahead[i], s->stream_ahead[i] == 1 ? "" : "s",
                k->axes[s->stream_axis[i]].name);
      if (s->stream_wrap[i] >= 0) sb_printf(sb, " (past the row's end: the next %s's row)", k->axes[s->stream_wrap[i]].name);
      sb_puts(sb, "\n");
    }
}
