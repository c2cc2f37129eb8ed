"""A BERT/ViT block's pointwise work around its matmuls: the residual add,
LayerNorm with its affine parameters, and the exact (erf) GELU of the MLP's
hidden activation, as torch.nn.functional spells them."""
import torch
import torch.nn.functional as F

LN_EPS = 1e-12  # BERT's


def block_pointwise(x: "f32[4, 128, 256]", attn_out: "f32[4, 128, 256]", ln_w: "f32[256]", ln_b: "f32[256]",
                    hidden: "f32[4, 128, 1024]"):
    h = F.layer_norm(x + attn_out, (x.shape[-1],), ln_w, ln_b, eps=LN_EPS)
    return h, F.gelu(hidden)


if __name__ == "__main__":
    torch.manual_seed(0)
    h, g = block_pointwise(torch.randn(4, 128, 256), torch.randn(4, 128, 256), torch.randn(256), torch.randn(256),
                           torch.randn(4, 128, 1024))
    print(h.shape, g.shape)
