"""Normalisations and losses composed of coil's nodes: F.group_norm,
F.batch_norm (batch statistics, and running stats in eval), F.instance_norm,
F.cosine_similarity, F.pairwise_distance, F.kl_div, F.binary_cross_entropy,
F.binary_cross_entropy_with_logits, F.poisson_nll_loss, F.soft_margin_loss,
F.hinge_embedding_loss, F.margin_ranking_loss: every reduction mode, the
options (weight, pos_weight, log_target, full, margin, eps, p, keepdim),
f32, f64, bf16, f16 and mixed dtypes, odd sizes, negative dims, values at
the edges (BCE's log clamped at -100 for 0 and 1, NaN and inf through the
norms), fused with pointwise work around them.  The comparison with
PyTorch takes no NaN in an output, so an output that may hold one comes as
its isnan() and the output with its NaNs filled."""
import warnings

import torch
import torch.nn.functional as F

# kl_div's reduction='mean' warns that it will mean 'batchmean' one day;
# both are tested here, as PyTorch computes them today
warnings.filterwarnings("ignore", message="reduction: 'mean' divides the total loss")


def seen(y):
    """y's NaNs as a mask, and y with them replaced."""
    n = y.isnan()
    return n, torch.where(n, 7.0, y)


def group_norms(x: "f32[3, 6, 5, 7]", w: "f32[6]", b: "f32[6]", v: "f32[4, 6]", y: "f32[2, 9, 11]"):
    return (F.group_norm(x, 3, w, b), F.group_norm(x, 1), F.group_norm(x, 6, weight=w), F.group_norm(x, 2, bias=b, eps=0.1),
            F.group_norm(v, 3, w, b), F.group_norm(y, 3), F.silu(F.group_norm(x * 4 + 2, 2, w, b)),
            F.group_norm(x, 3, w, b).mean((2, 3)))


def batch_norms(x: "f32[4, 6, 5]", w: "f32[6]", b: "f32[6]", rm: "f32[6]", rv: "f32[6] uniform(0.5, 2)", v: "f32[7, 6]"):
    return (F.batch_norm(x, None, None, w, b, training=True), F.batch_norm(x, None, None, training=True, eps=0.01),
            F.batch_norm(v, None, None, w, b, True), F.batch_norm(x, rm, rv, w, b), F.batch_norm(x, rm, rv, training=False, momentum=0.3),
            F.batch_norm(v, rm, rv, bias=b), F.relu(F.batch_norm(x * 3 - 1, None, None, w, b, training=True)) + x,
            F.batch_norm(x[:, :, ::2], None, None, w, b, training=True).sum(-1))


def instance_norms(x: "f32[3, 4, 5, 6]", w: "f32[4]", b: "f32[4]", rm: "f32[4]", rv: "f32[4] uniform(0.5, 2)", y: "f32[2, 4, 9]"):
    return (F.instance_norm(x), F.instance_norm(x, weight=w, bias=b), F.instance_norm(y, eps=0.1, weight=w),
            F.instance_norm(x, rm, rv, w, b, use_input_stats=False), F.instance_norm(y.exp(), bias=b) * y)


def norms_dtypes(h: "bf16[4, 6, 5]", g: "f16[3, 4, 7]", d: "f64[3, 4, 7]", w: "f32[6]", wh: "bf16[6]", rm: "f32[6]", rv: "f32[6] uniform(0.5, 2)"):
    return (F.group_norm(h, 3, w), F.batch_norm(h, None, None, w, w, training=True), F.batch_norm(h, rm, rv, w),
            F.instance_norm(g), F.group_norm(h, 2, wh, wh), F.group_norm(d, 4), F.batch_norm(d, None, None, training=True),
            F.instance_norm(d))


def norms_edges(x: "f32[2, 4, 6]", w: "f32[4]"):
    # a NaN or inf spreads through its group's (channel's) statistics only;
    # a group of zeros has variance 0 and normalises to 0 (then bias)
    x = torch.where(x > 1.5, float("nan"), x)
    x = torch.where(x < -1.8, float("inf"), x)
    c = torch.zeros(2, 4, 6)
    return (seen(F.group_norm(x, 2, w)) + seen(F.batch_norm(x, None, None, w, training=True)) + seen(F.instance_norm(x)) +
            (F.group_norm(c, 2, w, w), F.batch_norm(c, None, None, training=True)))


def similarities(a: "f32[4, 6, 5]", b: "f32[4, 6, 5]", c: "f32[6, 1]", i: "i32[4, 6]", j: "i64[4, 6]"):
    return (F.cosine_similarity(a, b), F.cosine_similarity(a, b, dim=-1), F.cosine_similarity(a, b, 0, eps=0.5),
            F.cosine_similarity(a, c), torch.cosine_similarity(a * 1e-9, b), F.cosine_similarity(a * 0, b),
            F.pairwise_distance(a, b), F.pairwise_distance(a, b, p=1, keepdim=True), F.pairwise_distance(a, c, p=float("inf")),
            torch.pairwise_distance(a, b, 3.0, 0.0), F.pairwise_distance(a, b, 0.5, eps=1e-3), F.pairwise_distance(i, j),
            1 - F.cosine_similarity(a.exp(), b, -2))


