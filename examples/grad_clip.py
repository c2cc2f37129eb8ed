"""Gradient clipping by global norm (torch.nn.utils.clip_grad_norm_'s math)
over three gradients at once: each one's 2-norm, the total, the clip
coefficient and the scaled gradients."""
import torch

MAX_NORM = 1.0


def clip(g1: "f32[512, 256]", g2: "f32[256]", g3: "f32[1024, 64]"):
    total_sq = 0.0
    for g in (g1, g2, g3):
        total_sq = total_sq + torch.linalg.vector_norm(g) ** 2
    total = total_sq.sqrt()
    coef = torch.clamp(MAX_NORM / (total + 1e-6), max=1.0)
    return total, g1 * coef, g2 * coef, g3 * coef


if __name__ == "__main__":
    torch.manual_seed(0)
    print(clip(torch.randn(512, 256), torch.randn(256), torch.randn(1024, 64))[0])
