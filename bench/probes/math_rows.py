# Bench probe, not in make bench: build/coil bench bench/probes/math_rows.py --fn NAME, or tools/ab_bench.sh
"""Row sums over transcendentals, powers and f16: the loops that called libm
(tanhf, logf, powf) or converted f16 with branches, and so did not
vectorise, before coil's own branch-free versions.  Not in the bench suite
(bench/cases/16_entropy_f32 and 17_rms_norm_f16 are); measured with
`build/coil bench bench/probes/math_rows.py --fn NAME` (docs/bench.md)."""
import torch


def tanh_rows(x: "f32[4096, 8192]"):
    return torch.tanh(x).sum(dim=-1)


def log_rows(x: "f32[4096, 8192]"):
    return torch.log(x.abs() + 1).sum(dim=-1)


def cube_rows(x: "f32[4096, 8192]"):
    return (x ** 3).sum(dim=-1)


def f16_rows(x: "f16[4096, 8192]"):
    return x.float().sum(dim=-1)


def f16_rms_norm(x: "f16[4096, 8192]"):
    xf = x.float()
    return (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6)).half()
