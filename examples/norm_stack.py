"""A stack of residual layers' normalizations without their matmuls: each
layer adds a scaled RMS-normed copy of the stream (pre-norm residual), the
per-layer weights come as one tensor, and the final norm closes the stack.
The layer loop is Python: coil unrolls it into one graph when compiling."""
import torch

NUM_LAYERS = 4
EPS = 1e-5


def rms_norm(x, w, eps=EPS):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def norm_stack(x: "f32[8, 256]", weights: "f32[4, 256]", final_w: "f32[256]", residual_scale=0.5):
    assert weights.shape[0] == NUM_LAYERS
    h = x.clone()  # h += ... writes into h; without the clone it would write into x too
    for i in range(NUM_LAYERS):
        h += residual_scale * rms_norm(h, weights[i])
    return rms_norm(h, final_w)


if __name__ == "__main__":
    torch.manual_seed(0)
    y = norm_stack(torch.randn(8, 256), torch.randn(4, 256), torch.randn(256))
    print(y.shape, y.dtype)
