/* Unit tests of the Triton executor: small kernels run in process on small
 * buffers, each checked value by value, and kernels that must fail checked
 * for the message and its file:line:col.  Prints "ok NAME" or
 * "FAIL NAME: why" per test, like a suite. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tx/tx.h"

static int failures;
static char why[4096];

#define OUTN 64
static float out[OUTN];      /* f32 output buffer of every kernel */
static int32_t iout[OUTN];   /* int32 output buffer */
static float in[OUTN];       /* f32 input: in[i] = i */
static uint16_t bin[OUTN];   /* bf16 input: bin[i] = bf16(i / 4) */

/* Run `src` (one kernel) with out_ptr, iout_ptr, in_ptr, bin_ptr and
 * n = OUTN, over a grid of g programs.  The result: NULL or the error. */
static CoilErr *runk(const char *src, int64_t g0, int64_t g1) {
  for (int i = 0; i < OUTN; i++) {
    out[i] = NAN;
    iout[i] = -12345;
    in[i] = (float)i;
    bin[i] = f32_to_bf16(i / 4.0f);
  }
  TxArg args[] = {
      {"out_ptr", TX_PTR, DT_F32, out, OUTN, 0, 0},
      {"iout_ptr", TX_PTR, DT_I32, iout, OUTN, 0, 0},
      {"in_ptr", TX_PTR, DT_F32, in, OUTN, 0, 0},
      {"bin_ptr", TX_PTR, DT_BF16, bin, OUTN, 0, 0},
      {"n", TX_INT, DT_I32, NULL, 0, OUTN, 0},
  };
  int64_t grid[3] = {g0, g1, 1};
  return tx_run_source("k.py", src, strstr(src, "def k(") ? "k" : NULL, grid, args, 5);
}

/* The kernels' common header: every parameter above, in one signature. */
#define K "def k(out_ptr, iout_ptr, in_ptr, bin_ptr, n):\n"

static void report(const char *name, bool ok) {
  if (ok) {
    printf("ok %s\n", name);
  } else {
    printf("FAIL %s: %s\n", name, why);
    failures++;
  }
}

/* Runs and compares out[0..n) with want (f32, exact unless tol). */
static void expect_f(const char *name, const char *src, int n, const float *want, double tol) {
  CoilErr *e = runk(src, 1, 1);
  bool ok = !e;
  if (e) snprintf(why, sizeof why, "%s", e->msg);
  for (int i = 0; ok && i < n; i++)
    if (!(fabs((double)out[i] - want[i]) <= tol) && !(isnan(out[i]) && isnan(want[i]))) {
      snprintf(why, sizeof why, "out[%d] = %.9g, want %.9g", i, out[i], want[i]);
      ok = false;
    }
  coil_err_free(e);
  report(name, ok);
}

static void expect_i(const char *name, const char *src, int n, const int32_t *want) {
  CoilErr *e = runk(src, 1, 1);
  bool ok = !e;
  if (e) snprintf(why, sizeof why, "%s", e->msg);
  for (int i = 0; ok && i < n; i++)
    if (iout[i] != want[i]) {
      snprintf(why, sizeof why, "iout[%d] = %d, want %d", i, iout[i], want[i]);
      ok = false;
    }
  coil_err_free(e);
  report(name, ok);
}

/* The kernel must fail with `msg` in its message, at `where`
 * ("k.py:3:5:"), or anywhere when where is NULL. */
static void expect_err(const char *name, const char *src, const char *where, const char *msg) {
  CoilErr *e = runk(src, 1, 1);
  bool ok = e && strstr(e->msg, msg) && (!where || strstr(e->msg, where));
  if (!e) snprintf(why, sizeof why, "ran without error");
  else if (!ok) snprintf(why, sizeof why, "wrong error: %s", e->msg);
  coil_err_free(e);
  report(name, ok);
}

/* ------------------------------------------------------------ broadcast */

