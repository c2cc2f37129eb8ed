# Fusion kept its kernels' dependencies transitive only as they were built:
# a root that joined kernel A made A wait for more, but a kernel C that
# waited for A (through D) did not learn it, so a later root reading C
# joined A and closed a cycle (src/fuse.c:236: assert: pick >= 0, from
# recompute.c's second round).  Found by `coil fuzz --seed 1` (case 98) once
# arg-reductions joined the generator.
import torch


def fuzz98(in0: "i64[]"):
    t1 = in0.unsqueeze(0).expand(2)
    t2 = t1.to(torch.float64)
    t3 = t2.mean(dim=(0,), keepdim=True)
    t4 = t1 / (t1.abs() + 1)
    t5 = torch.fmod(t1, 5)
    t6 = t5.to(torch.float64)
    t7 = t4 + t3
    t8 = torch.argmin((t6 * 2).floor(), dim=-1)
    return t7, t6, t5, t8
