"""Index values and padded reads, and what they give: torch.cat (concat,
stack, hstack, vstack), F.pad, slice_scatter, select_scatter, arange, in
torch form and as a torch.compile backend prints them (aten.*, prims.iota).
cat picks every value as it is (-0, NaN, inf), promotes as result_type
(ints, bool, f16, bf16), skips 1-D empty pieces; a cat along a reduced axis
feeds a sum; two aranges make a causal mask before a softmax.  The
comparison with PyTorch takes no NaN in an output, so an output that may
hold one comes as its isnan() and the output with its NaNs filled; a -0
shows as the -inf of its reciprocal."""
import torch
import torch.nn.functional as F

aten = torch.ops.aten
prims = torch.ops.prims


def edges(x):
    """x with NaN, +inf, -inf and -0 among its values."""
    x = torch.where(x > 1.2, float("nan"), x)
    x = torch.where(x < -1.2, float("-inf"), x)
    x = torch.where((x > 0.8) & (x < 1.0), float("inf"), x)
    return torch.where((x > -0.3) & (x < -0.1), -0.0, x)


def seen(y):
    """y's NaNs as a mask, and 1 / y elsewhere (-0 -> -inf, inf -> 0)."""
    n = y.isnan()
    return n, torch.where(n, 7.0, 1.0 / y)


def cat_dims(a: "f32[3, 4, 5]", b: "f32[3, 2, 5]", c: "f32[3, 4, 1]"):
    return (torch.cat([a, b], dim=1), torch.cat((a, c, a), -1), torch.cat([a, a * 2]),
            torch.concat([b, a], 1), torch.concatenate([c, c], dim=2))


def cat_edges(a: "f32[4, 6]", b: "f32[4, 3]"):
    ea, eb = edges(a), edges(b)
    return seen(torch.cat([ea, eb], 1)) + seen(torch.cat((eb, ea, eb), dim=-1)) + seen(torch.cat([ea, ea], 0))


def cat_edges_half(a: "bf16[5, 6]", b: "f16[5, 2]"):
    ea, eb = edges(a), edges(b)
    return seen(torch.cat([ea, ea], 1)) + seen(torch.cat([eb, eb * 2], 0)) + seen(torch.cat([ea, eb], 1))


def cat_promote(a: "i32[3, 4]", b: "bool[3, 2]", c: "f16[3, 3]", d: "bf16[3, 1]", e: "i64[3, 2]"):
    return (torch.cat([a, b], 1), torch.cat([a, c], 1), torch.cat([c, d], 1), torch.cat([b, b], 0),
            torch.cat([a, e], 1), torch.cat([b, d], 1), torch.cat([e, e + 1], 0))


def cat_empty(a: "f32[3, 4]", e: "f32[0]", e64: "f64[0]", z: "f32[3, 0]"):
    return torch.cat([a, e], 1), torch.cat([e, a, e64], 0), torch.cat([a, z, a], 1), torch.cat([z, z], 1), torch.cat([e, e])


def cat_sum(a: "f32[4, 50]", b: "f32[4, 70]", c: "f32[3, 70]"):
    return (torch.cat([a, b], 1).sum(1), torch.cat([b, a, b], 1).amax(-1), torch.cat([b, c], 0).mean(0),
            torch.cat([a.exp(), b], 1).sum(), torch.cat([b, c], 0).sum(0, keepdim=True))


def cat_computed(a: "f32[4, 5]", b: "f32[4, 3]"):
    y = torch.cat([a.exp(), (b * 2).sigmoid(), a - 1], 1)
    return y, y.softmax(-1), torch.cat([a.sum(1, keepdim=True), b.amax(1, keepdim=True)], 1)


def stack_forms(a: "f32[3, 5]", b: "f32[3, 5]", v: "f32[4]", w: "f32[2]"):
    return (torch.stack([a, b]), torch.stack([a, b], dim=-1), torch.stack((a, b, a), 1),
            torch.hstack([a, b]), torch.vstack([a, b]), torch.hstack([v, w]), torch.vstack([v, v]),
            torch.stack([a, b]).sum(0))


def pad_forms(x: "f32[3, 4, 5]"):
    return (F.pad(x, (1, 2)), F.pad(x, (1, 0, 0, 2), value=-1.5), F.pad(x, (0, 0, 0, 0, 2, 1), "constant", 3.0),
            F.pad(x, (-1, 2)), F.pad(x, (-1, -2, 1, -1)), F.pad(x, [2, 2], mode="constant", value=None).sum(-1),
            F.pad(x.exp(), (1, 1, 1, 1)), F.pad(x, (3, 0))[..., :2], F.pad(F.pad(x, (1, 1)), (0, 0, 1, 1), value=2.0))


# (-0 fills on blocks of more than one element: Triton 3.9's interpreter
# loads +0 for other=-0.0 in a block of one, as the NPU tiles of a small
# tensor are; the compiled kernels keep the sign.)
def pad_edges(x: "f32[10, 12]"):
    e = edges(x)
    return seen(F.pad(e, (2, 1), value=float("nan"))) + seen(F.pad(e, (1, 1, 1, 0), value=-0.0)) + (F.pad(x, (2, 2), value=float("-inf")).amax(-1),)


def pad_dtypes(i: "i32[3, 4]", b: "bool[3, 4]", h: "f16[9, 12]", g: "bf16[3, 4]", l: "i64[3, 4]"):
    return (F.pad(i, (1, 1), value=7), F.pad(b, (1, 0), value=True), F.pad(b, (0, 1, 1, 0)),
            1.0 / F.pad(h, (0, 2), value=-0.0), F.pad(g, (1, 1, 1, 1), value=2.5), F.pad(i, (1, 1), value=1.7),
            F.pad(l, (2, 0), value=-3), F.pad(g * 3, (0, 1)))


