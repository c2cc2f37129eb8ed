"""Max pooling: F.max_pool2d (with return_indices), torch.max_pool2d, and
aot_autograd's aten.max_pool2d_with_indices and its backward, against
PyTorch: kernels, strides, paddings, dilations and ceil_mode at odd sizes,
3-D and 4-D inputs, every dtype pooling takes, and windows holding NaN,
-inf, inf, -0 and ties (the index is the first point equal to the maximum,
or the last NaN, as PyTorch's CPU kernel gives it).  The comparison with
PyTorch takes no NaN in an output, so a maximum that may be NaN comes as
its isnan() and the output with its NaNs filled."""
import torch
import torch.nn.functional as F

aten = torch.ops.aten


def edges(x):
    """x with NaN, +inf, -inf and -0 among its values, and ties."""
    x = torch.where(x > 1.5, float("nan"), x)
    x = torch.where(x < -1.4, float("-inf"), x)
    x = torch.where((x > 0.9) & (x < 1.0), float("inf"), x)
    x = torch.where((x > -0.3) & (x < -0.1), -0.0, x)
    return torch.where((x > 0.2) & (x < 0.6), 0.5, x)


def seen(y):
    n = y.isnan()
    return n, torch.where(n, 7.0, y)


def pool_forms(x: "f32[2, 3, 9, 11]"):
    v0, i0 = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    v1, i1 = F.max_pool2d(x, (2, 3), dilation=(2, 1), ceil_mode=True, return_indices=True)
    v2, i2 = F.max_pool2d(x, (3, 1), stride=(1, 2), padding=(1, 0), return_indices=True)
    v3, i3 = F.max_pool2d(x, 3, 2, ceil_mode=True, return_indices=True)
    v4 = torch.max_pool2d(x[0], 2)
    v5 = F.max_pool2d(x, kernel_size=(5, 4), stride=3, padding=2, dilation=1)
    v6, i6 = F.max_pool2d(x, 2, 1, 1, 2, return_indices=True)
    return v0, i0, v1, i1, v2, i2, v3, i3, v4, v5, v6, i6


def pool_edges(x: "f32[2, 4, 10, 9]"):
    e = edges(x)
    v0, i0 = F.max_pool2d(e, 3, 2, 1, return_indices=True)
    v1, i1 = F.max_pool2d(e, 2, return_indices=True)
    v2, i2 = F.max_pool2d(e, (2, 4), (1, 3), (1, 2), (1, 2), True, True)
    return seen(v0) + (i0,) + seen(v1) + (i1,) + seen(v2) + (i2,)


def pool_dtypes(a: "bf16[3, 8, 9]", b: "i32[2, 7, 6]", c: "f64[1, 2, 9, 5]", d: "f16[2, 5, 5]", e: "i64[1, 1, 6, 7]"):
    out = []
    for t in (a, b, c, d, e):
        v, i = F.max_pool2d(t, 3, 2, 1, ceil_mode=True, return_indices=True)
        out += [v, i]
    return tuple(out)


def pool_fused(x: "f32[4, 6, 14, 14]", w: "f32[6, 1, 1]"):
    """ResNet's stem after its convolution: a scale and relu, the pooling,
    then a reduction over what it gives."""
    y = F.max_pool2d(torch.relu(x * w + 0.1), 3, 2, 1)
    return y, y.mean((2, 3))


def pool_aten(x: "f32[3, 10, 7]", g: "f32[3, 5, 4]", y: "bf16[2, 2, 8, 8]", h: "bf16[2, 2, 4, 4]"):
    v, i = aten.max_pool2d_with_indices.default(x, [2, 2], [2, 2], [0, 1], [1, 1], True)
    gx = aten.max_pool2d_with_indices_backward.default(g, x, [2, 2], [2, 2], [0, 1], [1, 1], True, i)
    # overlapping windows: a point that is the maximum of several gets their sum
    w, j = aten.max_pool2d_with_indices.default(y, [3, 3], [2, 2], [1, 1])
    gy = aten.max_pool2d_with_indices_backward.default(h, y, [3, 3], [2, 2], [1, 1], [1, 1], False, j)
    return v, i, gx, w, j, gy, aten.max_pool2d.default(x, [3, 2], [], [1, 0])
