"""The seed's rms_norm_weight_grad at small and odd sizes (the full-size case
is examples/rms_norm_weight_grad.py), and with the other permutation of the
leading axes."""
import torch


def seed_small(grad_out_base: "f32[2, 4, 3, 8]",
               q: "bf16[2, 3, 4, 8]",
               q_square_sum: "f32[2, 3, 4] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def seed_perm_1023(grad_out_base: "f32[2, 4, 3, 8]",
                   q: "bf16[4, 2, 3, 8]",
                   q_square_sum: "f32[4, 2, 3] uniform(1, 2)"):
    grad_out = grad_out_base.permute(1, 0, 2, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def seed_odd(grad_out_base: "f32[3, 7, 5, 11]",
             q: "bf16[3, 5, 7, 11]",
             q_square_sum: "f32[3, 5, 7] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def seed_f32_out(grad_out_base: "f32[3, 7, 5, 11]",
                 q: "bf16[3, 5, 7, 11]",
                 q_square_sum: "f32[3, 5, 7] uniform(1, 2)"):
    # the same sum kept in f32, so the comparison sees the accumulation itself
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    return (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
