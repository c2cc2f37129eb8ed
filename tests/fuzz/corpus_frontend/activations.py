"""Activation chains reduced per row: tanh-approximated GELU, SiLU through
sigmoid, relu, clamp with both bounds, clamp_max, and the elementwise
maximum/minimum of two of them, summed or max-reduced along the hidden axis."""
import torch


def activations(x: "f32[128, 768]"):
    gelu = 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    silu = x * torch.sigmoid(x)
    r = torch.relu(x - 0.5)
    c = x.clamp(min=-1.0, max=1.0)
    top = torch.maximum(gelu, silu).amax(dim=-1)
    bottom = torch.minimum(c, r.clamp_max(0.25)).sum(-1)
    energy = (gelu.square() + silu.abs()).mean(dim=1)
    return top, bottom, energy


if __name__ == "__main__":
    torch.manual_seed(0)
    for o in activations(torch.randn(128, 768)):
        print(o.shape, o[:3])
