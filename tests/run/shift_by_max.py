"""x - amax(x) is <= 0 (or NaN), so the exp after it checks its fast form's
range on one side only (graph_nonpositive; the kernel dump marks the value
"(<= 0)", the C uses c_expf_nonpos_key).  These rows reach past that range:
differences below -87 (-708 in f64), where only the exact exp is right,
-inf entries, and a NaN row.  The amin of the exps shows a wrong one: the
fast form's 2^k wraps there (an f32 of -2^111 and the like), where a sum
would hide it under the row's 1."""
import torch


def exp_shift_far_f32(x: "f32[16, 300] uniform(-1, 1)"):
    z = torch.where(x > 0.97, x * 0 - torch.inf, x * 60)
    z = torch.where((x[:, :1] > 0.9) & (x > 0.99), x * 0 + torch.nan, z)
    e = (z - z.amax(-1, keepdim=True)).exp()
    return e.amin(-1), e.sum(-1), e.amax(-1)


def exp_shift_far_f64(x: "f64[8, 200] uniform(-1, 1)"):
    z = torch.where(x > 0.97, x * 0 - torch.inf, x * 500)
    e = (z - z.amax(0, keepdim=True)).exp()
    return e.amin(0), e.sum(0)


def softmax_far_bf16(x: "bf16[12, 520] uniform(-1, 1)"):
    z = x.float() * 70
    m = z.amax(-1, keepdim=True)
    return torch.log((z - m).exp().sum(-1)) + m.squeeze(-1), torch.softmax(z, -1).amin(-1)


def exp_shift_just_past_f32(x: "f32[16, 300] uniform(-1, 1)"):
    # differences down to -94: past the fast form's -87, but no chunk has one
    # far enough (below -104) to send it to the exact exp for another reason
    z = x * 47
    e = (z - z.amax(-1, keepdim=True)).exp()
    return e.amin(-1), e.sum(-1)


def exp_shift_just_past_f64(x: "f64[8, 300] uniform(-1, 1)"):
    z = x * 362  # differences down to about -718: past -708, above -724
    e = (z - z.amax(-1, keepdim=True)).exp()
    return e.amin(-1), e.sum(-1)


def exp_shift_by_min_f32(x: "f32[16, 300] uniform(-1, 1)"):
    # x - amin(x) is >= 0, not <= 0: the exp checks both sides (here up to
    # 94, past 88.7, where e^x is inf)
    z = x * 47
    e = (z - z.amin(-1, keepdim=True)).exp()
    return e.amax(-1), e.sum(-1)
