"""RMS norm forward on bf16 activations: statistics in f32, result in bf16,
and the inverse rms kept as a second output for the backward pass."""
import torch


def rms_norm(x: "bf16[4, 128, 512]", weight: "f32[512]"):
    xf = x.float()
    variance = (xf ** 2).mean(-1, keepdim=True)
    inv_rms = torch.rsqrt(variance + 1e-6)
    y = (xf * inv_rms) * weight
    return y.to(torch.bfloat16), inv_rms.squeeze(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    y, r = rms_norm(torch.randn(4, 128, 512, dtype=torch.bfloat16), torch.randn(512))
    print(y.shape, y.dtype, r.shape)
