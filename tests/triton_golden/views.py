"""Loads that need // and % (a reshape across a permute), two reduction
groups in one kernel, and a multi-axis reduction read against memory order
(the NPU dialect loads it in memory order and permutes)."""
import torch


def views(x: "f32[4, 6, 10]", gate: "f32[6]", y: "f32[5, 3, 7, 2]"):
    p = x.permute(0, 2, 1).reshape(4, 60)
    g = x * gate.unsqueeze(-1)
    return p.sum(1) + g.reshape(4, 60).amax(1), y.permute(3, 1, 0, 2).sum(dim=(2, 3))
