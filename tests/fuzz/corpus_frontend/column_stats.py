"""Per-channel statistics of an NHWC activation read as NCHW: the input is
permuted so the channel axis comes first and every other axis is reduced
(a column reduction over a permuted input), the way batch norm does it."""
import torch


def column_stats(x: "f32[8, 24, 24, 96]"):
    nchw = x.permute(0, 3, 1, 2)
    count = nchw.shape[0] * nchw.shape[2] * nchw.shape[3]
    mean = nchw.sum(dim=(0, 2, 3)) / count
    var = torch.var(nchw, dim=(0, 2, 3), correction=0)
    std = nchw.std(dim=(0, 2, 3), unbiased=True)
    return mean, var, std


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(8, 24, 24, 96)
    m, v, s = column_stats(x)
    print(m.shape, (v - x.var(dim=(0, 1, 2), unbiased=False)).abs().max())
