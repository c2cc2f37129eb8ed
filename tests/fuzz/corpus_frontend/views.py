"""View plumbing around reductions: reshape with -1, view from x.shape,
flatten, transpose, t, unsqueeze/squeeze, expand and expand_as, with the
shape arithmetic written through x.shape[i], x.size(i) and x.ndim."""
import torch


def views(x: "f32[6, 40, 64]", bias: "f32[64]", gate: "f32[40, 1]"):
    heads = x.view(x.shape[0], x.size(1), 4, x.shape[-1] // 4)
    per_head = heads.transpose(1, 2).sum(dim=-1)
    flat = x.reshape(-1, x.shape[x.ndim - 1]).t()
    col = flat.amax(dim=1)
    g = gate.expand(40, 64).unsqueeze(0).expand_as(x)
    gated = (x * g + bias.view(1, 1, -1)).flatten(1).mean(-1)
    sq = x.unsqueeze(1).sum(dim=(2, 3)).squeeze(1)
    return per_head, col, gated, sq


if __name__ == "__main__":
    torch.manual_seed(0)
    out = views(torch.randn(6, 40, 64), torch.randn(64), torch.randn(40, 1))
    print([tuple(o.shape) for o in out])
