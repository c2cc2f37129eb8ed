"""A transformer's input layer, written as model code: token embeddings
looked up by id (an indexed read of the table, never a copy of it), scaled
by sqrt(d) as Gemma does, then RMS-normalised in f32 and returned in the
table's dtype, with the norm as a second output."""
import math

import torch
import torch.nn.functional as F


def embed(table: "bf16[4096, 256]", ids: "i64[4, 128] uniform(0, 4096)", weight: "bf16[256]"):
    h = F.embedding(ids, table).float() * math.sqrt(table.shape[-1])
    rms = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    return (h * rms * weight.float()).to(table.dtype), rms.squeeze(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    out, rms = embed(torch.randn(4096, 256, dtype=torch.bfloat16), torch.randint(0, 4096, (4, 128)), torch.ones(256, dtype=torch.bfloat16))
    print(out.shape, rms.shape)
