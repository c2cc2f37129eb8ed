"""Mixed half types: bf16 and f16 operands promote to f32 together, a
python float keeps a bf16 tensor bf16, a bf16 sum returns bf16 (accumulated
in f32), and casts back and forth with .to(dtype), .half(), .double() and
type_as."""
import torch


def mixed_precision(a: "bf16[48, 320]", b: "f16[48, 320]", scale: "f32[320] uniform(0.5, 1.5)"):
    both = a + b
    scaled = (a * 0.5).sum(dim=1)
    as_half = (a.to(torch.float16) * b).float().amax(dim=1)
    ref = (both * scale).double().mean(dim=0)
    back = (scale.type_as(a) * a).to(dtype=torch.float32).sum(0)
    return both.amin(1), scaled, as_half, ref, back.half()


if __name__ == "__main__":
    torch.manual_seed(0)
    out = mixed_precision(torch.randn(48, 320, dtype=torch.bfloat16),
                          torch.randn(48, 320, dtype=torch.float16),
                          torch.rand(320) + 0.5)
    print([(o.dtype, tuple(o.shape)) for o in out])
