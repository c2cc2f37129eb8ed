"""Inputs that are views of a larger storage, as a torch.compile backend
hands them over: the annotation's stride(...) gives the caller's strides
(in elements), and coil reads the storage in place.  Transposed, expanded
(stride 0), every other row of a buffer, a sliding window whose rows
overlap, and the seed with its permuted input passed as the view itself;
beside contiguous inputs, with reductions and pointwise outputs, and
returned as they are (a copy into a contiguous output)."""
import torch


def transposed(w: "f32[6, 5] stride(1, 6)", x: "f32[6, 5]"):
    # w is a [5, 6] weight, transposed
    return w.sum(0), w.amax(1), w * x + 1, w


def expanded(x: "f32[4, 7]", bias: "f32[4, 7] stride(0, 1)", scale: "f32[4, 7] stride(1, 0) uniform(0.5, 1.5)"):
    # bias: one row of 7 expanded over 4 rows; scale: a column of 4 expanded over 7
    y = x * scale + bias
    return y, y.sum(1), (x + bias).amax(0), bias.sum()


def every_other_row(x: "f32[5, 9] stride(18, 1)", y: "f32[5, 9]"):
    # rows 0, 2, .., 8 of a [10, 9] buffer
    return x.sum(1), torch.exp(x) - y, x.mean(0), x


def sliding_window(x: "f32[4, 5] stride(2, 1) arange"):
    # windows of 5 that start 2 apart and overlap: what unfold gives
    return x * 1.5, x.sum(1), x.amax(0)


def seed_permuted_view(grad_out: "bf16[2, 3, 4, 8] stride(96, 8, 24, 1)",
                       q: "bf16[2, 3, 4, 8]",
                       q_square_sum: "f32[2, 3, 4] uniform(1, 2)"):
    # the seed with grad_out handed over as the permuted view of a
    # (batch, heads, seq, head_dim) buffer: a sum over three axes, two of
    # which it reads in another order
    inv_rms = torch.rsqrt(q_square_sum.unsqueeze(-1) / q.shape[-1] + 1e-6)
    grad_weight = (grad_out.float() * q.float() * inv_rms).sum(dim=(0, 1, 2))
    return grad_weight.to(torch.bfloat16)


def strided_then_viewed(x: "f32[3, 4, 5] stride(1, 15, 3)"):
    # views of a strided input: a reshape goes through the flat index, a
    # permute back to the storage's order reads it contiguously
    return x.reshape(12, 5).sum(0), x.permute(1, 2, 0).sum(2), x.flatten()


def half_columns(x: "f16[33, 40] stride(1, 33)", b: "bf16[33, 40] uniform(1, 2) stride(41, 1)"):
    # 16-bit loads whose rows are not contiguous (no staged conversions
    # along them), and a bf16 slice of a wider buffer
    return x.float().sum(1), (b * 2).amax(1), x + b.to(torch.float16)


def int_transposed(x: "i32[4, 6] stride(1, 4) arange", y: "i64[4, 6] stride(0, 0)"):
    return x.sum(1), x * 3 - y, (x > 10).sum(0)