def scatter_forms(x: "f32[6, 5]", s: "f32[2, 5]", t: "f32[6]", u: "f32[6, 2]", k: "f32[6, 3]"):
    return (x.slice_scatter(s, 0, 1, 3), x.slice_scatter(s, start=4), torch.slice_scatter(x, u, dim=1, start=1, end=5, step=2),
            x.slice_scatter(k, 1, 0, 5, 2), x.select_scatter(t, 1, 2), torch.select_scatter(x, x[0] * 2, 0, -1),
            x.slice_scatter(x * 3), x.slice_scatter(s, 0, -2))


def scatter_edges(x: "f32[5, 4]", s: "f32[2, 4]", t: "f32[5]"):
    ex, es, et = edges(x), edges(s), edges(t)
    return seen(ex.slice_scatter(es, 0, 2, 4)) + seen(ex.select_scatter(et, 1, 3)) + seen(es.slice_scatter(ex[1:3, :3] * 0 - 0.0, 1, 1))


def scatter_dtypes(x: "bf16[4, 6]", s: "f32[4, 2]", i: "i32[4, 6]", t: "i64[6]", m: "bool[4, 6]", n: "bool[6]"):
    return (x.slice_scatter(s, 1, 2, 4), x.select_scatter(t, 0, 1), i.slice_scatter(s, 1, 4), i.select_scatter(t, 0, 3),
            m.select_scatter(n, 0, 0), m.slice_scatter(i[:, :2] > 0, 1, 0, 3, 2))


def arange_forms(x: "f32[10]"):
    return (torch.arange(10), torch.arange(3, 20, 2), torch.arange(0.5, 3.7, 0.3), torch.arange(10, 0, -3),
            torch.arange(5, dtype=torch.float64), torch.arange(0, 1, 0.1, dtype=torch.bfloat16),
            torch.arange(-2.5, 2.5, 0.5, dtype=torch.float16), torch.arange(1, 7, dtype=torch.int32),
            x + torch.arange(10), torch.arange(start=2, end=12) * x, torch.arange(0, 5.5, 1.5, dtype=torch.int64),
            torch.arange(1.0, 0.0, -0.125), torch.arange(x.shape[0] * 3).view(3, 10).sum(0))


def causal_softmax(x: "f32[2, 8, 8]"):
    i = torch.arange(8)
    mask = i[:, None] >= i[None, :]
    return torch.where(mask, x, float("-inf")).softmax(-1)


def causal_offset(x: "bf16[3, 6, 10]"):
    # 6 new queries after 4 cached keys: query q sees keys k <= q + 4
    q = torch.arange(6).unsqueeze(1) + 4
    k = torch.arange(10).unsqueeze(0)
    s = x.float().masked_fill(k > q, float("-inf"))
    return s.softmax(-1).to(torch.bfloat16), torch.where(k <= q, x, 0.0).sum(-1)


def aten_forms(arg0: "f32[4, 6]", arg1: "f32[4, 2]", arg2: "f32[6]", arg3: "bf16[4, 6]"):
    v0 = aten.cat.default([arg0, arg1], 1)
    v1 = aten.cat.default([arg0, arg0])
    v2 = aten.stack.default([arg0, arg0], -1)
    v3 = aten.constant_pad_nd.default(arg0, [1, 2], 0.5)
    v4 = aten.constant_pad_nd.default(arg0, [0, 0, -1, 2])
    v5 = aten.slice_scatter.default(arg0, arg1, 1, 2, 4)
    v6 = aten.slice_scatter.default(arg0, arg1, 1, 1, 9223372036854775807, 3)
    v7 = aten.select_scatter.default(arg0, arg2, 0, 2)
    v8 = aten.arange.start_step(0, 6, 1, dtype=torch.int64, layout=torch.strided, device='cpu', pin_memory=False)
    v9 = aten.arange.default(6, dtype=torch.float32, device='cpu', pin_memory=False)
    v10 = aten.arange.start(2, 8, device='cpu', pin_memory=False)
    v11 = prims.iota.default(6, start=0, step=1, dtype=torch.int64, device='cpu', requires_grad=False)
    v12 = aten.unsqueeze.default(v11, 1)
    v13 = aten.ge.Tensor(v12, v11)
    v14 = aten.where.self(v13[:4], v3[:, :6], aten.full.default([4, 6], -0.0, dtype=torch.float32, device='cpu', pin_memory=False))
    v15 = aten.add.Tensor(v9, arg0)
    v16 = aten.cat.default([arg3, arg1], 1)
    v17 = aten.new_zeros.default(arg0, [3, 2])
    v18 = aten.sum.dim_IntList(v0, [1])
    v19 = aten.mul.Tensor(v8, v10)
    v20 = prims.iota.default(5, start=3, step=-2, dtype=torch.int32, device='cpu', requires_grad=False)
    v21 = aten.new_full.default(arg3, [2, 2], 1.5)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, 1.0 / v14, v15, v16, v17, v18, v19, v20, v21)


def new_forms(x: "f32[3, 4]", i: "i32[2]"):
    return x.new_zeros(2, 3), x.new_ones((4,)), x.new_full((2, 2), 3.5), i.new_zeros([3]), x.new_zeros(2, dtype=torch.int64)
