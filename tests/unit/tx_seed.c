/* The seed case at full size, in process: the fixed NPU kernel from the
 * seed (tests/triton/seed_fixed.py) run by the executor on
 *   grad_out_base f32 [2,64,4096,128], q bf16 [2,4096,64,128],
 *   q_square_sum f32 [2,4096,64] in [1, 2)
 * against a float64 reference of
 *   sum over (0,1,2) of grad_out_base.permute(0,2,1,3) * q.float()
 *                       * rsqrt(q_square_sum.unsqueeze(-1) / 128 + 1e-6)
 * with block sizes that divide the axes and with tail tiles, and the
 * buggy kernel with only its store fixed, which must give the wrong sums.
 * It also times a plain C loop over the same data, and prints the ratio.
 *
 *   build/test/tx_seed DIR      (DIR holds seed_fixed.py, seed_buggy.py)
 *   build/test/tx_seed DIR --bench [THREADS]   timing only, fixed blocks
 *
 * Prints "ok NAME" / "FAIL NAME: why" lines like a suite. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tx/tx.h"

enum { B = 2, S = 4096, H = 64, D = 128 };

static float *g;     /* [B,H,S,D] */
static uint16_t *q;  /* [B,S,H,D] bf16 */
static float *qs;    /* [B,S,H] */
static double ref[D];
static int failures;

/* splitmix64: deterministic, fast, good enough for test data. */
static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t next64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static float unif(void) { return (float)((next64() >> 40) * 0x1p-24); } /* [0, 1) */

static void make_inputs(void) {
  size_t n = (size_t)B * S * H * D;
  g = malloc(n * sizeof *g);
  q = malloc(n * sizeof *q);
  qs = malloc((size_t)B * S * H * sizeof *qs);
  for (size_t i = 0; i < n; i++) g[i] = 4 * unif() - 2;
  for (size_t i = 0; i < n; i++) q[i] = f32_to_bf16(4 * unif() - 2);
  for (size_t i = 0; i < (size_t)B * S * H; i++) qs[i] = 1 + unif();
}

static void reference(void) {
  double acc[D] = {0};
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      for (int h = 0; h < H; h++) {
        double inv = 1 / sqrt((double)qs[((size_t)b * S + s) * H + h] / 128 + 1e-6);
        const float *gp = g + (((size_t)b * H + h) * S + s) * D;
        const uint16_t *qp = q + (((size_t)b * S + s) * H + h) * D;
        for (int d = 0; d < D; d++) acc[d] += (double)gp[d] * bf16_to_f32(qp[d]) * inv;
      }
  memcpy(ref, acc, sizeof ref);
}

/* CPU time of the process (all threads), in ms: on a loaded machine wall
 * time measures the neighbours as much as the code. */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The plain hand-fused loop, fp32 like the kernel: what the executor's
 * speed is measured against. */
static double plain_loop_ms(float *out) {
  double t0 = coil_now_ms();
  float acc[D] = {0};
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      for (int h = 0; h < H; h++) {
        float inv = 1.0f / sqrtf(qs[((size_t)b * S + s) * H + h] * 0.0078125f + 1e-6f);
        const float *gp = g + (((size_t)b * H + h) * S + s) * D;
        const uint16_t *qp = q + (((size_t)b * S + s) * H + h) * D;
        for (int d = 0; d < D; d++) acc[d] += gp[d] * bf16_to_f32(qp[d]) * inv;
      }
  memcpy(out, acc, sizeof acc);
  return coil_now_ms() - t0;
}

/* What the buggy kernel computes with blocks (16, 16, 2, 16, 16), its
 * store summing over axis 1: after each r2 tile the accumulator [16, 512]
 * holds only that tile, flattened from (r3, r1, r2, x0) in C order, so its
 * row j covers r3 = j / 8 and heads 2 (j % 8) and 2 (j % 8) + 1 of every
 * r1 tile, over all 16 x0 of the program; the last r2 tile's store wins. */
static void buggy_expected(double *out, double *mag) {
  for (int p = 0; p < D / 16; p++)
    for (int j = 0; j < 16; j++) {
      double acc = 0, m = 0;
      int b = j / 8;
      for (int l1 = 0; l1 < H / 16; l1++)
        for (int hh = 0; hh < 2; hh++)
          for (int si = 0; si < 16; si++)
            for (int x = 0; x < 16; x++) {
              int h = l1 * 16 + 2 * (j % 8) + hh, s = S - 16 + si, d = 16 * p + x;
              float inv = 1.0f / sqrtf(qs[((size_t)b * S + s) * H + h] / 128.0f + 9.999999974752427e-07f);
              double t = (double)g[(((size_t)b * H + h) * S + s) * D + d] *
                         bf16_to_f32(q[(((size_t)b * S + s) * H + h) * D + d]) * inv;
              acc += t;
              m += fabs(t);
            }
      out[16 * p + j] = acc;
      mag[16 * p + j] = m;
    }
}

