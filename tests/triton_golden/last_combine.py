"""Split reductions whose parts the block that finishes last combines, in
one launch (the GPU model takes that where an x block's parts are at most
4 KiB; `--gpu-combine last|launch` forces either form): an epilogue that
loads a buffer the parts do not (its pointer needs a name of its own), an
arg-reduction's value and position pairs, one output (xnumel 1) with a
tail, several reductions of different dtypes, f64 variance sums, and an
x block that passes the end of x."""
import torch


def scaled_col_sum(x: "f32[4099, 200]", w: "f32[200]"):
    return x.sum(dim=0) * w + 1.0


def col_argmax(x: "f32[3001, 70]"):
    return x.argmax(dim=0)


def full_sum(x: "bf16[100003]"):
    return x.float().sum()


def col_stats(x: "bf16[2049, 96]"):
    return x.float().mean(dim=0), x.amax(dim=0), (x.float() * x.float()).sum(dim=0)


def col_var(x: "f32[20011, 40]"):
    return x.var(dim=0)
