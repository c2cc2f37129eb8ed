"""Rotary position embedding of queries and keys (GPT-NeoX layout: the
first half of each head rotates with the second).  The angle table is
computed in the kernel from the positions and the frequency index, with
the base as a module constant; the two rotated halves are the outputs (the
caller concatenates them)."""
import torch

ROPE_BASE = 10000.0


def angles(pos, idx, head_dim):
    inv_freq = torch.pow(ROPE_BASE, -(idx * 2 / head_dim))
    return pos.unsqueeze(-1) * inv_freq


def rotate(x, cos, sin):
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]
    return x1 * cos - x2 * sin, x2 * cos + x1 * sin


def rope(q: "f32[2, 4, 64, 32]", k: "f32[2, 4, 64, 32]", pos: "f32[64] arange", idx: "f32[16] arange"):
    theta = angles(pos, idx, q.shape[-1])
    cos, sin = theta.cos(), theta.sin()
    q1, q2 = rotate(q, cos, sin)
    k1, k2 = rotate(k, cos, sin)
    return q1, q2, k1, k2


if __name__ == "__main__":
    torch.manual_seed(0)
    outs = rope(torch.randn(2, 4, 64, 32), torch.randn(2, 4, 64, 32), torch.arange(64.0), torch.arange(16.0))
    print([o.shape for o in outs])
