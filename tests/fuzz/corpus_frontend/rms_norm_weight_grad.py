"""The seed case: the weight gradient of an RMS norm applied per head.

grad_out arrives as (batch, heads, seq, head_dim) and is permuted to q's
layout (batch, seq, heads, head_dim); the sum runs over three axes (0, 1, 2)
of which the permuted input reads two in another order.  Run this file with
python3 to compute it with PyTorch on the CPU."""
import torch


def rms_norm_weight_grad(grad_out_base: "f32[2, 64, 4096, 128]",
                         q: "bf16[2, 4096, 64, 128]",
                         q_square_sum: "f32[2, 4096, 64] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def main():
    batch, seq, heads, head_dim = 2, 4096, 64, 128
    torch.manual_seed(0)
    grad_out_base = torch.randn((batch, heads, seq, head_dim), dtype=torch.float32)
    q = torch.randn((batch, seq, heads, head_dim), dtype=torch.bfloat16)
    q_square_sum = torch.rand((batch, seq, heads), dtype=torch.float32) + 1.0
    out = rms_norm_weight_grad(grad_out_base, q, q_square_sum)
    print(f"out.shape={tuple(out.shape)}, dtype={out.dtype}")
    print(f"out[:8]={out[:8]}")


if __name__ == "__main__":
    main()
