"""Split reductions read as runs side by side (CSched.streams): a part's
chunks of 4096 points in four runs, each 64-point block taken from each run
in turn, each run with its own lanes and accumulator, and the chunks left
past the last whole set of four in one run.  The sizes give parts of 10 or
11 chunks (two of each run, and two or three left), so a run that reads
the wrong chunk, adds into the wrong accumulator or drops the rest shows."""
import torch


def full_sum_f32(x: "f32[700, 4096]"):
    return x.sum()


def sum_and_squares_bf16(x: "bf16[700, 4096] uniform(-2, 2)"):
    xf = x.float()
    return xf.sum(), (xf * xf).sum()


def long_rows_i32(x: "i32[3, 1048576] uniform(-1000, 1000)"):
    return x.sum(-1), x.amax(-1), x.amin(-1)


def long_rows_mean_bf16(x: "bf16[2, 1638400] uniform(0, 1)"):
    return x.float().mean(-1)


def ramp_f64(x: "f64[700, 4096] arange"):
    # Every value distinct, and the exact sum an integer (700 * 4096 points
    # 0 .. n-1: n (n - 1) / 2), so a chunk read twice or never is off by
    # thousands.
    return x.sum(), x.amax()
