"""Per-row absmax scaling for fp8 (e4m3) quantization: each row's scale
maps its largest magnitude to the format's largest value, the scaled values
are clamped into range.  The format's limits are module constants, picked
by name; the rows are blocks of BLOCK values of the last dimension."""
import torch

E4M3_MAX = 448.0
E5M2_MAX = 57344.0
BLOCK = 128
MIN_SCALE = 1e-12


def format_max(name):
    if name == "e4m3":
        return E4M3_MAX
    elif name == "e5m2":
        return E5M2_MAX
    raise ValueError("unknown fp8 format")


def absmax_scale(x: "bf16[16, 1024] uniform(-3, 3)", fmt="e4m3"):
    fmax = format_max(fmt)
    rows, cols = x.shape
    assert cols % BLOCK == 0, "the row length must be a multiple of BLOCK"
    xb = x.float().view(rows, cols // BLOCK, BLOCK)
    amax = xb.abs().amax(-1, keepdim=True)
    scale = amax.clamp(min=MIN_SCALE) / fmax
    q = (xb / scale).clamp(-fmax, fmax)
    return q.view(rows, cols), scale.squeeze(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    q, s = absmax_scale(torch.randn(16, 1024, dtype=torch.bfloat16))
    print(q.shape, s.shape, float(q.abs().max()))
