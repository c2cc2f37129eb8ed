"""Losses against class indices: F.nll_loss and F.cross_entropy with
ignore_index, label_smoothing, class weights and every reduction, a
target per position ([N, C, L] inputs), one sample ([C]), probability
targets, bf16 logits; the target's log-probability is an indexed read."""
import torch
import torch.nn.functional as F


def ce_reductions(x: "f32[12, 7]", t: "i64[12] uniform(0, 7)"):
    return F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="sum"), F.cross_entropy(x, t, reduction="none")


def ce_ignore_smoothing(x: "f32[12, 7]", t: "i64[12] uniform(0, 7)"):
    t = torch.where(t == 3, -100, t)
    return (F.cross_entropy(x, t), F.cross_entropy(x, torch.where(t < 0, 5, t), ignore_index=5, reduction="none"),
            F.cross_entropy(x, t, label_smoothing=0.2), F.cross_entropy(x, t, label_smoothing=0.1, reduction="none"),
            F.cross_entropy(x, t, label_smoothing=0.3, reduction="sum"))


def ce_weights(x: "f32[10, 6]", t: "i64[10] uniform(0, 6)", w: "f32[6] uniform(0.5, 2)"):
    t = torch.where(t == 2, 1, t)
    return (F.cross_entropy(x, t, weight=w), F.cross_entropy(x, t, w, reduction="sum"),
            F.cross_entropy(x, t, weight=w, label_smoothing=0.25), F.cross_entropy(x, t, weight=w, ignore_index=0, reduction="none"),
            F.cross_entropy(x, t, weight=w, ignore_index=1, label_smoothing=0.1))


def ce_spatial(x: "f32[3, 5, 4, 2]", t: "i64[3, 4, 2] uniform(0, 5)"):
    return F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="none"), F.nll_loss(F.log_softmax(x, 1), t, reduction="sum")


def ce_one_sample(x: "f32[9]", t: "i64[] uniform(0, 9)"):
    return F.cross_entropy(x, t), F.nll_loss(x.log_softmax(0), t)


def ce_probabilities(x: "f32[8, 5]", p: "f32[8, 5]", w: "f32[5] uniform(0.5, 2)"):
    q = p.softmax(-1)
    return (F.cross_entropy(x, q), F.cross_entropy(x, q, reduction="none"), F.cross_entropy(x, q, weight=w, label_smoothing=0.2),
            F.cross_entropy(x, q, reduction="sum"))


def ce_bf16(x: "bf16[16, 33]", t: "i64[16] uniform(0, 33)"):
    return F.cross_entropy(x, t), F.cross_entropy(x.float(), t, label_smoothing=0.1)


def nll_forms(lp: "f32[11, 6]", t: "i64[11] uniform(0, 6)", w: "f32[6] uniform(0.5, 2)"):
    t = torch.where(t == 4, -1, t)
    return (F.nll_loss(lp, t, ignore_index=-1), F.nll_loss(lp, t, weight=w, ignore_index=-1),
            F.nll_loss(lp, t, reduction="none", ignore_index=-1))
