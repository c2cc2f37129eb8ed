# A column chain over bf16 data: log_softmax over the channels of an NCHW
# bf16 tensor (h and w merge into one axis of 4160 columns: tiles of 2048,
# the last of 64), computed in f32 and rounded back to bf16.
import torch


def channel_log_softmax(x: "bf16[24, 19, 8, 520]"):
    return torch.log_softmax(x.float(), dim=1).to(torch.bfloat16)
