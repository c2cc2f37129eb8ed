# coil: dump -d graph,fuse,simplify,schedule
# The seed with grad_out handed over as the permuted view it is (a
# torch.compile backend passes views, not copies): its stride(...) gives
# the loads the same affine indices, and so the same kernel and schedule,
# as the permute written in the function (seed_kernel.py).
import torch


def rms_norm_weight_grad(grad_out: "f32[2, 4096, 64, 128] stride(33554432, 128, 524288, 1)",
                         q: "bf16[2, 4096, 64, 128]",
                         q_square_sum: "f32[2, 4096, 64] uniform(1, 2)"):
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)
