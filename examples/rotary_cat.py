"""Rotary position embedding as Hugging Face's Llama writes it: the cos and
sin tables repeated over both halves of the head (torch.cat((freqs,
freqs), -1)), and rotate_half, torch.cat((-x2, x1), -1), so that q * cos +
rotate_half(q) * sin rotates each pair (i, i + d/2).  The cats are index
values and guarded loads: one kernel reads q, k and the tables once."""
import torch


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q: "bf16[2, 8, 128, 64]", k: "bf16[2, 2, 128, 64]", freqs: "f32[128, 32]"):
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(q.dtype), emb.sin().to(q.dtype)
    q_embed = q * cos + rotate_half(q) * sin
    k_embed = k * cos + rotate_half(k) * sin
    return q_embed, k_embed


if __name__ == "__main__":
    torch.manual_seed(0)
    q, k = torch.randn(2, 8, 128, 64).bfloat16(), torch.randn(2, 2, 128, 64).bfloat16()
    freqs = torch.outer(torch.arange(128.0), 10000.0 ** (-torch.arange(0, 64, 2) / 64))
    print([t.shape for t in apply_rotary(q, k, freqs)])
