"""Sampling probabilities from logits: temperature from a module constant,
an optional logit soft-cap (Gemma's tanh cap) chosen by a Python default,
and the log-probabilities beside the probabilities."""
import torch
import torch.nn.functional as F

TEMPERATURE = 0.7
SOFT_CAP = 30.0


def soft_cap(logits, cap):
    return torch.tanh(logits / cap) * cap


def sample_probs(logits: "f32[8, 1000] uniform(-40, 40)", use_cap=True, temperature=TEMPERATURE):
    z = logits.float()
    if use_cap and SOFT_CAP is not None:
        z = soft_cap(z, SOFT_CAP)
    if temperature != 1.0:
        z /= temperature
    return F.softmax(z, dim=-1), F.log_softmax(z, dim=-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    p, lp = sample_probs(torch.rand(8, 1000) * 80 - 40)
    print(p.shape, float(p.sum(-1)[0]), lp.shape)
