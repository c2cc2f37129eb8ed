"""A language model's loss, written as model code: F.cross_entropy of bf16
logits against class indices, with ignore_index (padding) and label
smoothing, as a mean over the tokens that count, and the per-token loss and
the model's probability of the right token as more outputs.  The logits are
read in one pass per row statistic; the target's log-probability is an
indexed read of the log_softmax."""
import torch
import torch.nn.functional as F

PAD = 0


def cross_entropy(logits: "bf16[64, 1000]", target: "i64[64] uniform(0, 1000)"):
    x = logits.float()
    loss = F.cross_entropy(x, target, ignore_index=PAD, label_smoothing=0.1)
    per_token = F.cross_entropy(x, target, reduction="none")
    p_right = F.softmax(x, dim=-1).gather(1, target.unsqueeze(1)).squeeze(1)
    return loss, per_token, p_right


if __name__ == "__main__":
    torch.manual_seed(0)
    logits = torch.randn(64, 1000, dtype=torch.bfloat16)
    target = torch.randint(0, 1000, (64,))
    print([t.shape for t in cross_entropy(logits, target)])
