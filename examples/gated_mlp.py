"""A transformer block's MLP around its matmuls: RMSNorm of the residual
stream before the up projection, and the SiLU-gated activation between the
projections (gate and up come fused from one projection, as in Llama).
Helpers, a module constant and keyword defaults, as model code has them."""
import torch
import torch.nn.functional as F

RMS_EPS = 1e-6


def rms_norm(x, weight, eps=RMS_EPS):
    """In f32, rounded back to the input's dtype."""
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * weight).to(x.dtype)


def split_last(t):
    half = t.shape[-1] // 2
    return t[..., :half], t[..., half:]


def swiglu(gate_up):
    gate, up = split_last(gate_up)
    return F.silu(gate) * up


def mlp_pointwise(x: "bf16[2, 64, 512]", gate_up: "bf16[2, 64, 2048]", norm_weight: "f32[512]"):
    return rms_norm(x, norm_weight), swiglu(gate_up)


if __name__ == "__main__":
    torch.manual_seed(0)
    h, a = mlp_pointwise(torch.randn(2, 64, 512, dtype=torch.bfloat16),
                         torch.randn(2, 64, 2048, dtype=torch.bfloat16), torch.randn(512))
    print(h.shape, h.dtype, a.shape, a.dtype)