static void test_broadcast(void) {
  float w[32];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) w[i * 8 + j] = (float)(i * 10 + j);
  expect_f("broadcast_col_row",
           K "    i = tl.arange(0, 4)[:, None]\n"
             "    j = tl.arange(0, 8)[None, :]\n"
             "    tl.store(out_ptr + i * 8 + j, (i * 10 + j).to(tl.float32))\n",
           32, w, 0);
  /* rank extension on the left: [8] with [4, 8] */
  expect_f("broadcast_rank_extend",
           K "    i = tl.arange(0, 4)[:, None]\n"
             "    j = tl.arange(0, 8)\n"
             "    tl.store(out_ptr + i * 8 + j, (i * 10 + j).to(tl.float32))\n",
           32, w, 0);
  expect_err("broadcast_error_wording",
             K "    a = tl.zeros([4, 8], tl.float32)\n"
               "    b = tl.zeros([8, 4], tl.float32)\n"
               "    c = a + b\n",
             "k.py:4:11: error:",
             "Cannot make_shape_compatible: incompatible dimensions at index 0: 4 and 8");
  expect_err("broadcast_error_rank_extended",
             K "    a = tl.arange(0, 4)\n"
               "    b = tl.zeros([4, 8], tl.int32)\n"
               "    c = b * a\n",
             "k.py:4:11:", "incompatible dimensions at index 1: 8 and 4");
  /* The store's value must broadcast to the pointer block, which may not grow. */
  expect_err("store_value_wider_than_pointer",
             K "    offs = tl.arange(0, 16)[None, :]\n"
               "    tl.store(out_ptr + offs, tl.zeros([1, 32], tl.float32))\n",
             "k.py:3:5:", "incompatible dimensions at index 1: 16 and 32");
  expect_err("store_pointer_grows",
             K "    offs = tl.arange(0, 16)[None, :]\n"
               "    tl.store(out_ptr + offs, tl.zeros([2, 16], tl.float32))\n",
             "k.py:3:5:", "Expected pointer argument to have shape [2, 16] but got [1, 16]");
  expect_err("atomic_add_pointer_grows",
             K "    offs = tl.arange(0, 16)[None, :]\n"
               "    tl.atomic_add(out_ptr + offs, tl.zeros([2, 16], tl.float32))\n",
             "k.py:3:5:", "tl.atomic_add: the value and mask must broadcast to the pointer's shape");
  /* repeated offsets add in turn; a masked lane adds nothing */
  float wa[4] = {0 + 4 + 8 + 12, 1 + 5 + 9 + 13, 2 + 6 + 10 + 14, 3 + 7 + 11};
  expect_f("atomic_add_repeats",
           K "    i = tl.arange(0, 16)\n"
             "    tl.store(out_ptr + tl.arange(0, 4), tl.zeros([4], tl.float32))\n"
             "    tl.atomic_add(out_ptr + i % 4, tl.load(in_ptr + i), mask=i < 15, sem='relaxed')\n",
           4, wa, 0);
  float w2[16];
  for (int i = 0; i < 16; i++) w2[i] = 7;
  expect_f("broadcast_to_and_expand_dims",
           K "    x = tl.full([4], 7.0, tl.float32)\n"
             "    y = tl.broadcast_to(tl.expand_dims(x, 0), [4, 4])\n"
             "    i = tl.arange(0, 4)\n"
             "    tl.store(out_ptr + i[:, None] * 4 + i[None, :], y)\n",
           16, w2, 0);
  /* A keep_dims result has a size-1 axis; broadcasting it must not step. */
  float w5[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) w5[i * 4 + j] = (float)(16 * i + 6);
  expect_f("broadcast_keep_dims_result",
           K "    i = tl.arange(0, 4)\n"
             "    x = (i[:, None] * 4 + i[None, :]).to(tl.float32)\n"
             "    s = tl.broadcast_to(tl.sum(x, 1, keep_dims=True), [4, 4])\n"
             "    tl.store(out_ptr + i[:, None] * 4 + i[None, :], s)\n",
           16, w5, 0);
  expect_err("broadcast_to_error",
             K "    x = tl.zeros([4, 2], tl.float32)\n"
               "    y = tl.broadcast_to(x, [4, 4])\n",
             "k.py:3:9:", "Cannot broadcast, the expanded size of the tensor (4) must match the "
                          "existing size (2) at non-singleton dimension 1");
}

/* ------------------------------------------------------ reshape, permute */

