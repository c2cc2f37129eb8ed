"""Sums at indices: index_add, index_put with accumulate=True and the
ATen forms a torch.compile backend sees (an embedding's backward is
aten._unsafe_masked_index_put_accumulate): repeated indices sum, negative
ones count from the end (index_put), values broadcast, every float and int
dtype, fused with work before and after."""
import torch

aten = torch.ops.aten


def index_add_forms(x: "f32[6, 4]", i: "i64[9] uniform(0, 6)", src: "f32[9, 4]", j: "i32[3] uniform(0, 4)", s2: "f32[6, 3]"):
    return x.index_add(0, i, src), torch.index_add(x, 1, j, s2, alpha=2), x.index_add(0, i, src * 3).sum(1)


def index_add_dtypes(a: "bf16[5, 3]", b: "f16[5, 3]", c: "i32[5, 3]", d: "i64[5, 3]", e: "f64[5, 3]", i: "i64[7] uniform(0, 5)",
                     s: "f32[7, 3]"):
    return (a.index_add(0, i, s.bfloat16()), b.index_add(0, i, s.half()), c.index_add(0, i, (s * 4).int()),
            d.index_add(0, i, (s * 4).long()), e.index_add(0, i, s.double()))


def index_put_acc(x: "f32[7, 5]", i: "i64[4, 3] uniform(-7, 7)", v: "f32[4, 3, 5]", w: "f32[5]"):
    return (torch.index_put(x, (i,), v, accumulate=True), x.index_put((i,), w, accumulate=True),
            aten.index_put.default(x, [None, i.clamp(0, 4)], v.sum(2), True))


def embedding_backward(grad: "f32[2, 6, 8]", ids: "i64[2, 6] uniform(0, 10)"):
    zeros = torch.zeros(10, 8)
    mask = (ids != 0).unsqueeze(-1)
    return aten._unsafe_masked_index_put_accumulate.default(zeros, mask, [ids], grad)


def aten_forms(x: "f32[6, 4]", i: "i64[9] uniform(0, 6)", src: "f32[9, 4]"):
    return (aten.index_put.default(x, [i], src, True), aten._unsafe_index_put.default(x, [i], src, True),
            aten.index_add.default(x, 0, i, src, alpha=0.5))


def scatter_value(x: "f32[5, 7]", i: "i64[5, 1] uniform(0, 7)", j: "i64[3, 4] uniform(0, 7)", k: "i64[2, 7] uniform(0, 5)"):
    # cross_entropy's backward scatters a number at the targets; repeated indices write it once
    return x.scatter(1, i, -1.0), torch.scatter(x, 1, j, 2.5), x.scatter(0, k, value=0.0)


def scatter_add_forms(x: "f32[5, 7]", i: "i64[5, 3] uniform(0, 7)", src: "f32[5, 4]", k: "i64[3, 7] uniform(0, 5)",
                      s2: "f32[3, 7]"):
    return x.scatter_add(1, i, src), torch.scatter_add(x, 0, k, s2), x.scatter_add(1, i, src).sum(1)


def aten_scatter(x: "f32[6, 9]", t: "i64[6] uniform(0, 9)", i: "i64[4, 9] uniform(0, 6)", s: "f32[4, 9]"):
    return aten.scatter.value(x * 0, 1, t.unsqueeze(1), -1.0), aten.scatter_add.default(x, 0, i, s)


def repeats_in_order(x: "f32[50]", i: "i64[60000] uniform(0, 50)", s: "f32[60000]", h: "bf16[50]", k: "i64[3000] uniform(-50, 50)"):
    # every element takes some 1200 adds: they must run one after another
    # (never in vector lanes or threads side by side), in index order on the
    # CPU, where the sums are PyTorch's bit for bit (the Triton dialects add
    # atomically, in any order: bf16, rounded at every add, takes 4 adds an
    # element here, so that any order stays within its tolerance)
    return (x.index_add(0, i, s), x.scatter_add(0, i, s * 2), h.index_add(0, i[:200], s[:200].bfloat16()),
            torch.index_put(x, (k,), s[:3000], accumulate=True))


def token_columns(g: "f32[8, 512, 64]", ids: "i64[8, 512] uniform(0, 300)"):
    # an embedding's gradient large enough to run in parallel: the tokens
    # collide, the columns do not
    return aten.index_put.default(torch.zeros(300, 64), [ids], g * 0.5, True)
