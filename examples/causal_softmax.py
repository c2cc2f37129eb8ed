"""Attention probabilities from precomputed scores: the 1/sqrt(d) scale, a
causal mask filled with -inf, and a softmax in f32 for bf16 scores, as
attention code writes it around the QK^T matmul."""
import math

import torch
import torch.nn.functional as F

HEAD_DIM = 64


def attention_probs(scores: "bf16[2, 8, 128, 128]", causal: "bool[128, 128]"):
    s = scores.float() * (1.0 / math.sqrt(HEAD_DIM))
    s = s.masked_fill(causal, float("-inf"))
    return F.softmax(s, dim=-1).to(scores.dtype)


if __name__ == "__main__":
    torch.manual_seed(0)
    mask = torch.ones(128, 128, dtype=torch.bool).triu(1)
    print(attention_probs(torch.randn(2, 8, 128, 128, dtype=torch.bfloat16), mask).shape)
