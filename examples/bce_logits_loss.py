"""A multi-label classifier's loss: binary cross-entropy on the logits with
a per-class positive weight (for rare labels) and a per-sample mask of the
labels that were annotated, averaged over the annotated ones; log-sigmoid
is computed as min(x, 0) - log1p(exp(-|x|)), so large logits neither
overflow nor lose the loss."""
import torch
import torch.nn.functional as F


def bce_logits_loss(logits: "f32[256, 40]", labels: "f32[256, 40] uniform(0, 1)", pos_weight: "f32[40] uniform(1, 4)",
                    annotated: "f32[256, 40] uniform(0, 1)"):
    y = (labels > 0.7).float()
    mask = (annotated > 0.1).float()
    loss = F.binary_cross_entropy_with_logits(logits * 4, y, weight=mask, pos_weight=pos_weight, reduction="sum")
    return loss / mask.sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    print(bce_logits_loss(torch.randn(256, 40), torch.rand(256, 40), torch.rand(40) * 3 + 1, torch.rand(256, 40)))
