"""A classifier's metrics, written as model code: top-1 accuracy of bf16
logits against class indices (argmax, the first index on ties, as
PyTorch), the mean confidence of the predicted class, and the
cross-entropy loss, with padding targets left out of all three."""
import torch
import torch.nn.functional as F

IGNORE = -100


def metrics(logits: "bf16[256, 100]", target: "i64[256] uniform(0, 100)"):
    x = logits.float()
    target = torch.where(target % 17 == 0, IGNORE, target)  # some padding
    keep = target != IGNORE
    pred = x.argmax(dim=-1)
    conf, _ = F.softmax(x, dim=-1).max(dim=-1)
    n = keep.sum()
    accuracy = ((pred == target) & keep).sum() / n
    confidence = torch.where(keep, conf, 0.0).sum() / n
    return accuracy, confidence, F.cross_entropy(x, target, ignore_index=IGNORE)


if __name__ == "__main__":
    torch.manual_seed(0)
    print(metrics(torch.randn(256, 100, dtype=torch.bfloat16), torch.randint(0, 100, (256,))))
