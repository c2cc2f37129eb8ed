"""Every reduction form: methods and torch.NAME(x, ...), dim None, int,
negative int, tuple and list, keepdim, var/std with unbiased= and
correction=, prod over one dim, on odd sizes."""
import torch


def sum_forms(x: "f32[3, 5, 7]"):
    return (x.sum(), x.sum(0), x.sum(-1), x.sum(dim=(0, 2)), x.sum((1,), keepdim=True),
            torch.sum(x), torch.sum(x, 1), torch.sum(x, dim=[0, 1]),
            x.sum(dim=-2, keepdim=True), torch.sum(x, (0, 1, 2), keepdim=True))


def mean_forms(x: "f32[5, 3, 11]"):
    return (x.mean(), x.mean(1), x.mean(dim=-1, keepdim=True), torch.mean(x, (0, 2)),
            torch.mean(x), torch.mean(x, dim=0, keepdim=True), x.mean([-1, -3]))


def amax_amin_forms(x: "f32[7, 5, 3]"):
    return (x.amax(), torch.amax(x, dim=1), x.amin(dim=(0, 2), keepdim=True),
            torch.amin(x, -1), x.amax(-2, keepdim=True), torch.amin(x), x.amax((0, 1)))


def prod_forms(x: "f32[5, 7, 3] uniform(0.5, 1.5)"):
    return x.prod(0), x.prod(dim=-1, keepdim=True), torch.prod(x, 1), torch.prod(x, dim=2)


def var_std_forms(x: "f32[5, 7, 11]"):
    return (x.var(0), x.var(dim=1, unbiased=False), x.var((0, 2), correction=0),
            torch.var(x, 1, keepdim=True), x.var(), x.std(), x.std(dim=-1, unbiased=True),
            torch.std(x, dim=(1, 2), correction=1), x.var(-1, correction=2),
            x.std(unbiased=False), torch.std(x, 0, keepdim=True, unbiased=False))


def reductions_bf16(x: "bf16[11, 7]"):
    return x.sum(0), x.mean(1), x.amax(0), x.amin(), x.float().var(1), x.prod(1), x.std(0)


def reductions_f64(x: "f64[7, 3, 5]"):
    return x.sum((0, 2)), x.mean(), x.var(1), x.std(dim=0, correction=0), x.prod(2), x.amax(1)


def chained_reductions(x: "f32[3, 5, 7, 11]"):
    # a reduction of a reduction, and one result broadcast back into another
    m = x.amax(dim=(1, 3), keepdim=True)
    s = torch.exp(x - m).sum(dim=(1, 3))
    return s, (x - x.mean(-1, keepdim=True)).square().sum(dim=(0, 2)), s.amax()


def keepdim_broadcast(x: "f32[5, 11, 3]"):
    c = x - x.mean(dim=(0, 2), keepdim=True)
    return c / x.std(dim=(0, 2), keepdim=True), c.abs().amax(1, keepdim=True)


def softmax_family(x: "f32[6, 5, 7]", y: "bf16[9, 40]", i: "i32[4, 6]"):
    # softmax/log_softmax compute bf16 in f32 and round once; logsumexp goes op
    # by op in the input's dtype, ints in f32, and a slice of all -inf gives
    # -inf (PyTorch replaces an infinite max by 0), not NaN
    ninf = x * 0 - torch.inf
    return (torch.softmax(x, dim=1), x.log_softmax(-1), torch.logsumexp(x, dim=(0, 2)), y.softmax(-1),
            y.logsumexp(1, keepdim=True), torch.log_softmax(y, 0, dtype=torch.float32), i.logsumexp(0),
            ninf.logsumexp(-1), torch.where(x > 0, x, ninf).logsumexp(0) + torch.pi)
