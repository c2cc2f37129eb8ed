# The fast forms of exp, log and sigmoid (CSched.fast_math): a chunk runs with them
# first and runs again with the exact functions when any value was off their
# range (an exp argument beyond +-87, a log argument that is zero, negative,
# subnormal, inf or NaN).  Here rows and chunks of both kinds side by side:
# an exp sum over rows of which about half hold an argument beyond 87
# (overflow to inf, or terms rounding to subnormals); a softmax with some
# rows spread past 87; a logsumexp over bf16 with two chunks a row (4096 +
# 904), a few holding one very negative score; entropies whose rows hold a
# negative or a zero probability (NaN; 0 * -inf) or not, with tails (rows
# of 300 = 4 blocks of 64 + 44); an exp rounded to bf16 (all in range); a
# sigmoid sum over rows half of which hold an argument beyond +-87.
# Columns (x-vectorised, blocks of 256 r points run again): an entropy, a
# logsumexp and an exp sum (8 r points per pass of a 1024-wide x loop), in
# each about half the blocks holding one value off range.  f64 (c_expd_fast,
# c_logd_fast, c_sigmoidd_fast; their ranges are |x| <= 708 and normal x):
# rows of exp with about half holding an argument past 708, an entropy with
# negative or subnormal probabilities in some rows, a sigmoid over columns.
# equal-nan
import torch


def fast_math_fallback(x: "f32[256, 64] uniform(-88, 88)", s: "f32[128, 64] uniform(-50, 40)",
                       y: "bf16[16, 5000] uniform(-40, 40)", m: "f32[16, 5000] uniform(0, 1)",
                       p: "f32[512, 300] uniform(-0.002, 1)", q: "f32[256, 300] uniform(0, 1)",
                       b: "bf16[64, 200] uniform(-80, 10)", g: "f32[128, 64] uniform(-88, 88)",
                       ca: "f32[1000, 40] uniform(-0.00005, 1)", cb: "f32[600, 48] uniform(-40, 40)",
                       cm: "f32[600, 48] uniform(0, 1)", ce: "f32[700, 1024] uniform(-80, 80)",
                       cem: "f32[700, 1024] uniform(0, 1)", de: "f64[128, 64] uniform(-709, 709)",
                       dp: "f64[256, 300] uniform(-0.002, 1)", dq: "f64[256, 300] uniform(0, 1)",
                       ds: "f64[700, 40] uniform(-700, 700)", dsm: "f64[700, 40] uniform(0, 1)"):
    rare = torch.where(m > 0.9999, -60.0, y.float())
    z = torch.where(q < 0.001, 0.0, q)
    return (torch.exp(x).sum(-1), torch.softmax(s, dim=-1), torch.logsumexp(rare, dim=-1),
            -(p * torch.log(p)).sum(-1), torch.log(z).sum(-1), torch.exp(b).sum(-1),
            torch.sigmoid(g).sum(-1), -(ca * torch.log(ca)).sum(0),
            torch.logsumexp(torch.where(cm > 0.99995, -60.0, cb), dim=0),
            torch.exp(torch.where(cem > 0.999997, 100.0, ce)).sum(0), torch.exp(de).sum(-1),
            -(dp * torch.log(torch.where(dq < 0.001, dq * 1e-308, dp))).sum(-1),
            torch.sigmoid(torch.where(dsm > 0.99995, 720.0, ds)).sum(0))