static char *read_kernel(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CoilErr *e = NULL;
  char *src = coil_read_file(path, NULL, &e);
  if (!src) {
    fprintf(stderr, "%s\n", e->msg);
    exit(2);
  }
  return src;
}

typedef struct Blocks {
  int64_t x0block, x0sub, r3, r2, r1, grid;
} Blocks;

static CoilErr *run(const char *file, const char *src, Blocks bl, float *out, int threads,
                    double *ms) {
  TxArg args[] = {
      {"in_ptr0", TX_PTR, DT_F32, g, (int64_t)B * H * S * D, 0, 0},
      {"in_ptr1", TX_PTR, DT_BF16, q, (int64_t)B * S * H * D, 0, 0},
      {"in_ptr2", TX_PTR, DT_F32, qs, (int64_t)B * S * H, 0, 0},
      {"out_ptr1", TX_PTR, DT_F32, out, D, 0, 0},
      {"x0_numel", TX_INT, DT_I32, NULL, 0, D, 0},
      {"r3_numel", TX_INT, DT_I32, NULL, 0, B, 0},
      {"r2_numel", TX_INT, DT_I32, NULL, 0, S, 0},
      {"r1_numel", TX_INT, DT_I32, NULL, 0, H, 0},
      {"X0BLOCK", TX_INT, DT_I32, NULL, 0, bl.x0block, 0},
      {"X0BLOCK_SUB", TX_INT, DT_I32, NULL, 0, bl.x0sub, 0},
      {"R3BLOCK_SUB", TX_INT, DT_I32, NULL, 0, bl.r3, 0},
      {"R2BLOCK_SUB", TX_INT, DT_I32, NULL, 0, bl.r2, 0},
      {"R1BLOCK_SUB", TX_INT, DT_I32, NULL, 0, bl.r1, 0},
  };
  int64_t grid[3] = {bl.grid, 1, 1};
  TxOptions opt = {threads};
  double t0 = coil_now_ms();
  CoilErr *e = tx_run_source_opts(file, src, NULL, grid, args, 13, &opt);
  *ms = coil_now_ms() - t0;
  return e;
}

/* f32 sums of 524288 terms of magnitude ~1: a relative 1e-4 of the sum
 * of magnitudes is far above rounding and far below any missing term. */
static double max_err(const float *out, double *scale) {
  double worst = 0;
  *scale = 0;
  for (int d = 0; d < D; d++) {
    double e = fabs(out[d] - ref[d]);
    if (!(e <= worst)) worst = e;
    if (fabs(ref[d]) > *scale) *scale = fabs(ref[d]);
  }
  return worst;
}

