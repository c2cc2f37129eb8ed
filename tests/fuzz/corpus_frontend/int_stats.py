"""Integer token statistics: an int32 histogram-ish tensor summed (int32.sum
gives int64), its max and min along an axis (they stay int32), an integer
product over a short axis (int64), and the mean after a cast to float."""
import torch


def int_stats(counts: "i32[64, 100] arange", small: "i64[64, 5] ones"):
    total = counts.sum(dim=1)
    hi = counts.amax(dim=0)
    lo = torch.amin(counts, 0, keepdim=True)
    prod = (small + 1).prod(dim=1)
    mean = counts.float().mean(dim=1)
    frac = counts / total.unsqueeze(1)
    return total, hi, lo, prod, mean, frac


if __name__ == "__main__":
    c = torch.arange(6400, dtype=torch.int32).view(64, 100)
    out = int_stats(c, torch.ones(64, 5, dtype=torch.int64))
    print([(o.dtype, tuple(o.shape)) for o in out])
