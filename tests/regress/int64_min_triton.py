# The Triton printers wrote amax's identity for int64 (and int64 constants
# equal to INT64_MIN) as -9223372036854775808: 2^63 is no int64 literal, so
# coil's executor rejected every module with an int64 amax (coil fuzz
# --target all, seed 3101: 15 of 1988 cases).  Now (-9223372036854775807 - 1).
import torch


def int64_amax(in0: "i32[7, 11, 16, 1]", y: "i64[5, 9]"):
    t4 = torch.sum(in0.permute(3, 2, 1, 0), dim=(0, 2), keepdim=False)
    t7 = torch.amax((t4 * t4).unsqueeze(0).expand(3, 16, 7), dim=(0,), keepdim=False)
    return t7.view(2, 8, 7), y.amax(1), torch.where(y > 0, y, -9223372036854775807 - 1).amax(0)
