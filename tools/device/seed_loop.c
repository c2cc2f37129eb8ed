/* The seed as a plain hand-fused C loop, the CPU bench's reference: built and run by tools/device/cpu16_bench.sh.
 * The "hand-fused loop": one pass, f32 accumulators per thread, a
 * combine.  Same data sizes as bench/cases/01_seed.py; prints the median of
 * 20 runs and its bandwidth over the 405 MB read. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { B = 2, S = 4096, H = 64, D = 128, RUNS = 20 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static float bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  size_t n = (size_t)B * S * H * D;
  float *g = aligned_alloc(64, n * 4), *ss = aligned_alloc(64, (size_t)B * S * H * 4), out[D];
  uint16_t *q = aligned_alloc(64, n * 2);
  #pragma omp parallel for
  for (size_t i = 0; i < n; i++) g[i] = (float)(i % 7) - 3, q[i] = 0x3f80;
  for (size_t i = 0; i < (size_t)B * S * H; i++) ss[i] = 1.5f;
  int nt = omp_get_max_threads();
  float *part = calloc((size_t)nt * D, sizeof(float));
  double t[RUNS];
  for (int run = -2; run < RUNS; run++) {
    double t0 = now_ms();
    #pragma omp parallel
    {
      int id = omp_get_thread_num();
      float acc[D] = {0};
      /* Each thread takes a contiguous range of (b, h) planes; grad_out streams. */
      #pragma omp for schedule(static)
      for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        for (int s = 0; s < S; s++) {
          const float *gp = g + ((size_t)(b * H + h) * S + s) * D;
          const uint16_t *qp = q + ((size_t)(b * S + s) * H + h) * D;
          float r = 1.0f / sqrtf(ss[((size_t)b * S + s) * H + h] / 128.0f + 1e-6f);
          for (int x = 0; x < D; x++) acc[x] += gp[x] * bf16(qp[x]) * r;
        }
      }
      memcpy(part + (size_t)id * D, acc, sizeof acc);
    }
    for (int x = 0; x < D; x++) {
      float a = 0;
      for (int i = 0; i < nt; i++) a += part[(size_t)i * D + x];
      out[x] = a;
    }
    if (run >= 0) t[run] = now_ms() - t0;
  }
  qsort(t, RUNS, sizeof(double), cmp);
  double bytes = n * 6.0 + (double)B * S * H * 4 + D * 2;
  printf("hand-fused loop: %d threads, median %.3f ms (min %.3f), %.1f GB/s (out[0]=%g)\n", nt, t[RUNS / 2], t[0],
         bytes / t[RUNS / 2] / 1e6, out[0]);
  return 0;
}
