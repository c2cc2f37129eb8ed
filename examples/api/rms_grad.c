/* The seed case through libcoil's C API: the weight gradient of an RMS
 * norm applied per head, built node by node, compiled for the CPU and run
 * on buffers this program owns, then checked against a plain C loop.
 *
 *   make && build/examples/rms_grad
 *
 * The same function as examples/rms_norm_weight_grad.py, smaller:
 *   grad_out = grad_out_base.permute(0, 2, 1, 3)
 *   inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / head_dim + 1e-6)
 *   grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2)).to(torch.bfloat16) */
#include <coil.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 2, H = 8, S = 256, D = 128 };

/* bfloat16 from float, rounding to nearest even, as PyTorch does. */
static uint16_t bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static coil_arg value(coil_value v) { return (coil_arg){.kind = COIL_ARG_VALUE, .value = v}; }

/* Each step a call of an op as PyTorch spells it; any failure ends the
 * build with its message. */
#define STEP(call)                                                  \
  do {                                                              \
    if ((call) != COIL_OK) {                                        \
      fprintf(stderr, "rms_grad: %s\n", coil_error_message(err));   \
      coil_error_free(err);                                         \
      coil_graph_free(g);                                           \
      return NULL;                                                  \
    }                                                               \
  } while (0)

static coil_program *build(void) {
  coil_error *err = NULL;
  coil_graph *g = coil_graph_new("rms_norm_weight_grad");
  int64_t base_shape[4] = {B, H, S, D}, q_shape[4] = {B, S, H, D}, ss_shape[3] = {B, S, H};
  const DLDataType f32 = {kDLFloat, 32, 1}, bf = {kDLBfloat, 16, 1};
  coil_value base, q, ss, go, qf, ssu, t, inv, prod, sum, out;
  STEP(coil_graph_input(g, "grad_out_base", f32, 4, base_shape, NULL, &base, &err));
  STEP(coil_graph_input(g, "q", bf, 4, q_shape, NULL, &q, &err));
  STEP(coil_graph_input(g, "q_square_sum", f32, 3, ss_shape, NULL, &ss, &err));

  int64_t perm[4] = {0, 2, 1, 3};
  coil_arg permute[2] = {value(base), {.kind = COIL_ARG_INTS, .ints = {perm, 4}}};
  STEP(coil_graph_call(g, "Tensor.permute", 2, permute, 0, NULL, NULL, "rms_grad.c: grad_out", &go, &err));
  coil_arg qfloat[1] = {value(q)};
  STEP(coil_graph_call(g, "Tensor.float", 1, qfloat, 0, NULL, NULL, NULL, &qf, &err));
  coil_arg unsq[2] = {value(ss), {.kind = COIL_ARG_INT, .i = -1}};
  STEP(coil_graph_call(g, "Tensor.unsqueeze", 2, unsq, 0, NULL, NULL, NULL, &ssu, &err));
  coil_arg div[2] = {value(ssu), {.kind = COIL_ARG_INT, .i = D}};
  STEP(coil_graph_call(g, "torch.div", 2, div, 0, NULL, NULL, NULL, &t, &err));
  coil_arg add[2] = {value(t), {.kind = COIL_ARG_FLOAT, .f = 1e-6}};
  STEP(coil_graph_call(g, "torch.add", 2, add, 0, NULL, NULL, NULL, &t, &err));
  coil_arg rsqrt[1] = {value(t)};
  STEP(coil_graph_call(g, "torch.rsqrt", 1, rsqrt, 0, NULL, NULL, "rms_grad.c: inv_rms", &inv, &err));
  coil_arg mul1[2] = {value(go), value(qf)};
  STEP(coil_graph_call(g, "torch.mul", 2, mul1, 0, NULL, NULL, NULL, &prod, &err));
  coil_arg mul2[2] = {value(prod), value(inv)};
  STEP(coil_graph_call(g, "torch.mul", 2, mul2, 0, NULL, NULL, NULL, &prod, &err));
  int64_t dims[3] = {0, 1, 2};
  coil_arg s[2] = {value(prod), {.kind = COIL_ARG_INTS, .ints = {dims, 3}}};
  STEP(coil_graph_call(g, "torch.sum", 2, s, 0, NULL, NULL, "rms_grad.c: grad_weight", &sum, &err));
  coil_arg to[2] = {value(sum), {.kind = COIL_ARG_DTYPE, .dtype = bf}};
  STEP(coil_graph_call(g, "Tensor.to", 2, to, 0, NULL, NULL, NULL, &out, &err));
  STEP(coil_graph_output(g, 1, &out, &err));

  coil_program *p = NULL;
  coil_options opts = {.target = "c"};
  STEP(coil_compile_graph(g, &opts, &p, &err));
  coil_graph_free(g);
  return p;
}

