"""Pointwise ops, each spelled as a method and as torch.NAME(x), at odd
sizes, with broadcasting between ranks and python scalars on either side."""
import torch


def unary_positive(x: "f32[3, 5, 7] uniform(1, 2)"):
    return (x.abs(), torch.neg(x), -x, torch.exp(x), x.log(), torch.sqrt(x),
            x.rsqrt(), torch.sigmoid(x), x.tanh(), x.square(), torch.reciprocal(x))


def unary_methods_torch_forms(x: "f32[5, 11] uniform(1, 2)"):
    return (torch.abs(x), x.neg(), x.exp(), torch.log(x), x.sqrt(), torch.rsqrt(x),
            x.sigmoid(), torch.tanh(x), torch.square(x), x.reciprocal(), x.relu())


def unary_signed(x: "f32[7, 11]"):
    a = x.abs() + torch.relu(x) - torch.sigmoid(-x) * x.tanh()
    return a, (-x).exp().sum(dim=1), torch.relu(x).amax(0), x.abs().amin(-1)


def pow_scalar(x: "f32[5, 11] uniform(0.5, 2)"):
    return x ** 2, x ** 3, x ** 0.5, x ** -1, x ** 2.5, x ** -0.5, (x ** 2).sum(1)


def binary_broadcast(a: "f32[3, 1, 7]", b: "f32[5, 1]", c: "f32[7]"):
    s = a + b
    d = a - c
    p = b * c
    q = a / (c.abs() + 1)
    return s, d, p, q, (s * c - b).sum(dim=(0, 2))


def scalar_operands(x: "f32[7, 3]"):
    return 2 - x, 1 / (x.abs() + 1), 3 * x, 0.5 + x, x - 1, x / 4, -x * 2


def clamp_ops(x: "f32[7, 11]"):
    return (x.clamp(-0.5, 0.5), torch.clamp(x, min=0.0), x.clamp(max=0.25),
            x.clamp_min(-1.0), torch.clamp_max(x, 1.0), torch.clamp(x, -1, 1).sum(0),
            x.clamp(min=-0.25, max=0.75).amax(dim=1))


def max_min_where(a: "f32[5, 7]", b: "f32[7]"):
    return (torch.maximum(a, b), torch.minimum(a, b), torch.where(a > b, a, b),
            torch.where(a < 0, 0.0, a), torch.where(a >= 0, a, -1),
            torch.where(b > 0, a, b).sum(-1))


def comparisons(a: "f32[3, 11]", b: "f32[3, 11]", c: "f32[11]"):
    return (a < b, a <= b, a > b, a >= b, a == a, a != b, a > 0, c < a, 0.5 >= a,
            (a > b).sum(1), (a == b).sum())


def bool_logic(a: "f32[5, 7]", b: "f32[7]"):
    pa = a > 0
    pb = b < 0.5
    both = pa & pb
    either = pa | pb
    neither = ~either
    return both, either, neither, ~pa, (pa & ~pb).sum(1), torch.where(neither, a, b)


def bool_inputs(m: "bool[5, 7]", n: "bool[7]", x: "f32[5, 7]"):
    return m & n, m | n, ~m, (m | ~n).sum(0), torch.where(m, x, 0.5), x * m


def where_method(a: "f32[5, 7]", b: "f32[7]"):
    # x.where(condition, other) keeps x (self) where the condition holds;
    # torch.where takes the condition first.
    return a.where(a > 0, b), a.where(b < 0, 1.5), torch.where(a > 0, b, a)
