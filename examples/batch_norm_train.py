"""BatchNorm2d in training mode on NCHW activations: the batch statistics
over (N, H, W) from one pass (var_mean), the normalised output with its
affine parameters, and the unbiased variance that updates running_var."""
import torch

BN_EPS = 1e-5


def batch_norm_train(x: "f32[16, 32, 28, 28]", weight: "f32[32]", bias: "f32[32]"):
    var, mean = torch.var_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
    y = (x - mean) * torch.rsqrt(var + BN_EPS) * weight.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1)
    n = x.numel() / x.shape[1]
    return y, mean.flatten(), (var * (n / (n - 1))).flatten()


if __name__ == "__main__":
    torch.manual_seed(0)
    y, m, v = batch_norm_train(torch.randn(16, 32, 28, 28), torch.randn(32), torch.randn(32))
    print(y.shape, m.shape, v.shape)
