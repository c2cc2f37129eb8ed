"""Indexed reads: torch.gather, take_along_dim, index_select, F.embedding,
x[idx] (negative indices count from the end) and their ATen spellings, in
every dtype, fused with the work around them: a reduction of gathered
values, a log_softmax picked at class indices (nll_loss), an embedding
followed by an RMS norm, gathers along reduced and kept dims, strided and
broadcast indices, a gather whose index is computed in the kernel.  An
index out of range is a run-time error (tests/errors/, tests/suites/cli.sh),
never a read; these inputs draw their indices inside the range."""
import torch
import torch.nn.functional as F

aten = torch.ops.aten


def gather_dims(x: "f32[4, 5, 6]", i0: "i64[3, 5, 6] uniform(0, 4)", i1: "i64[4, 2, 6] uniform(0, 5)",
                i2: "i64[4, 5, 9] uniform(0, 6)"):
    return torch.gather(x, 0, i0), x.gather(1, i1), torch.gather(x, -1, i2), x.gather(dim=2, index=i2[:, :3, :4])


def gather_dtypes(a: "bf16[3, 7]", b: "f16[3, 7]", c: "i32[3, 7]", d: "bool[3, 7]", e: "f64[3, 7]", f: "i64[3, 7]",
                  i: "i64[3, 4] uniform(0, 7)"):
    return a.gather(1, i), b.gather(1, i), c.gather(1, i), d.gather(1, i), e.gather(1, i), f.gather(1, i)


def gather_reduce(x: "f32[6, 33]", i: "i64[6, 17] uniform(0, 33)"):
    g = x.gather(1, i)
    return g.sum(1), g.amax(1), (g * g).mean()


def gather_computed_index(x: "f32[5, 8]", j: "i64[5, 3] uniform(0, 4)"):
    # the index is computed in the kernel: 2 * j + 1 stays inside [0, 8)
    return x.gather(1, j * 2 + 1), x.gather(1, (x.abs() * 0).long())


def nll(logits: "f32[9, 13]", target: "i64[9] uniform(0, 13)"):
    lp = F.log_softmax(logits, dim=-1)
    picked = lp.gather(1, target.unsqueeze(1)).squeeze(1)
    return -picked.mean(), -picked.sum()


def take_along(x: "f32[4, 7]", i: "i64[4, 3] uniform(0, 7)", j: "i64[3, 1] uniform(0, 4)", k: "i64[6] uniform(0, 28)"):
    top = torch.take_along_dim(x, i, dim=1)
    bcast = torch.take_along_dim(x, j, dim=0)
    flat = torch.take_along_dim(x, k)
    return top, bcast, flat


def index_select_forms(x: "f32[5, 6, 3]", i: "i64[4] uniform(0, 5)", j: "i32[7] uniform(0, 6)", k: "i64[] uniform(0, 3)"):
    return x.index_select(0, i), torch.index_select(x, 1, j), x.index_select(-1, k), x.index_select(1, j).sum(1)


def embedding(w: "f32[11, 8]", ids: "i64[3, 5] uniform(0, 11)", ids32: "i32[7] uniform(0, 11)"):
    return F.embedding(ids, w), F.embedding(ids32, w, padding_idx=0) * 2


def embedding_rms(w: "bf16[50, 64]", ids: "i64[2, 9] uniform(0, 50)", g: "bf16[64]"):
    h = F.embedding(ids, w).float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    return (h * g.float()).to(torch.bfloat16)


def advanced_index(x: "f32[6, 4, 5]", i: "i64[2, 3] uniform(-6, 6)", j: "i64[7] uniform(-5, 5)"):
    return x[i], x[:, :, j], x[..., j], x[1:5, i.clamp(0, 3)]


def gather_strided(x: "f32[6, 5] stride(1, 6)", i: "i64[6, 3] stride(1, 6) uniform(0, 5)"):
    return x.gather(1, i), x.t().index_select(0, i[0].clamp(0, 4))


def gather_big_rows(x: "f32[40, 300]", i: "i64[40, 130] uniform(0, 300)"):
    # long rows: the C schedule vectorises and tiles them
    return x.gather(1, i) + x[:, :130]


def aten_forms(x: "f32[5, 6]", i: "i64[5, 2] uniform(0, 6)", j: "i64[4] uniform(0, 5)", w: "f32[9, 3]",
               ids: "i64[2, 4] uniform(0, 9)"):
    return (aten.gather.default(x, 1, i), aten.index_select.default(x, 0, j), aten.embedding.default(w, ids),
            aten.index.Tensor(x, [None, j.clamp(0, 5)]), aten.index.Tensor(x, [j]), aten.take_along_dim.default(x, i, 1))


def gather_at_reduced_index(x: "f32[6, 9]"):
    # the index is a reduction's result: the read comes after the loop, masked by x's lanes only
    i = (x.abs().sum(1, keepdim=True) * 3).long() % 9
    return x.gather(1, i), x.gather(1, i).squeeze(1) + x.amax(1)
