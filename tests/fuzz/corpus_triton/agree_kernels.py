# Kernels run both by coil's Triton executor and by Triton's interpreter
# (TRITON_INTERPRET=1) in compare_triton.py; their outputs must agree.
# Shapes are tl.constexpr: the interpreter cannot loop over a runtime trip
# count.  Each kernel exercises a different part of the language.
import triton
import triton.language as tl


@triton.jit
def row_stats(x_ptr, mean_ptr, max_ptr, M: tl.constexpr, N: tl.constexpr,
              XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    # Inductor-style persistent reduction over the rows of a bf16 [M, N]
    # matrix, N not a power of two: masked lanes, where, keep the row axis.
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < M
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < N
    x = tl.load(x_ptr + (rindex + N * xindex), xmask & rmask, other=0.0).to(tl.float32)
    s = tl.sum(tl.where(xmask & rmask, x, 0.0), 1)[:, None]
    m = tl.max(tl.where(xmask & rmask, x, float("-inf")), 1)[:, None]
    tl.store(mean_ptr + xindex, s / N, xmask)
    tl.store(max_ptr + xindex, m, xmask)


@triton.jit
def softmax(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def split_reduce(x_ptr, out_ptr, RNUMEL: tl.constexpr, XBLOCK: tl.constexpr,
                 RBLOCK: tl.constexpr):
    # A looped reduction whose last tile is a tail: the accumulator lives
    # outside the loop and masked lanes add the identity.
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    acc = tl.zeros([XBLOCK, RBLOCK], tl.float32)
    for roff in range(0, RNUMEL, RBLOCK):
        rindex = roff + tl.arange(0, RBLOCK)[None, :]
        rmask = rindex < RNUMEL
        v = tl.load(x_ptr + xindex * RNUMEL + rindex, rmask, other=0.0)
        acc = acc + tl.where(rmask, v * v * 0.5 + rindex, 0.0)
    tl.store(out_ptr + xindex, tl.sum(acc, 1)[:, None])


@triton.jit
def tile_permute(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # The seed's pattern in miniature: a tile permuted so the kept axis
    # comes first, flattened with reshape, reduced; trans and max too.
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    t = tl.load(x_ptr + a * B * C + b * C + c)
    u = tl.reshape(t.permute([2, 0, 1]), [C, A * B])
    tl.store(out_ptr + tl.arange(0, C), tl.sum(u, 1))
    tl.store(out_ptr + C + tl.arange(0, C), tl.max(tl.trans(u), 0))
    tl.store(out_ptr + 2 * C + tl.arange(0, C), tl.sum(t, axis=(0)).reshape(B * C).reshape(B, C).sum(0))


@triton.jit
def int_math(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    # int32 index math with negative values: // and % truncate (C), shifts,
    # bitwise ops, int/float promotion, where with Python numbers.
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, i < N, other=0)
    q = x // 3 + x % 5 - (x >> 1) * 2 + ((x & 6) ^ 1)
    f = x * 0.25 + i / 4
    tl.store(out_ptr + i, q.to(tl.float32) + f + tl.where(x > 3, 1.5, -0.5), i < N)


@triton.jit
def mixed_dtypes(a_ptr, b_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    # fp16 arithmetic (rounded per operation), bf16 and fp16 promoted to
    # fp32, math functions, clamping with minimum/maximum.  (No bf16
    # arithmetic: Triton 3.9's interpreter computes a * 2.0 + a on bf16 as
    # NaN and 1e38; tests/unit/tx_test.c checks the executor's.)
    i = tl.arange(0, BLOCK)
    m = i < N
    a = tl.load(a_ptr + i, m, other=0.0)
    b = tl.load(b_ptr + i, m, other=0.0)
    c = a.to(tl.float32) * 2.0 + a
    d = (b * b).to(tl.float32) + c
    e = tl.rsqrt(tl.abs(d) + 1.0) + tl.sqrt(tl.abs(d)) + tl.sigmoid(d)
    tl.store(out_ptr + i, tl.minimum(tl.maximum(e, 0.1), 3.0), m)


@triton.jit
def grid_2d(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, BM: tl.constexpr,
            BN: tl.constexpr):
    # A 2-d grid of tiles; program ids and num_programs along both axes.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)[:, None]
    rn = pn * BN + tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * N + rn, mask, other=0.0)
    y = x * (pm + 1) + pn * tl.num_programs(0)
    tl.store(out_ptr + rm * N + rn, tl.broadcast_to(tl.sum(y, 1, keep_dims=True), [BM, BN]) + x,
             mask)