static void test_shapes(void) {
  float w[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  expect_f("reshape_permute_reshape",
           K "    x = tl.arange(0, 8).to(tl.float32)\n"
             "    y = tl.reshape(x, [2, 4]).permute([1, 0])\n"
             "    tl.store(out_ptr + tl.arange(0, 8), tl.reshape(y, [8]))\n",
           8, w, 0);
  expect_f("reshape_varargs_and_trans",
           K "    x = tl.arange(0, 8).to(tl.float32)\n"
             "    y = tl.trans(x.reshape(2, 4))\n"
             "    tl.store(out_ptr + tl.arange(0, 8), y.reshape(8))\n",
           8, w, 0);
  /* [2,2,2] with dims (a, b, c) -> permute (2, 0, 1): out[c, a, b] */
  float w3[8];
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 2; c++) w3[c * 4 + a * 2 + b] = (float)(a * 4 + b * 2 + c);
  expect_f("permute_3d",
           K "    x = tl.arange(0, 8).to(tl.float32).reshape([2, 2, 2])\n"
             "    y = tl.permute(x, (2, 0, 1))\n"
             "    tl.store(out_ptr + tl.arange(0, 8), tl.reshape(y, [8]))\n",
           8, w3, 0);
  float w4[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  expect_f("index_none_slices",
           K "    x = tl.arange(0, 8).to(tl.float32)\n"
             "    y = x[:, None, None]\n"
             "    z = x[None, :]\n"
             "    tl.static_assert(len(y.shape) == 3)\n"
             "    tl.store(out_ptr + tl.arange(0, 8)[:, None, None], y)\n",
           8, w4, 0);
  expect_err("reshape_numel_error",
             K "    x = tl.arange(0, 8)\n"
               "    y = tl.reshape(x, [4, 4])\n",
             "k.py:3:9:", "reshape() cannot change total number of elements in tensor");
  expect_err("permute_dims_error",
             K "    x = tl.zeros([2, 4], tl.float32)\n"
               "    y = x.permute([0, 0])\n",
             "k.py:3:9:", "permute dims must be a permutation of 0, 1, ..., n-1, but were [0, 0]");
  expect_err("arange_power_of_two",
             K "    x = tl.arange(0, 6)\n",
             "k.py:2:9:", "arange's range must be a power of 2");
  expect_err("full_power_of_two",
             K "    x = tl.full([3, 4], 0, tl.float32)\n",
             "k.py:2:9:", "Shape element 0 must be a power of 2");
}

/* ----------------------------------------------------------- reductions */

static void test_reductions(void) {
  /* x[i, j] = 4 i + j over [4, 4] */
  float w[8] = {24, 28, 32, 36, 6, 22, 38, 54};
  expect_f("sum_axes",
           K "    x = (tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :]).to(tl.float32)\n"
             "    tl.store(out_ptr + tl.arange(0, 4), tl.sum(x, 0))\n"
             "    tl.store(out_ptr + 4 + tl.arange(0, 4), x.sum(axis=1))\n",
           8, w, 0);
  float w2[4] = {120, 15, 0, 3};
  expect_f("sum_all_max_min_keepdims",
           K "    x = (tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :]).to(tl.float32)\n"
             "    tl.store(out_ptr, tl.sum(x))\n"
             "    m = tl.max(x, 1, keep_dims=True)\n"
             "    tl.static_assert(m.shape[0] == 4 and m.shape[1] == 1)\n"
             "    tl.store(out_ptr + 1 + tl.arange(0, 1)[None, :], tl.max(m, 0, keep_dims=True))\n"
             "    tl.store(out_ptr + 2, x.min())\n"
             "    tl.store(out_ptr + 3, tl.argmax(tl.max(x, 0), 0).to(tl.float32))\n",
           4, w2, 0);
  /* bf16 sums accumulate in fp32: 1024 ones stall at 256 in bf16. */
  float w3[1] = {1024};
  expect_f("sum_bf16_accumulates_fp32",
           K "    x = tl.full([1024], 1.0, tl.bfloat16)\n"
             "    s = tl.sum(x, 0)\n"
             "    tl.static_assert(s.dtype == tl.float32)\n"
             "    tl.store(out_ptr, s)\n",
           1, w3, 0);
  int32_t wi[3] = {28, 3, 2};
  expect_i("sum_int32_and_bool",
           K "    x = tl.arange(0, 8)\n"
             "    s = tl.sum(x, 0)\n"
             "    tl.static_assert(s.dtype == tl.int32)\n"
             "    tl.store(iout_ptr, s)\n"
             "    b = x < 3\n"
             "    tl.store(iout_ptr + 1, tl.sum(b, 0))\n"
             "    tl.store(iout_ptr + 2, tl.argmin(tl.abs(x - 2), 0))\n",
           3, wi);
  expect_err("reduce_axis_error", K "    x = tl.zeros([4], tl.float32)\n    s = tl.sum(x, 1)\n",
             "k.py:3:9:", "invalid axis 1");
}

/* ------------------------------------------------------------ promotion */

static void test_promotion(void) {
  expect_f("promotion_rules",
           K "    i = tl.arange(0, 2)\n"
             "    a = i * 1.5\n"
             "    tl.static_assert(a.dtype == tl.float32)\n"
             "    tl.store(out_ptr + i, a + 1.5 * (1 - i) + i * 1.5)\n"
             "    b = tl.load(bin_ptr + 2 + i)\n"
             "    c = b + b\n"
             "    tl.static_assert(c.dtype == tl.bfloat16)\n"
             "    d = b + tl.load(in_ptr + i)\n"
             "    tl.static_assert(d.dtype == tl.float32)\n"
             "    e = b * 2.0\n"
             "    tl.static_assert(e.dtype == tl.bfloat16)\n"
             "    f = b / b\n"
             "    tl.static_assert(f.dtype == tl.float32)\n"
             "    g = i / 2\n"
             "    tl.static_assert(g.dtype == tl.float32)\n"
             "    h = i + tl.full([2], 1, tl.int64)\n"
             "    tl.static_assert(h.dtype == tl.int64)\n"
             "    tl.store(out_ptr + 2 + i, d)\n"
             "    tl.store(out_ptr + 4 + i, g / 2 + b / 4 - 0.125 * 0)\n",
           6, (float[]){1.5f, 3, 0.5f, 1.75f, 0.125f, 0.4375f}, 1e-7);
  expect_err("python_int_out_of_range",
             K "    i = tl.arange(0, 2)\n    j = i + 2**40\n",
             "k.py:3:11:", "Scalar 1099511627776 is out of range for type int32");
  int32_t wi[4] = {-3, -1, -4, 2};
  expect_i("int_division_truncates",
           K "    x = tl.full([1], -7, tl.int32)\n"
             "    tl.store(iout_ptr + tl.arange(0, 1), x // 2)\n"
             "    tl.store(iout_ptr + 1 + tl.arange(0, 1), x % 2)\n"
             "    tl.store(iout_ptr + 2, -7 // 2)\n"
             "    tl.store(iout_ptr + 3, -7 % 3)\n",
           4, wi);
  float wc[4] = {1.0f, 2, -2, 256};
  expect_f("casts",
           K "    x = tl.full([1], 1.00390625, tl.float32).to(tl.bfloat16).to(tl.float32)\n"
             "    tl.store(out_ptr + tl.arange(0, 1), x)\n"
             "    y = tl.full([1], 2.9, tl.float32).to(tl.int32)\n"
             "    tl.store(out_ptr + 1 + tl.arange(0, 1), y.to(tl.float32))\n"
             "    z = tl.full([1], -2.9, tl.float32).to(tl.int32).to(tl.float32)\n"
             "    tl.store(out_ptr + 2 + tl.arange(0, 1), z)\n"
             "    u = tl.full([1], 257.0, tl.float32).to(tl.bfloat16)\n"
             "    tl.store(out_ptr + 3 + tl.arange(0, 1), u)\n",
           4, wc, 0);
  expect_err("int32_overflow_reported",
             K "    x = tl.arange(0, 4) * 1000000000\n",
             "k.py:2:25:", "int32 overflow in index arithmetic: 3 * 1000000000 = 3000000000");
  expect_err("int32_overflow_add",
             K "    x = tl.arange(0, 4) + 2147483645\n",
             "k.py:2:25:", "int32 overflow in index arithmetic: 3 + 2147483645");
  int32_t wb[4] = {1, 0, 6, -8};
  expect_i("bitwise_and_compare",
           K "    x = tl.arange(0, 4)\n"
             "    m = (x < 2) & (x != 1) | (x == 3) & False\n"
             "    tl.store(iout_ptr + x, m.to(tl.int32), mask=x < 2)\n"
             "    tl.store(iout_ptr + 2, 5 ^ 3)\n"
             "    tl.store(iout_ptr + 3, tl.sum(~x, 0) + 2)\n",
           4, wb);
}

/* ------------------------------------------------------ masks, bounds */

static void test_masks(void) {
  float w[8] = {60, 61, 62, 63, -1, -1, -1, -1};
  expect_f("load_mask_other",
           K "    offs = 60 + tl.arange(0, 8)\n"
             "    x = tl.load(in_ptr + offs, mask=offs < n, other=-1.0)\n"
             "    tl.store(out_ptr + tl.arange(0, 8), x)\n",
           8, w, 0);
  float w2[4] = {0, NAN, 2, NAN};
  expect_f("store_mask",
           K "    offs = tl.arange(0, 4)\n"
             "    tl.store(out_ptr + offs, offs.to(tl.float32), offs % 2 == 0)\n",
           4, w2, 0);
  /* Uniform masks (all on, all off) take shortcuts; the results must be
   * those of the lane-by-lane rules. */
  float w3[8] = {-3, -3, -3, -3, 4, 5, 6, 7};
  expect_f("uniform_masks",
           K "    offs = tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :]\n"
             "    none = offs < 0\n"
             "    all = offs >= 0\n"
             "    x = tl.load(in_ptr + offs + 1000, mask=none & all, other=-3.0)\n"
             "    tl.store(out_ptr + offs, x.reshape(8).reshape(4, 2), mask=all | none)\n"
             "    tl.store(out_ptr + offs, x * 0 + 99.0, mask=none)\n"
             "    y = tl.load(in_ptr + offs, mask=all)\n"
             "    z = tl.where(all.permute([1, 0]).reshape(4, 2), y, -1.0)\n"
             "    tl.store(out_ptr + offs, z, mask=(offs >= 4) & all)\n"
             "    tl.store(out_ptr + offs, tl.where(none, 1.0, x), mask=offs < 4)\n",
           8, w3, 0);
  expect_err("load_out_of_bounds",
             K "    offs = 60 + tl.arange(0, 8)\n"
               "    x = tl.load(in_ptr + offs)\n",
             "k.py:3:9:", "out-of-bounds tl.load: in_ptr[64] is outside its 64 elements (fp32) "
                          "at index [4] of the [8] block, unmasked");
  expect_err("store_out_of_bounds_masked_on",
             K "    offs = tl.arange(0, 8)[None, :] - 2\n"
               "    tl.store(out_ptr + offs, 1.0, mask=offs != -1)\n",
             "k.py:3:5:", "out-of-bounds tl.store: out_ptr[-2] is outside its 64 elements");
  expect_err("mask_must_be_bool",
             K "    offs = tl.arange(0, 8)\n"
               "    x = tl.load(in_ptr + offs, offs)\n",
             "k.py:3:9:", "Mask must have boolean scalar type");
  expect_err("other_without_mask",
             K "    x = tl.load(in_ptr + tl.arange(0, 8), other=0.0)\n",
             "k.py:2:9:", "`other` cannot be provided without `mask`");
}

/* -------------------------------------------------------- control flow */

static void test_control(void) {
  float w[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  /* 2-d grid: each of 4 x 2 programs stores its own element */
  {
    CoilErr *e = runk(K "    pid = tl.program_id(0) + tl.num_programs(0) * tl.program_id(1)\n"
                        "    tl.store(out_ptr + pid, pid.to(tl.float32))\n",
                      4, 2);
    bool ok = !e;
    if (e) snprintf(why, sizeof why, "%s", e->msg);
    for (int i = 0; ok && i < 8; i++)
      if (out[i] != w[i]) {
        snprintf(why, sizeof why, "out[%d] = %g", i, out[i]);
        ok = false;
      }
    coil_err_free(e);
    report("grid_2d_program_ids", ok);
  }
  float w2[6] = {10, 4, 0, 9, 1, 28};
  expect_f("loops_if_while_aug",
           K "    acc = tl.zeros([1], tl.float32)\n"
             "    for i in range(1, 5):\n"
             "        acc += i\n"
             "    tl.store(out_ptr + tl.arange(0, 1), acc)\n"
             "    k = 0\n"
             "    for i in tl.static_range(0, 8, 2):\n"
             "        k += 1\n"
             "    tl.store(out_ptr + 1, k * 1.0)\n"
             "    j = n - n\n"
             "    while j < 9:\n"
             "        j += 3\n"
             "        if j == 6:\n"
             "            continue\n"
             "    c = 0.0 if j < 9 else 9.0\n"
             "    tl.store(out_ptr + 2, c * 0)\n"
             "    tl.store(out_ptr + 3, j.to(tl.float32))\n"
             "    if n > 100:\n"
             "        tl.store(out_ptr + 4, 2.0)\n"
             "    elif n > 10:\n"
             "        tl.store(out_ptr + 4, 1.0)\n"
             "    else:\n"
             "        tl.store(out_ptr + 4, 0.0)\n"
             "    t = 0\n"
             "    for i in range(10, 0, -2):\n"
             "        if i == 2:\n"
             "            break\n"
             "        t += i\n"
             "    tl.store(out_ptr + 5, t * 1.0)\n",
           6, w2, 0);
  float w3[4] = {5, 3, 7, 1};
  expect_f("min_max_builtins_and_helpers",
           "@triton.jit\n"
           "def helper(a, b, SCALE: tl.constexpr = 2):\n"
           "    return a * SCALE + b, a - b\n"
           "\n"
           "@triton.jit\n" K
           "    s, d = helper(2, 1)\n"
           "    tl.store(out_ptr, s * 1.0)\n"
           "    tl.store(out_ptr + 1, max(3, min(s, d + 2)) * 1.0)\n"
           "    x = tl.full([1], 7.0, tl.float32)\n"
           "    tl.store(out_ptr + 2 + tl.arange(0, 1), max(x, 2.0))\n"
           "    tl.store(out_ptr + 3 + tl.arange(0, 1), tl.minimum(x, d))\n",
           4, w3, 0);
  float w4[6];
  w4[0] = 1.0f / sqrtf(4.0f);
  w4[1] = expf(1.0f);
  w4[2] = 1.0f / (1.0f + expf(-1.0f));
  w4[3] = tanhf(0.5f);
  w4[4] = 3.0f;
  w4[5] = 9.0f;
  expect_f("math_functions",
           "from triton.language.extra import libdevice\n" K
           "    one = tl.full([1], 1.0, tl.float32)\n"
           "    r = tl.arange(0, 1)\n"
           "    tl.store(out_ptr + r, tl.rsqrt(one * 4))\n"
           "    tl.store(out_ptr + 1 + r, tl.exp(one))\n"
           "    tl.store(out_ptr + 2 + r, tl.sigmoid(one))\n"
           "    tl.store(out_ptr + 3 + r, libdevice.tanh(one * 0.5))\n"
           "    tl.store(out_ptr + 4 + r, tl.cdiv(n, 32) + tl.math.abs(-one))\n"
           "    tl.store(out_ptr + 5 + r, (one * 3) ** 2)\n",
           6, w4, 1e-6);
  float wg[3] = {128, -2.5f, 1};
  expect_f("module_constants",
           "import triton\nimport triton.language as tl\n"
           "BLOCK = tl.constexpr(128)\nSCALE: tl.constexpr = -2.5\nFLAG = True\n"
           "OTHER = some_call(3)\n\n" K
           "    tl.store(out_ptr, BLOCK * 1.0)\n"
           "    tl.store(out_ptr + 1, SCALE)\n"
           "    tl.store(out_ptr + 2, 1.0 if FLAG else 0.0)\n",
           3, wg, 0);
  expect_err("name_error", K "    x = y + 1\n", "k.py:2:9:", "name 'y' is not defined");
  expect_err("unsupported_tl_function", K "    x = tl.foo(1)\n", "k.py:2:9:",
             "'triton.language.foo' is not supported by coil's Triton executor");
  expect_err("syntax_error", K "    x = 1 +\n", "k.py:2:12:", "expected an expression, found end of line");
  expect_err("syntax_error_in_call", K "    x = tl.arange(0, 4\n    y = 2\n", "k.py:2:18:", "'(' was never closed");
  expect_err("unbound_local", K "    if n < 0:\n        z = 1\n    x = z\n", "k.py:4:9:",
             "local variable 'z' referenced before assignment");
  expect_err("block_condition", K "    if tl.arange(0, 4) < 2:\n        pass\n", "k.py:2:8:",
             "the truth value of a block with more than one element is ambiguous");
}

/* ------------------------------------------------- coil's own helpers */

/* The helpers coil's Triton printers emit (helper_text in src/triton/print.c), verbatim:
 * the executor must run what coil generates. */
static const char *coil_helpers =
    "@triton.jit\n"
    "def coil_round_bf16(x):\n"
    "    # x (f32) rounded to the nearest bf16, ties to even, kept in f32\n"
    "    u = x.to(tl.uint32, bitcast=True)\n"
    "    r = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000\n"
    "    r = tl.where(x != x, u | 0x400000, r)\n"
    "    return r.to(tl.float32, bitcast=True)\n"
    "@triton.jit\n"
    "def coil_maximum(a, b):\n"
    "    # torch.maximum and amax: NaN wins\n"
    "    return tl.where((a != a) | (a > b), a, b)\n"
    "@triton.jit\n"
    "def coil_mul(a, b):\n"
    "    return a * b\n"
    "@triton.jit\n"
    "def coil_ipow(b, e):\n"
    "    # integer power by squaring; negative exponents as C's ipow\n"
    "    r = b * 0 + 1\n"
    "    x = b\n"
    "    k = e\n"
    "    for _ in tl.static_range(63):\n"
    "        r = tl.where((k & 1) != 0, r * x, r)\n"
    "        x = x * x\n"
    "        k = k >> 1\n"
    "    neg = tl.where(b == 1, 1, tl.where(b == -1, 1 - 2 * (e & 1), 0))\n"
    "    return tl.where(e < 0, neg, r)\n"
    "@triton.jit\n"
    "def argmax_combine(v1, i1, v2, i2):\n"
    "    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))\n"
    "    return tl.where(take, v2, v1), tl.where(take, i2, i1)\n";

static void test_coil_helpers(void) {
  char src[8192];
  /* bf16 rounding through uint32 bit tricks, against coil's C rounding */
  float vals[8] = {1.00390625f, 1.01171875f, -3.3333333f, 65504.5f, 1e-30f, -0.0f, 3.0e38f, 0.1f};
  snprintf(src, sizeof src,
           "%s\n@triton.jit\n" K
           "    i = tl.arange(0, 8)\n"
           "    v = tl.load(in_ptr + i)\n"
           "    tl.store(out_ptr + i, coil_round_bf16(v))\n",
           coil_helpers);
  {
    for (int i = 0; i < 8; i++) in[i] = vals[i];
    /* runk() resets in[]; run by hand to keep these inputs */
    TxArg args[] = {{"out_ptr", TX_PTR, DT_F32, out, OUTN, 0, 0},
                    {"iout_ptr", TX_PTR, DT_I32, iout, OUTN, 0, 0},
                    {"in_ptr", TX_PTR, DT_F32, in, OUTN, 0, 0},
                    {"bin_ptr", TX_PTR, DT_BF16, bin, OUTN, 0, 0},
                    {"n", TX_INT, DT_I32, NULL, 0, OUTN, 0}};
    int64_t grid[3] = {1, 1, 1};
    CoilErr *e = tx_run_source("h.py", src, "k", grid, args, 5);
    bool ok = !e;
    if (e) snprintf(why, sizeof why, "%s", e->msg);
    for (int i = 0; ok && i < 8; i++) {
      float want = bf16_to_f32(f32_to_bf16(vals[i]));
      if (memcmp(&out[i], &want, 4)) {
        snprintf(why, sizeof why, "round(%g) = %g, want %g", vals[i], out[i], want);
        ok = false;
      }
    }
    coil_err_free(e);
    report("coil_round_bf16_via_uint32", ok);
  }
  float w[4] = {NAN, 31, 40320, 44};
  snprintf(src, sizeof src,
           "%s\n@triton.jit\n" K
           "    x = (tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]).to(tl.float32)\n"
           "    x = tl.where(x == 3.0, float('nan'), x)\n"
           "    m = tl.reduce(x, 1, coil_maximum)\n"
           "    tl.store(out_ptr + tl.arange(0, 2), m.reshape(4, 1).reshape(2, 2).sum(1) * 0 + tl.reduce(x, 1, coil_maximum, keep_dims=True).reshape(4).reshape(2, 2).max(1))\n"
           "    p = tl.reduce(tl.arange(1, 9).to(tl.float32), 0, coil_mul)\n"
           "    tl.store(out_ptr + 2, p)\n"
           "    v = tl.load(in_ptr + tl.arange(0, 8)) %% 5\n"
           "    best, idx = tl.reduce((v, tl.arange(0, 8)), 0, argmax_combine)\n"
           "    tl.store(out_ptr + 3, (best * 10 + idx).to(tl.float32))\n",
           coil_helpers);
  expect_f("tl_reduce_with_jit_combine", src, 4, w, 0);
  /* The GPU dialect's amax (coil_max_nan): tl.maximum with
   * propagate_nan=tl.PropagateNan.ALL keeps a NaN of either operand, the
   * default drops it; tl.minimum alike; as tl.reduce's combine too. */
  float wn[26];
  for (int i = 0; i < 8; i++) wn[i] = wn[8 + i] = wn[18 + i] = (float)i;
  wn[3] = wn[21] = NAN;
  wn[16] = NAN, wn[17] = 7;
  expect_f("propagate_nan_all_keeps_nan",
           "@triton.jit\n"
           "def mx(a, b):\n"
           "    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)\n"
           "\n"
           "@triton.jit\n" K
           "    i = tl.arange(0, 8)\n"
           "    x = tl.load(in_ptr + i)\n"
           "    y = tl.where(x == 3.0, float('nan'), x)\n"
           "    tl.store(out_ptr + i, tl.maximum(y, x, propagate_nan=tl.PropagateNan.ALL))\n"
           "    tl.store(out_ptr + 8 + i, tl.maximum(y, x, propagate_nan=tl.PropagateNan.NONE))\n"
           "    tl.store(out_ptr + 16 + tl.arange(0, 1), tl.reduce(y, 0, mx)[None])\n"
           "    tl.store(out_ptr + 17 + tl.arange(0, 1), tl.reduce(x, 0, mx)[None])\n"
           "    tl.store(out_ptr + 18 + i, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))\n",
           26, wn, 0);
  /* On integers propagate_nan changes nothing (no NaN): the max itself,
   * and operands near INT32_MAX whose sum would overflow. */
  int32_t wm[4] = {2147483647, 5, -3, 2147483646};
  expect_i("propagate_nan_all_on_ints",
           K "    i = tl.arange(0, 4)\n"
             "    a = tl.where(i == 0, 2147483647, tl.where(i == 1, 5, tl.where(i == 2, -3, -9)))\n"
             "    b = tl.where(i == 0, 2147483646, tl.where(i == 1, 1, tl.where(i == 2, -7, 2147483646)))\n"
             "    tl.store(iout_ptr + tl.arange(0, 4), tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL))\n",
           4, wm);
  expect_err("propagate_nan_not_an_enum",
             K "    x = tl.load(in_ptr + tl.arange(0, 8))\n"
               "    y = tl.maximum(x, x, propagate_nan=3)\n",
             "k.py:3:9:", "maximum(): propagate_nan=3 is not a tl.PropagateNan");
  /* ipow's x = x * x overflows int32 on data by design: it must wrap. */
  int32_t wi[4] = {1, 3, 2187, -2147483648};
  snprintf(src, sizeof src,
           "%s\n@triton.jit\n" K
           "    i = tl.arange(0, 4)\n"
           "    b = tl.load(in_ptr + 3 + i * 0).to(tl.int32)\n"
           "    e = tl.where(i == 0, 0, tl.where(i == 1, 1, tl.where(i == 2, 7, 0)))\n"
           "    r = coil_ipow(b, e)\n"
           "    big = tl.load(in_ptr + 2 + i * 0).to(tl.int32) * 1073741824\n"
           "    tl.store(iout_ptr + i, tl.where(i == 3, big, r))\n",
           coil_helpers);
  expect_i("data_int32_arithmetic_wraps", src, 4, wi);
  /* A where with a uniform condition on data picks a branch by data, even a
   * constant one: min(b, 65536) of b >= 65536 is the constant, and its
   * square wraps (the shortcut for a uniform condition took the constant's
   * provenance, an index's, and reported the overflow: fuzz seed 9001 case
   * 416, coil_ipow's squares of coil_minimum(v, 3)). */
  int32_t wsq[4] = {0, 0, 0, 0};
  expect_i("uniform_data_condition_keeps_data_wrapping",
           K "    i = tl.arange(0, 4)\n"
             "    b = tl.load(in_ptr + 3 + i * 0).to(tl.int32) * 100000\n"
             "    c = tl.where(b < 65536, b, tl.full([1], 65536, tl.int32))\n"
             "    t = (b > 0) & (i < 9)\n"
             "    d = tl.where(t, c, 0)\n"
             "    tl.store(iout_ptr + i, d * d)\n",
           4, wsq);
  expect_err("index_int32_overflow_still_reported",
             K "    b = tl.load(in_ptr + 3).to(tl.int32)\n"
               "    i = tl.program_id(0) + 2147483647 + b * 0\n"
               "    j = tl.program_id(0) + 2147483647\n"
               "    k = j + 1\n",
             "k.py:5:11:", "int32 overflow in index arithmetic: 2147483647 + 1");
  /* -1.0f is 0xBF800000: a logical shift, not an arithmetic one */
  int32_t wu[4] = {(int32_t)((0xBF800000u >> 17) & 0xFFFF), 1, 65535, 3};
  expect_i("uint32_promotion",
           K "    x = tl.full([1], -1.0, tl.float32).to(tl.uint32, bitcast=True)\n"
             "    h = (x >> 17) & 0xFFFF\n"
             "    tl.static_assert(h.dtype == tl.uint32)\n"
             "    tl.store(iout_ptr + tl.arange(0, 1), h.to(tl.int32) - 0x7fff + 0x7fff)\n"
             "    y = tl.full([1], 0xFFFF0000, tl.uint32)\n"
             "    tl.store(iout_ptr + 1 + tl.arange(0, 1), (y > 5).to(tl.int32))\n"
             "    tl.store(iout_ptr + 2 + tl.arange(0, 1), (y >> 16).to(tl.int32))\n"
             "    z = y + 0x10003\n"
             "    tl.store(iout_ptr + 3 + tl.arange(0, 1), z.to(tl.int32))\n",
           4, wu);
  expect_err("uint32_signedness_error",
             K "    y = tl.full([1], 7, tl.uint32)\n    z = y // 2\n",
             "k.py:3:11:", "Cannot use /, #, or % with uint32 and int32 because they have "
                           "different signedness");
}

static void test_args(void) {
  /* Missing argument and unknown parameter are errors of the call. */
  TxArg a[] = {{"x_ptr", TX_PTR, DT_F32, out, OUTN, 0, 0}};
  int64_t grid[3] = {1, 1, 1};
  CoilErr *e = tx_run_source("m.py", "def k(x_ptr, N: tl.constexpr):\n    pass\n", NULL, grid, a, 1);
  bool ok = e && strstr(e->msg, "missing argument for parameter 'N'");
  snprintf(why, sizeof why, "%s", e ? e->msg : "no error");
  coil_err_free(e);
  report("missing_argument", ok);
  /* Several kernels: run by name; the jit one by default. */
  const char *two = "import triton\nimport triton.language as tl\n\n"
                    "def helper(x):\n    return x\n\n"
                    "@triton.jit\ndef first(x_ptr):\n    tl.store(x_ptr, 1.0)\n\n"
                    "@triton.jit\ndef second(x_ptr):\n    tl.store(x_ptr, 2.0)\n";
  out[0] = 0;
  e = tx_run_source("m.py", two, "second", grid, a, 1);
  ok = !e && out[0] == 2;
  coil_err_free(e);
  e = tx_run_source("m.py", two, NULL, grid, a, 1);
  ok = ok && !e && out[0] == 1;
  snprintf(why, sizeof why, "%s (out[0] = %g)", e ? e->msg : "wrong kernel ran", out[0]);
  coil_err_free(e);
  report("several_kernels_by_name", ok);
  /* A module parsed once runs twice; a bad def does not stop a good one. */
  TxModule *m;
  e = tx_module_parse("m.py", "def bad(x):\n    x = = 1\n\ndef good(x_ptr):\n    tl.store(x_ptr, 3.0)\n", &m);
  ok = !e && tx_module_nkernels(m) == 2;
  if (ok) {
    out[0] = 0;
    e = tx_module_run(m, "good", grid, a, 1, NULL);
    ok = !e && out[0] == 3;
    coil_err_free(e);
    e = tx_module_run(m, "bad", grid, a, 1, NULL);
    ok = ok && e && strstr(e->msg, "m.py:2:9: error: expected an expression");
    snprintf(why, sizeof why, "%s", e ? e->msg : "bad kernel ran");
    coil_err_free(e);
    tx_module_free(m);
  } else {
    coil_err_free(e);
  }
  report("module_with_a_bad_def", ok);
}

int main(void) {
  test_broadcast();
  test_shapes();
  test_reductions();
  test_promotion();
  test_masks();
  test_control();
  test_coil_helpers();
  test_args();
  return failures ? 1 : 0;
}
