"""A contrastive embedding loss: the cosine similarity of each pair of
embeddings (each norm clamped at eps, as PyTorch's), 1 - cos for the
pairs that match and max(0, cos - margin) for the others, averaged; and the
pairs' L2 distance for logging."""
import torch
import torch.nn.functional as F

MARGIN = 0.2


def cosine_loss(a: "f32[512, 96]", b: "f32[512, 96]", same: "f32[512] uniform(0, 1)"):
    cos = F.cosine_similarity(a, b, dim=-1)
    match = same > 0.5
    loss = torch.where(match, 1 - cos, (cos - MARGIN).clamp_min(0)).mean()
    return loss, F.pairwise_distance(a, b).mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    print(cosine_loss(torch.randn(512, 96), torch.randn(512, 96), torch.rand(512)))
