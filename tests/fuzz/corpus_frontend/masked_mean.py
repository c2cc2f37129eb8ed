"""Masked statistics of a padded batch: a bool mask from comparisons and
&, |, ~, torch.where to zero the masked values, a bool sum (int64 counts),
and float / int64 division."""
import torch


def masked_mean(x: "f32[32, 500]", keep: "f32[32, 500] uniform(0, 1)"):
    valid = (keep > 0.2) & ~(x.abs() > 3.0)
    outlier = (x > 2.5) | (x < -2.5)
    count = valid.sum(dim=-1)
    total = torch.where(valid, x, 0.0).sum(dim=-1)
    mean = total / count.clamp_min(1)
    n_outliers = outlier.sum(-1)
    return mean, count, n_outliers


if __name__ == "__main__":
    torch.manual_seed(0)
    m, c, n = masked_mean(torch.randn(32, 500), torch.rand(32, 500))
    print(m.dtype, c.dtype, n.dtype, m[:4], c[:4])
