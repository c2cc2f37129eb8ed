# The Python around the ops, as model code writes it: augmented assignment,
# helpers of the file (inlined), module constants, if/for/while on values
# known when compiling, tuple unpacking, defaults.  Every function is valid
# PyTorch: ops.sh checks it against coil's reference and against PyTorch.
import math

import torch
import torch.nn.functional as F
import os, sys; import math as pymath  # noqa: E401,E702 - several imports on a line, as scripts write them

EPS = 1e-6
DIMS = (0, 1, 2)
SCALE = 1 / pymath.sqrt(128)
LAYERS = 3
GATES = ("silu", "gelu", "relu")
HALF: float = 0.5
DEVICE = torch.device("cpu")  # not a compile-time value; unused by the functions


def rms(x, eps=EPS, *, dim=-1):
    """RMS norm over dim, in f32."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim, keepdim=True) + eps)).to(x.dtype)


def gate(x, kind="silu"):
    if kind == "silu":
        return F.silu(x)
    elif kind == "gelu":
        return F.gelu(x, approximate="tanh")
    return F.relu(x)


def halve_until(x, n):
    # recursion that ends: inlined n levels deep
    if n == 0:
        return x
    return halve_until(x * 0.5, n - 1)


def split_half(x):
    d = x.shape[-1] // 2
    return x[..., :d], x[..., d:]


def aug_assign(x: "f32[4, 16]", y: "f32[4, 16]", n: "i32[4, 16]", b: "bf16[4, 16]"):
    x += 1.0
    x -= y
    x *= 2
    x /= 3
    x **= 2
    n += 3
    n *= 2
    k = 7
    k //= 2
    k %= 2
    k **= 3
    k += 1
    m = 5
    m &= 6
    m |= 1
    m ^= 2
    b += y  # in place keeps bf16: computed in f32, rounded once
    f = 1.5
    f *= k
    s = x.shape
    s += (1,)
    return x, n * k + m, b, x * f + len(s)


def aug_assign_clone(x: "f32[8]"):
    y = x.clone()
    y += 1.0
    return x, y


def helpers(x: "f32[4, 32]", w: "f32[32]"):
    h = rms(x) * w
    g = rms(x, 1e-5, dim=0)
    lo, hi = split_half(h)
    return gate(lo) * hi, g, halve_until(x, 3), gate(x, kind="gelu")


def module_constants(x: "f32[2, 3, 4, 8]"):
    y = x * SCALE + EPS
    z = x.sum(dim=DIMS) * HALF
    EPS_LOCAL = EPS * 10
    return y, z, x.amax(DIMS[1:]) + EPS_LOCAL


def shadow_constant(x: "f32[8]"):
    SCALE = 3.0  # the function's own assignment shadows the module's
    return x * SCALE


def branches(x: "f32[4, 8]"):
    if x.dim() == 2:
        y = x * 2
    elif x.dim() == 3:
        y = x * 3
    else:
        y = x
    if x.dtype == torch.bfloat16 or x.shape[0] > 100:
        y = y.float()
    if not (x.shape[-1] % 2):
        y = y + 1
    z = y if x.shape[1] == 8 else -y
    w = x.shape[0] > 1 and x.shape[1]  # Python's and gives an operand
    pass
    return y, z * w


def branch_return(x: "f32[6, 10]"):
    for d in range(x.dim()):
        if x.shape[d] % 5 == 0:
            return x.sum(d)
    return x


def loops(x: "f32[3, 16]", y: "f32[3, 16]"):
    acc = x
    for i in range(3):
        acc = acc + i * y
    for i in range(10, 4, -3):
        acc = acc - i
    for i in range(1, 4, 2):
        acc = acc * i
    for k, t in enumerate((x, y), start=1):
        acc = acc + k * t
    for a, (b, c) in zip([1, 2], [(3, 4), (5, 6)]):
        acc = acc + a * b - c
    for kind in GATES:
        acc = acc + gate(x, kind)
    for t in reversed([x, y]):
        acc = acc * 0.5 + t
    else:
        acc = acc + 1
    n = 1
    while n < 100:
        n *= 3
    while True:
        n -= 1
        if n % 7 == 0:
            break
        if n % 2:
            continue
        acc = acc + 0.01
    return acc, acc * n


def loop_of_layers(x: "f32[4, 64]", w0: "f32[64]", w1: "f32[64]", w2: "f32[64]"):
    ws = [w0, w1, w2]
    h = x
    for layer in range(LAYERS):
        h = h + rms(h) * ws[layer]
    outs = ()
    for w in ws:
        outs += (h * w,)
    return outs


def unpacking(x: "f32[4, 6]"):
    a, (b, c) = x.shape[0], (x.shape[1], 2)
    (d, e), = ((x.sum(0), x.sum(1)),)
    f, g = split_half(x)
    rows, cols = x.shape
    first, _ = (1, 2, 3)[:2] if False else (1, 2)
    return d * a + b, e * c, f + g, x.reshape(cols, rows) * first


def returns_list(x: "f32[3, 5]"):
    parts = [x, x * 2]
    parts = parts + [x * 3]
    return parts if len(parts) == 3 else parts[0]


def defaults(x: "f32[4, 8]", eps=1e-5, scale=2.0, dims=(1,), mode="tanh", bias=None):
    y = x / (x.pow(2).mean(dims, keepdim=True) + eps).sqrt() * scale
    if bias is not None:
        y = y + bias
    return F.gelu(y, approximate=mode)


def kwonly_defaults(x: "f32[4, 8]", *, temperature=0.7):
    return torch.softmax(x / temperature, dim=-1)


def asserts_and_checks(x: "f32[4, 8]", m: "bool[4, 8]"):
    """Docstrings, asserts and isinstance on values known when compiling."""
    assert x.dim() == 2, "expected a matrix"
    assert x.shape == m.shape
    assert isinstance(x, torch.Tensor) and not isinstance(x.shape[0], float)
    assert len(x) == 4 and 4 in x.shape and 5 not in x.shape
    assert x.dtype is not torch.float16 and m.dtype == torch.bool
    return torch.where(m, x, 0.0) if isinstance(x.shape, tuple) else x
