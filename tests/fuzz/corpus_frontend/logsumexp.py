"""logsumexp over two trailing axes of attention-like scores (12 heads of
257 positions each), both reductions spanning the axes (1, 2) together."""
import torch


def logsumexp_2d(scores: "f32[16, 12, 257]"):
    m = scores.amax(dim=(1, 2))
    z = torch.exp(scores - m.view(-1, 1, 1))
    return torch.log(z.sum(dim=(-2, -1))) + m


if __name__ == "__main__":
    torch.manual_seed(0)
    s = torch.randn(16, 12, 257)
    print((logsumexp_2d(s) - torch.logsumexp(s, dim=(1, 2))).abs().max())