def similarities_dtypes(h: "bf16[3, 8]", g: "f16[3, 8]", d: "f64[3, 8]", f: "f32[3, 8]"):
    return (F.cosine_similarity(h, h * 2 + 1), F.cosine_similarity(g, g.flip(1)), F.cosine_similarity(d, f),
            F.pairwise_distance(h, h.flip(0)), F.pairwise_distance(g, g * 3), F.pairwise_distance(d, f, p=1))


def bce(x: "f32[5, 7]", t: "f32[5, 7] uniform(0, 1)", w: "f32[7] uniform(0, 2)", pw: "f32[7] uniform(0.5, 3)"):
    p = x.sigmoid()
    # 0 and 1 among the probabilities: log(0) is clamped at -100
    q = torch.where(x > 1.0, 1.0, torch.where(x < -1.0, 0.0, p))
    out = []
    for r in ["mean", "sum", "none"]:
        out = out + [F.binary_cross_entropy(p, t, reduction=r), F.binary_cross_entropy(q, t, w, reduction=r),
                     F.binary_cross_entropy(q, (t > 0.5).float(), reduction=r),
                     F.binary_cross_entropy_with_logits(x, t, reduction=r), F.binary_cross_entropy_with_logits(x * 40, t, w, reduction=r),
                     F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction=r),
                     F.binary_cross_entropy_with_logits(x * 100, t, weight=w, pos_weight=pw, reduction=r)]
    return tuple(out + [F.binary_cross_entropy(p, t) + F.mse_loss(p, t)])


def kl_poisson(x: "f32[4, 6]", t: "f32[4, 6] uniform(0, 1)", y: "f32[4, 6]", c: "f32[4, 6] uniform(0, 6)"):
    zt = torch.where(t < 0.2, 0.0, t)  # zeros in the target: xlogy gives 0 there
    out = []
    for r in ["mean", "sum", "none", "batchmean"]:
        out = out + [F.kl_div(F.log_softmax(x, 1), zt, reduction=r), F.kl_div(x, y, reduction=r, log_target=True)]
    for r in ["mean", "sum", "none"]:
        out = out + [F.poisson_nll_loss(x, c, reduction=r), F.poisson_nll_loss(x.exp(), c, log_input=False, reduction=r),
                     F.poisson_nll_loss(x, c.floor(), full=True, reduction=r),
                     F.poisson_nll_loss(t, c, log_input=False, full=True, eps=0.01, reduction=r)]
    return tuple(out)


def margins(x: "f32[5, 6]", y: "f32[5, 6]", s: "f32[5, 6]"):
    t = torch.where(s > 0, 1.0, -1.0)
    out = []
    for r in ["mean", "sum", "none"]:
        out = out + [F.soft_margin_loss(x, t, reduction=r), F.soft_margin_loss(x * 50, t, reduction=r),
                     F.hinge_embedding_loss(x, t, reduction=r), F.hinge_embedding_loss(x.abs(), t, margin=0.5, reduction=r),
                     F.margin_ranking_loss(x, y, t, reduction=r), F.margin_ranking_loss(x, y, t, margin=0.3, reduction=r)]
    return tuple(out + [F.margin_ranking_loss(x[0], y[1], t[2]), F.hinge_embedding_loss(x, t[0])])


def losses_dtypes(h: "bf16[4, 6]", th: "bf16[4, 6] uniform(0, 1)", g: "f16[5, 3]", tg: "f16[5, 3] uniform(0, 1)", d: "f64[3, 4]",
                  td: "f64[3, 4] uniform(0, 1)"):
    return (F.binary_cross_entropy(h.sigmoid(), th), F.binary_cross_entropy_with_logits(h, th, reduction="none"),
            F.binary_cross_entropy_with_logits(g, tg), F.soft_margin_loss(g, tg), F.kl_div(g, tg, reduction="sum"),
            F.binary_cross_entropy(d.sigmoid(), td, reduction="sum"), F.binary_cross_entropy_with_logits(d, td),
            F.kl_div(d, td, reduction="batchmean"), F.poisson_nll_loss(d, td), F.hinge_embedding_loss(d, td * 2 - 1),
            F.margin_ranking_loss(h, h.flip(0), th), F.poisson_nll_loss(h, th, reduction="none"))


def losses_edges(x: "f32[4, 5]", t: "f32[4, 5] uniform(0, 1)"):
    # NaN and inf inputs: BCE's clamp keeps a NaN (max(NaN, -100) is NaN)
    e = torch.where(x > 1.5, float("nan"), torch.where(x < -1.5, float("inf"), x))
    return (seen(F.binary_cross_entropy(e.sigmoid(), t, reduction="none")) + seen(F.binary_cross_entropy_with_logits(e, t, reduction="none")) +
            seen(F.soft_margin_loss(e, t, reduction="none")) + seen(F.kl_div(e, t, reduction="none")))
