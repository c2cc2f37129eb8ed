"""The seed case with its f32 sum returned before the cast to bf16, so the
precision of the long (524288-term) sum can be checked against float64."""
import torch


def rms_norm_weight_grad_f32(grad_out_base: "f32[2, 64, 4096, 128]",
                             q: "bf16[2, 4096, 64, 128]",
                             q_square_sum: "f32[2, 4096, 64] uniform(1, 2)"):
    grad_out = grad_out_base.permute(0, 2, 1, 3)
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    return (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
