# coil: dump -d fuse,schedule
# An embedding's gradient as Inductor's decompositions give it (Llama's
# backward): the gradient of an RMSNorm summed in at the token ids.  The
# sum at indices is an indexed store: one kernel writes the zeros, the
# next runs over the [2, 16, 64] values, computing each once (the norm's
# backward fused in, its row statistics from buffers), and adds it at
# out0[64 * ids + x] in token order: 2048 adds, not the 1000 x 2048
# selections of a dense sum (Llama's step took 1 s with those before they
# were kept in a buffer).  The token axis is the store's collision axis:
# the C schedule runs the kernel as one task and vectorises over the 64
# columns, never over the tokens.
import torch

aten = torch.ops.aten


def embedding_grad(g: "f32[2, 16, 64]", w: "f32[64]", h: "f32[2, 16, 64]", ids: "i64[2, 16] uniform(0, 1000)"):
    r = torch.rsqrt((h * h).mean(-1, keepdim=True) + 1e-6)
    vals = g * w * r - h * (g * w * h).mean(-1, keepdim=True) * r * r * r
    mask = (ids != -1).unsqueeze(-1)
    return aten._unsafe_masked_index_put_accumulate.default(torch.zeros(1000, 64), mask, [ids], vals)