int main(void) {
  coil_program *p = build();
  if (!p) return 1;
  printf("compiled %d kernel(s) in %.1f ms\n", coil_program_num_kernels(p), coil_program_compile_ms(p));

  size_t n = (size_t)B * H * S * D;
  float *base = malloc(n * sizeof *base), *ss = malloc((size_t)B * S * H * sizeof *ss);
  uint16_t *q = malloc(n * sizeof *q), out[D];
  if (!base || !ss || !q) return 1;
  srand(1);
  for (size_t i = 0; i < n; i++) base[i] = (float)rand() / RAND_MAX - 0.5f;
  for (size_t i = 0; i < n; i++) q[i] = bf16((float)rand() / RAND_MAX * 4 - 2);
  for (size_t i = 0; i < (size_t)B * S * H; i++) ss[i] = 1 + (float)rand() / RAND_MAX;

  int64_t base_shape[4] = {B, H, S, D}, q_shape[4] = {B, S, H, D}, ss_shape[3] = {B, S, H}, out_shape[1] = {D};
  DLTensor ins[3] = {
      {.data = base, .device = {kDLCPU, 0}, .ndim = 4, .dtype = {kDLFloat, 32, 1}, .shape = base_shape},
      {.data = q, .device = {kDLCPU, 0}, .ndim = 4, .dtype = {kDLBfloat, 16, 1}, .shape = q_shape},
      {.data = ss, .device = {kDLCPU, 0}, .ndim = 3, .dtype = {kDLFloat, 32, 1}, .shape = ss_shape},
  };
  DLTensor outs[1] = {{.data = out, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLBfloat, 16, 1}, .shape = out_shape}};
  coil_error *err = NULL;
  if (coil_run(p, 3, ins, 1, outs, &err)) {
    fprintf(stderr, "rms_grad: %s\n", coil_error_message(err));
    coil_error_free(err);
    return 1;
  }

  /* The same sum in double, one column at a time; the result is bf16, so
   * within half of bf16's spacing (2^-8 relative) plus the f32 steps. */
  double worst = 0;
  for (int d = 0; d < D; d++) {
    double want = 0;
    for (int b = 0; b < B; b++)
      for (int s = 0; s < S; s++)
        for (int h = 0; h < H; h++) {
          double inv = 1 / sqrt(ss[(b * S + s) * H + h] / D + 1e-6);
          want += base[((size_t)(b * H + h) * S + s) * D + d] * (double)from_bf16(q[((size_t)(b * S + s) * H + h) * D + d]) * inv;
        }
    double rel = fabs(from_bf16(out[d]) - want) / fmax(fabs(want), 1);
    if (rel > worst) worst = rel;
  }
  printf("grad_weight[:4] = %g %g %g %g\n", from_bf16(out[0]), from_bf16(out[1]), from_bf16(out[2]), from_bf16(out[3]));
  printf("max relative error against a double loop: %.2g (bf16 result)\n", worst);
  coil_program_free(p);
  free(base), free(ss), free(q);
  return worst < 1.0 / 128 ? 0 : 1;
}
