# A result whose shape the data decides is refused when compiling, with the reason and what to write instead.
# expect: FILE:7:18: error: masked_select: the result's shape depends on the data; coil compiles for shapes known when compiling (keep the shape: torch.where(mask, x, 0), or sum the selected values)
import torch


def f(x: "f32[4, 5]"):
    return torch.masked_select(x, x > 0)
