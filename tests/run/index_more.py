"""Advanced indexing with several index tensors, and writes at indices:
x[i, j] (the index tensors broadcast together; their dims where the indexed
dims were when these are adjacent, first when a slice separates them),
ints, None, slices and ... mixed in (an int and a 0-d index tensor select
first, as in PyTorch), aten.index.Tensor with several indices;
index_put without accumulate and with several index tensors, scatter with a
tensor src, index_copy and index_fill, and their ATen forms (with
_unsafe_index and _unsafe_masked_index, whose indices are clamped).  Where indices
repeat, the last write in index order wins, as on PyTorch's CPU (the dup
tensors below repeat on purpose); negative indices count from the end where
PyTorch counts them.  Indices out of range are run-time errors
(tests/errors/index_multi_*); these inputs draw them inside the range."""
import torch

aten = torch.ops.aten


def two_indices(x: "f32[6, 4, 5]", i: "i64[2, 3] uniform(-6, 6)", j: "i64[3] uniform(-4, 4)", k: "i64[2, 1] uniform(0, 5)"):
    # adjacent: the broadcast dims in place; separated by a slice: first
    return x[i, j], x[:, j, k], x[i, :, k], x[i, j, k], x[..., i.clamp(0, 3), k]


def mixed_with_ints_and_none(x: "f32[6, 4, 5]", i: "i64[2, 3] uniform(0, 6)", j: "i64[3] uniform(-4, 4)", k: "i64[2, 1] uniform(0, 5)"):
    # ints select first: x[0, :, j] is [4, 3], x[i, :, None] keeps the new dim
    return x[0, :, j], x[:, j, 0], x[i, 1], x[i, :, None], x[None, i, j], x[i, None, k], x[1:5, j, 1:4], x[i, 2:, k]


def zero_dim_index(x: "f32[6, 4, 5]", j: "i64[3] uniform(0, 5)", s: "i64[] uniform(0, 6)"):
    # a 0-d index tensor selects as an int does: x[s, :, j] is [4, 3]
    return x[s, :, j], x[:, s.clamp(0, 3), j], x[s]


def fused_reads(x: "f32[8, 16]", i: "i64[5, 7] uniform(0, 8)", j: "i64[7] uniform(0, 16)"):
    g = x[i, j]
    return g.sum(1), (g * g).mean(), x[i, j * 0 + 3] + x.amax()


def aten_index(x: "f32[6, 4, 5]", i: "i64[2, 3] uniform(-6, 6)", j: "i64[3] uniform(-4, 4)", k: "i32[3] uniform(0, 5)"):
    return (aten.index.Tensor(x, [i, j]), aten.index.Tensor(x, [i, None, k]), aten.index.Tensor(x, [None, j, k]),
            aten.index.Tensor(x, [i, j, k]), aten.index.Tensor(x, [None, None, k]))


def index_put_several(x: "f32[6, 4, 5]", i: "i64[7] uniform(-6, 6)", j: "i64[7] uniform(-4, 4)", v: "f32[7, 5]", w: "f32[5]"):
    return (x.index_put((i, j), v), x.index_put((i, j), v, accumulate=True), aten.index_put.default(x, [i, None, j.clamp(0, 4)], w[:4]),
            aten.index_put.default(x, [None, j], w), aten._unsafe_index_put.default(x, [i], w, True),
            torch.index_put(x, (i, j.clamp(0, 3), j.clamp(0, 4)), v[:, 0] * 2))


def index_put_repeated(x: "f32[6, 4, 5]", i: "i64[7] uniform(-6, 6)", j: "i64[7] uniform(-4, 4)", v: "f32[7, 5]"):
    dup_i, dup_j = i % 2, j % 2  # many writes to the same rows: the last in index order wins
    return (x.index_put((dup_i, dup_j), v), x.index_put((dup_i, dup_j), v, accumulate=True), x.index_put((dup_i,), v[:, None, :] * 2),
            x.index_put((dup_i, dup_j), v[0]))


def scatter_src(x: "f32[6, 5]", i: "i64[4, 3] uniform(0, 5)", s: "f32[5, 4]", u: "i64[6, 2] uniform(-1, 1)"):
    dup = i % 2  # repeated along every line
    return (x.scatter(1, i, s), x.scatter(0, dup, s), torch.scatter(x, 1, dup, src=s), x.scatter(1, i, 2.5),
            aten.scatter.src(x, 0, dup, s), x.scatter(1, u + 1, x * 2).sum(0))


def index_copy_fill(x: "f32[6, 5]", j: "i64[7] uniform(0, 6)", t: "f32[6, 7]"):
    return (x.index_copy(0, j % 3, t.t()[:, :5]), x.index_copy(1, j % 4, t), x.index_fill(1, j % 5 - 5, -1.0), x.index_fill(0, j, t[1, 2]),
            aten.index_copy.default(x, 0, j, t.t()[:, :5]), aten.index_fill.int_Scalar(x, 1, j % 5, 7),
            aten.index_fill.int_Tensor(x, 1, j % 5, t[0, 0]))


def dtypes(a: "bf16[4, 6]", b: "i32[4, 6]", c: "bool[4, 6]", d: "f16[4, 6]", e: "i64[4, 6]", i: "i64[3] uniform(0, 4)",
           k: "i64[3] uniform(0, 6)"):
    return (a[i, k], b[i, k], c[i, k], d[i, k], e[i, k], a.index_put((i, k), a[0, :3]), b.index_put((i, k), b[1, :3]),
            c.index_put((i, k), c[0, :3]), d.index_put((i % 2, k % 2), d[1, :3], accumulate=True), c.index_fill(1, k, True),
            b.index_fill(0, i, 3.7), e.scatter(1, k.view(1, 3).expand(4, 3), e), a.index_copy(0, i % 2, a[:3] * 2))


def backward_shapes(g: "f32[3, 7]", i: "i64[3, 7] uniform(0, 5)", j: "i64[7] uniform(0, 6)"):
    # what x[i, j]'s backward is: a sum at the pairs (repeats sum)
    z = torch.zeros(5, 6)
    return z.index_put((i, j), g, accumulate=True), aten.index_put.default(z, [i % 2, j % 2], g, True)


def masked_index(x: "f32[6, 5]", i: "i64[4, 3] uniform(-3, 9)", j: "i64[3] uniform(0, 5)"):
    # what the reflect pads' backward decomposes into: indices outside the dim are clamped and masked out, never an error
    inside = (i >= 0) & (i < 6)
    return (aten._unsafe_masked_index.default(x, inside, [i, j], 0.0), aten._unsafe_masked_index.default(x, x[:, :1] > 0, [None, j], -1),
            aten._unsafe_index.Tensor(x, [i.clamp(0, 5), None]))


def empty_index(x: "f32[6, 5]", i: "i64[6, 0]", s: "f32[6, 5]", j: "i64[0]"):
    # nothing written: x as it is
    return x.scatter(1, i, s), x.scatter(1, i, 1.0), x.index_fill(0, j, 2.0), x.index_copy(1, j, s[:, :0]), x.index_put((j,), s[0])