static void check_fixed(const char *name, const char *file, const char *src, Blocks bl) {
  float out[D];
  for (int d = 0; d < D; d++) out[d] = NAN;
  double ms;
  CoilErr *e = run(file, src, bl, out, 0, &ms);
  if (e) {
    printf("FAIL %s: %s\n", name, e->msg);
    coil_err_free(e);
    failures++;
    return;
  }
  double scale, err = max_err(out, &scale);
  /* |terms| <= 2*2*1 and 524288 of them; fp32 accumulation error is far
   * below 1e-2 absolute at these magnitudes (~1e3). */
  double tol = 5e-6 * scale + 1e-2;
  if (!(err <= tol)) {
    printf("FAIL %s: max |out - ref| = %g > %g (out[0]=%g ref[0]=%g)\n", name, err, tol,
           out[0], ref[0]);
    failures++;
    return;
  }
  printf("ok %s (max err %.3g, %.0f ms)\n", name, err, ms);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tx_seed DIR [--bench [THREADS]]\n");
    return 2;
  }
  const char *dir = argv[1];
  bool bench = argc > 2 && !strcmp(argv[2], "--bench");
  char fixed_file[1024], buggy_file[1024];
  snprintf(fixed_file, sizeof fixed_file, "%s/seed_fixed.py", dir);
  snprintf(buggy_file, sizeof buggy_file, "%s/seed_buggy.py", dir);
  char *fixed = read_kernel(dir, "seed_fixed.py");
  char *buggy = read_kernel(dir, "seed_buggy.py");
  make_inputs();

  Blocks even = {16, 16, 2, 16, 16, 8};
  if (bench) {
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    float out[D], pout[D];
    double plain = 1e30, plain_cpu = 1e30, ms, best = 1e30, best_cpu = 1e30;
    for (int i = 0; i < 5; i++) {
      double c0 = cpu_ms();
      double t = plain_loop_ms(pout);
      double c = cpu_ms() - c0;
      if (t < plain) plain = t;
      if (c < plain_cpu) plain_cpu = c;
    }
    for (int i = 0; i < 3; i++) {
      double c0 = cpu_ms();
      CoilErr *e = run(fixed_file, fixed, even, out, threads, &ms);
      double c = cpu_ms() - c0;
      if (e) {
        printf("FAIL bench: %s\n", e->msg);
        return 1;
      }
      if (ms < best) best = ms;
      if (c < best_cpu) best_cpu = c;
    }
    printf("plain C loop (1 thread): %.1f ms wall, %.1f ms cpu; executor (%s threads): "
           "%.1f ms wall, %.1f ms cpu; wall ratio %.1fx\n",
           plain, plain_cpu, threads ? argv[3] : "all", best, best_cpu, best / plain);
    return 0;
  }

  reference();
  check_fixed("seed_fixed_even_blocks", fixed_file, fixed, even);
  /* X0BLOCK=24 with X0BLOCK_SUB=16: the second sub-tile of a program is
   * half masked; R3BLOCK_SUB=4 over an axis of 2 is a tail tile. */
  check_fixed("seed_fixed_tail_x0_r3", fixed_file, fixed, (Blocks){24, 16, 4, 16, 16, 6});
  /* R1BLOCK_SUB=32 with R2BLOCK_SUB=64 and X0BLOCK_SUB=8: other tilings. */
  check_fixed("seed_fixed_other_tiles", fixed_file, fixed, (Blocks){32, 8, 2, 64, 32, 4});

  /* The buggy kernel as published stops at its store. */
  {
    float out[D] = {0};
    double ms;
    CoilErr *e = run(buggy_file, buggy, even, out, 0, &ms);
    const char *want = "incompatible dimensions at index 3: 16 and 512";
    if (!e || !strstr(e->msg, want) || !strstr(e->msg, "seed_buggy.py:46:17: error:")) {
      printf("FAIL seed_buggy_store_error: %s\n", e ? e->msg : "ran without error");
      failures++;
    } else {
      printf("ok seed_buggy_store_error\n");
    }
    coil_err_free(e);
  }

  /* With only the store changed so that it broadcasts (the sum taken over
   * the other axis of the flattened accumulator), the kernel runs, and the
   * accumulator reset inside the r2 loop leaves partial sums: the results
   * must be wrong, and be exactly what the buggy kernel computes. */
  {
    const char *old = "tl.store(out_ptr1 + (x0 + tl.arange(0,1) ), tmp15, x0_mask)";
    const char *neu = "tl.store(out_ptr1 + (x0 + tl.arange(0,1) ), "
                      "tl.sum(_tmp13, 1).reshape(1, 1, 1, X0BLOCK_SUB), x0_mask)";
    char *p = strstr(buggy, old);
    if (!p) {
      printf("FAIL seed_buggy_wrong_sums: store line not found\n");
      failures++;
    } else {
      size_t pre = (size_t)(p - buggy);
      char *patched = malloc(strlen(buggy) + strlen(neu) + 1);
      memcpy(patched, buggy, pre);
      strcpy(patched + pre, neu);
      strcat(patched, p + strlen(old));
      float out[D];
      double ms, bug[D], mag[D];
      buggy_expected(bug, mag);
      CoilErr *e = run("seed_buggy_store_fixed.py", patched, even, out, 0, &ms);
      /* fp32 sums of 2048 terms: within 1e-5 of the sum of magnitudes. */
      double scale, err = e ? 0 : max_err(out, &scale), berr = 0;
      bool same = true;
      for (int d = 0; d < D && !e; d++) {
        double diff = fabs(out[d] - bug[d]);
        if (!(diff <= berr)) berr = diff;
        if (!(diff <= 1e-5 * mag[d])) same = false;
      }
      if (e) {
        printf("FAIL seed_buggy_wrong_sums: %s\n", e->msg);
        failures++;
      } else if (err < 0.1 * scale) {
        printf("FAIL seed_buggy_wrong_sums: results match the reference (max err %g)\n", err);
        failures++;
      } else if (!same) {
        printf("FAIL seed_buggy_wrong_sums: not the buggy kernel's partial sums either "
               "(max diff %g)\n", berr);
        failures++;
      } else {
        printf("ok seed_buggy_wrong_sums (off the reference by up to %.3g of ~%.3g; "
               "equal to the partial sums within %.2g)\n", err, scale, berr);
      }
      coil_err_free(e);
      free(patched);
    }
  }

  float pout[D];
  double plain = plain_loop_ms(pout), ms;
  float out[D];
  CoilErr *e = run(fixed_file, fixed, even, out, 0, &ms);
  coil_err_free(e);
  printf("# speed: plain C loop (1 thread) %.1f ms, executor %.1f ms: %.1fx\n", plain, ms,
         ms / plain);
  free(g);
  free(q);
  free(qs);
  free(fixed);
  free(buggy);
  return failures ? 1 : 0;
}
