"""Views (permute, transpose, t, unsqueeze, squeeze, view, reshape with -1,
expand, expand_as, flatten, contiguous), negative dims, and shape arithmetic
through x.shape[i], x.size(i) and x.ndim.  Views are returned as outputs too,
so coil must materialize them in the logical order."""
import torch


def permute_transpose(x: "f32[3, 5, 7]"):
    return (x.permute(2, 0, 1), x.permute(-1, -3, -2), x.transpose(0, 2), x.transpose(-1, 1),
            x.permute(1, 2, 0).contiguous(), x.contiguous().transpose(0, 1))


def t_2d(x: "f32[5, 11]", v: "f32[7]"):
    return x.t(), x.t().sum(0), x.t() * 2 + 1, v.t()


def unsqueeze_squeeze(x: "f32[3, 1, 7]", y: "f32[5]"):
    return (x.squeeze(1), x.squeeze(), x.squeeze(-2), x.unsqueeze(0), x.unsqueeze(-1),
            y.unsqueeze(1) * y.unsqueeze(0), x.squeeze(1).sum(0))


def view_reshape(x: "f32[3, 5, 7]"):
    return (x.view(15, 7), x.view(-1), x.reshape(3, -1), x.view(x.shape[0], -1),
            x.reshape(x.size(0) * x.size(1), x.size(2)), x.view(7, 15),
            x.reshape((5, 21)), x.reshape([-1, 3]), x.view(3, 5, 7, 1).sum(-1))


def reshape_after_permute(x: "f32[3, 5, 7]"):
    p = x.permute(2, 0, 1)
    return p.reshape(7, 15), p.reshape(-1), p.reshape(7, 3, 5).sum(1), x.transpose(0, 1).reshape(5, 21)


def flatten_forms(x: "f32[3, 5, 7, 2]"):
    return (x.flatten(), x.flatten(1), x.flatten(0, 1), x.flatten(-2), x.flatten(start_dim=1, end_dim=2),
            x.flatten(2).amax(-1))


def expand_forms(x: "f32[3, 1, 7]", y: "f32[5, 1]", z: "f32[3, 5, 7]"):
    return (x.expand(3, 5, 7), x.expand(-1, 5, -1), y.expand(5, 7), x.expand_as(z),
            y.expand(3, 5, 7) + z, x.expand(2, 3, 5, 7).sum(0), y.expand_as(z).sum())


def shape_arithmetic(x: "f32[6, 5, 7]"):
    n = x.shape[0] * x.shape[1]
    k = x.size(-1)
    d = x.ndim
    return (x.view(n, k).sum(0) / n, x.reshape(x.shape[0] // 2, -1).mean(1), x.sum(d - 1) * d,
            x.view(x.size(0), x.size(1) * x.size(2)) / (k + 1), x.sum(dim=x.ndim - 2) - x.shape[2])


def negative_dims(x: "f32[3, 5, 7, 11]"):
    return (x.sum(-1), x.amax(-2), x.mean((-1, -3)), x.transpose(-1, -2).amin(-1),
            x.permute(0, -1, 1, -2).sum((-1, -2)), x.unsqueeze(-1).squeeze(-1).var(-4))


def views_of_views(x: "f32[2, 3, 5, 7]"):
    y = x.permute(3, 1, 0, 2).reshape(7, 3, 10).transpose(0, 2).unsqueeze(1)
    return y, y.sum(dim=(0, 3)), y.flatten(2).amax(0)


def torch_view_functions(x: "f32[3, 5, 7]", y: "f32[5, 1]"):
    # the torch.NAME(x, ...) spellings of the view methods
    return (torch.permute(x, (2, 1, 0)), torch.transpose(x, 0, 1), torch.t(y),
            torch.unsqueeze(x, 0), torch.squeeze(y, 1), torch.reshape(x, (5, 21)),
            torch.flatten(x, 1, 2))


def narrow_boxes(x: "f32[6, 5, 7]", y: "bf16[9, 4]"):
    # narrow is a box view: loads at an offset, reductions over part of an
    # axis, a negative start, a box of a permuted view, and narrow of narrow
    a = x.narrow(2, 3, 4)
    b = torch.narrow(x, 0, -4, 3).sum(dim=(0, 2))
    c = x.permute(2, 0, 1).narrow(1, 1, 4).narrow(2, 2, 2).amax(-1)
    d = y.narrow(0, 8, 1).float() + y.narrow(1, 0, 1).float().var(0, keepdim=True)
    return a, b, c, d, x.narrow(1, 0, 0).sum(1)


def basic_indexing(x: "f32[6, 5, 7]", y: "bf16[9, 4]"):
    # x[...] indexing is a box view reshaped: ints select, slices clamp as
    # Python's do, None adds a dim, ... stands for the dims not named
    a = x[1:4, :, 2]
    b = x[..., -3:].sum(-1)
    c = x[None, 2, ::1, 1:-1].amax(-1)
    d = y[3] + y[-1:, None, :].float()
    e = x[:, 0:0].sum(1)
    g = x[-2][1:][:, 3:100]
    return a, b, c, d, e, g, x[...], x[:, x.shape[1:][0] - 1], x[:, :, None, -7:2].var(dim=(0, 3))
