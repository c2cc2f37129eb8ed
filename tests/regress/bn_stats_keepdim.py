# A batch norm's statistics returned with keepdim ([1, C, 1, 1], no
# flatten): the C for the variance's kernel read the mean's buffer at x0
# outside the loop that declares x0 ("'x0' undeclared": cc failed on the
# generated code, from coil run and from the backend).  The C printer's
# epilogue asked what varies along the last group's r axis instead of the
# tile's x axis.  Found timing Llama's groups against Inductor.
import torch


def bn_stats_keepdim(x: "f32[16, 32, 28, 28]", weight: "f32[32]", bias: "f32[32]"):
    var, mean = torch.var_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
    y = (x - mean) * torch.rsqrt(var + 1e-5) * weight.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1)
    n = x.numel() / x.shape[1]
    return y, mean, var * (n / (n - 1))
