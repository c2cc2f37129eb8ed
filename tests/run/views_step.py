"""Views with steps and reversal, and what is built of them: x[a:b:s]
subscripts and aten.slice with a step, flip (fliplr, flipud, prims.rev),
roll (with dims and flattened), F.pad's reflect, replicate and circular
modes (1-D, 2-D and 3-D, negative pads that crop), dstack, column_stack,
row_stack, movedim, narrow, repeat, tile, chunk and split with sizes, and
the bitwise operators on bool and int tensors.  Views pick every value as
it is (-0, NaN, inf), in every dtype, at odd sizes and negative dims, fused
with pointwise work and reductions around them.  The comparison with
PyTorch takes no NaN in an output, so an output that may hold one comes as
its isnan() and the output with its NaNs filled; a -0 shows as the -inf of
its reciprocal."""
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


def step_slices(x: "f32[7, 9, 5]"):
    return (x[::2], x[1:7:3], x[:, ::4, 1::2], x[..., ::3], x[-5::2, 2:-1:3], x[::2][::3], x[1::2, ::2].sum(1),
            x[::3, 0], x[:, 8:0:100], x[:6:2].exp() * x[1::2], x[::2, ::2, ::2].amax((0, 2)))


def step_slices_edges(x: "f32[9, 8]"):
    e = edges(x)
    return seen(e[::2]) + seen(e[1::3, ::2]) + seen(e[::2].flip(0))


def flips(x: "f32[4, 5, 6]", v: "f32[7]"):
    return (x.flip(0), x.flip(-1), torch.flip(x, (0, 2)), x.flip(0, 1, 2), x.flip([-2]), torch.fliplr(x), torch.flipud(v),
            x.flip(1).flip(1), x.flip(2)[:, ::2], x[:, :, ::2].flip(2), x + x.flip(-1), x.flip(1).sum(1), (x * x.flip(2)).amax(-1),
            torch.flip(v, [0]) * v, v[::3].flip(0))


def flip_edges_dtypes(x: "f32[6, 5]", h: "f16[5, 4]", g: "bf16[3, 8]", i: "i32[4, 3]", l: "i64[5]", b: "bool[3, 4]"):
    e = edges(x)
    return seen(e.flip(1)) + seen(e.flip(0, 1)) + (1.0 / h.flip(0), g.flip(-1), i.flip(0, 1), l.flip(0), b.flip(1), b.flip(0) & b)


def rolls(x: "f32[4, 5, 6]", v: "f32[7]"):
    return (torch.roll(x, 1, 0), torch.roll(x, -2, -1), x.roll(3, 1), torch.roll(x, (1, 2), (0, 2)), torch.roll(x, 7),
            torch.roll(x, -23), torch.roll(v, 9), torch.roll(x, (2, 3), (1, 1)), torch.roll(x, 0, 1), torch.roll(x, 5, 1),
            torch.roll(x.exp(), 2, 2).sum(2), torch.roll(x, 1, 2) - x, torch.roll(x, 2, 1)[:, ::2])


def roll_edges_dtypes(x: "f32[6, 5]", h: "f16[5, 4]", g: "bf16[3, 8]", i: "i32[4, 3]", b: "bool[3, 4]"):
    e = edges(x)
    return seen(torch.roll(e, 2, 1)) + seen(torch.roll(e, -3)) + (1.0 / torch.roll(h, 1, 0), g.roll(5, -1), i.roll((1, 1), (0, 1)), b.roll(3))


def pad_modes(x: "f32[2, 3, 7]", y: "f32[2, 3, 5, 6]", z: "f32[1, 2, 3, 4, 5]", w: "f32[3, 4, 6]"):
    out = []
    for m in ["reflect", "replicate", "circular"]:
        out = out + [F.pad(x, (2, 3), mode=m), F.pad(x, (-1, 2), mode=m), F.pad(x, (3, -2), mode=m), F.pad(x, (0, 0), m),
                     F.pad(y, (1, 2, 2, 1), mode=m), F.pad(y, (0, 1, -1, 2), mode=m), F.pad(w, (2, 2, 1, 0), mode=m),
                     F.pad(z, (1, 2, 2, 1, 1, 1), mode=m), F.pad(y, (1, 1, 1, 1, 1, 0), mode=m),
                     F.pad(y.exp() * 2, (2, 2, 1, 1), mode=m).sum(-1), F.pad(x, (6, 6), mode=m) if m != "reflect" else F.pad(x, (6, 5), mode=m)]
    return tuple(out)


def pad_modes_edges(x: "f32[3, 8, 9]"):
    e = edges(x)
    return (seen(F.pad(e, (2, 3), mode="reflect")) + seen(F.pad(e, (1, 2, 3, 1), mode="replicate")) +
            seen(F.pad(e, (4, 1, 2, 2), mode="circular")))


def pad_modes_dtypes(h: "f16[2, 5, 6]", g: "bf16[2, 3, 4, 5]", d: "f64[2, 7]"):
    return (F.pad(h, (2, 1), mode="reflect"), 1.0 / F.pad(h, (1, 3), mode="replicate"), F.pad(g, (1, 1, 2, 0), mode="circular"),
            F.pad(g, (3, 1, 1, 2), mode="reflect"), F.pad(d, (6, 6), mode="reflect"), F.pad(d, (1, 9), mode="replicate"))


