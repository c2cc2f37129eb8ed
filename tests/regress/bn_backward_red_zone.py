# A batch norm's backward over a small spatial size (EfficientNet's last
# blocks on 64 x 64 images: [2, 320, 2, 2]) crashed the C kernel that sums
# g * (x - mean) per channel: gcc 12.2 with -march=native on an AVX-512 CPU
# put its accumulator tile (float acc0[20]) in the leaf function's red zone
# at 8 mod 16 and zeroed the last 16 bytes with an aligned vmovdqa.  The C
# kernels now build with -mno-red-zone on x86-64 (src/cpu/jit.c).  Found
# training timm's efficientnet_b0 under torch.compile(backend="coil").
import torch


def bn_backward(x: "f32[2, 320, 2, 2]", g: "f32[2, 320, 2, 2]", weight: "f32[320]"):
    var, mean = torch.var_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
    rstd = torch.rsqrt(var + 1e-5)
    sum_g = g.sum(dim=(0, 2, 3))
    dot = (g * (x - mean)).sum(dim=(0, 2, 3))
    n = x.numel() / x.shape[1]
    proj = (x - mean) * (dot / n * rstd.view(-1) ** 2).view(1, -1, 1, 1)
    dx = (g - proj - (sum_g / n).view(1, -1, 1, 1)) * (rstd.view(-1) * weight).view(1, -1, 1, 1)
    return sum_g, dot, dx