def reflect_conv_style(x: "f32[2, 4, 9, 9]", w: "f32[4]"):
    # a 3x3 box filter of a reflect-padded image, as a conv block would read it
    p = F.pad(x, (1, 1, 1, 1), mode="reflect")
    s = p[:, :, :9, :9]
    for i in range(3):
        for j in range(3):
            if i + j > 0:
                s = s + p[:, :, i:i + 9, j:j + 9]
    s = s / 9.0
    return s * w[:, None, None], s.mean((2, 3))


def stacks(a: "f32[3, 4]", b: "f32[3, 4]", v: "f32[4]", u: "f32[4]", t: "f32[2, 3, 4]"):
    return (torch.dstack([a, b]), torch.dstack((v, u, v)), torch.dstack([t, t]), torch.column_stack([v, u]),
            torch.column_stack((a, v[:3], b)), torch.row_stack([v, u]), torch.row_stack((a, b)), torch.dstack([a, b]).sum(-1))


def views_more(x: "f32[3, 4, 5]", s: "f32[2]"):
    return (torch.movedim(x, 0, -1), x.movedim((0, 1), (2, 0)), torch.moveaxis(x, -1, 0), torch.narrow(x, -1, 1, 3),
            x.narrow(0, -2, 2), x.repeat(2, 1, 3), x.repeat(2, 1, 1, 1), s.repeat(3), torch.tile(x, (2,)), x.tile(2, 1, 1, 1),
            x.chunk(2, -1)[1], torch.chunk(x, 3, 1)[1], x.split([1, 3, 1], -1)[1], torch.split(x, 2, 1)[1],
            x.split([2, 1])[0] * 2, x.repeat(1, 2, 1).flip(1)[:, ::3])


def bitwise(a: "i32[5, 6]", b: "i32[5, 6]", l: "i64[6]", p: "bool[5, 6]", q: "bool[5, 6]"):
    return (a & b, a | b, a ^ b, ~a, ~l, a & 12, 7 | a, a ^ -1, a & l, ~p, p & q, p | q, p ^ q, p & True, q ^ True,
            torch.bitwise_and(a, b), torch.bitwise_or(a, 3), torch.bitwise_xor(a, l), torch.bitwise_not(a), torch.bitwise_not(p),
            a.bitwise_xor(b), l.bitwise_and(255), p.bitwise_or(q), (a & b).sum(0), (~a).flip(1), a ^ p, p & a)


def aten_views(arg0: "f32[4, 6, 5]", arg1: "i32[4, 6]", arg2: "f32[2, 3, 8]", arg3: "f32[4, 6, 2, 1]"):
    v0 = aten.slice.Tensor(arg0, 1, 1, 9223372036854775807, 2)
    v1 = aten.slice.Tensor(arg0, -1, 0, 4, 3)
    v2 = aten.flip.default(arg0, [0, -1])
    v3 = prims.rev.default(arg0, [1])
    v4 = aten.roll.default(arg0, [2], [1])
    v5 = aten.roll.default(arg0, [1, -2], [0, 2])
    v6 = aten.roll.default(arg0, [7])
    v7 = aten.reflection_pad1d.default(arg2, [2, 3])
    v8 = aten.reflection_pad2d.default(arg0, [1, 2, 2, 1])
    v9 = aten.replication_pad1d.default(arg2, [3, 1])
    v10 = aten.replication_pad2d.default(arg0, [0, 2, 3, 0])
    v11 = aten.reflection_pad3d.default(arg0[None], [1, 1, 1, 2, 2, 1])
    v12 = aten.replication_pad3d.default(arg0[None], [1, 1, 1, 2, 2, 1])
    v13 = aten.bitwise_or.Tensor(arg1, arg1)
    v14 = aten.bitwise_xor.Scalar(arg1, 5)
    v15 = aten.bitwise_not.default(arg1)
    v16 = aten.as_strided.default(arg3, [4, 12], [12, 1])
    v17 = aten.as_strided.default(arg3, [2, 3], [3, 1], 5)
    v18 = aten.clamp_min.Tensor(arg0, v2)
    v19 = aten.clamp_max.Tensor(arg0, v3)
    v20 = aten.lift_fresh_copy.default(arg1)
    return (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20)


def aten_as_strided_scatter(a: "f32[640]", s: "f32[2, 320]", b: "bf16[4, 6, 5]", t: "f32[2, 3, 4]", u: "i32[3, 1, 7]"):
    """aot_autograd's as_strided_scatter: the whole buffer (ConvNeXt's
    backward), a run inside it at an offset (t cast to b's bf16), a run at
    the end with size-1 dims of any stride, and one of no elements."""
    v0 = aten.as_strided_scatter.default(a, s, [2, 320], [320, 1], 0)
    v1 = aten.as_strided_scatter.default(b, t * 3, [2, 3, 4], [12, 4, 1], 7)
    v2 = aten.as_strided_scatter.default(b, t[:1, :1] + 1, [1, 1, 4], [99, 5, 1], 116)
    v3 = aten.as_strided_scatter.default(u, u[:, :, :0].float(), [3, 1, 0], [7, 7, 1], 21)
    v4 = aten.as_strided_scatter.default(u, (u[:2] * 2).view(14), [14], [1])
    return v0 * 2, v1, v2.float().sum(1), v3, v4


def zero_dim(s: "f32[]", e: "f32[0, 3]"):
    return torch.roll(s, 2), s.flip(0), torch.roll(e, 1, 1), e.flip(0, 1), e[:, ::2], torch.roll(s + e.sum(), 5)
