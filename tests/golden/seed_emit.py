# coil: emit --target c
# The emitted C for a small seed-shaped case: accumulators are created per
# x tile before the r loops and finished after them.
def seed_small(g: "f32[2, 4, 3, 8]", q: "bf16[2, 3, 4, 8]", s: "f32[2, 3, 4] uniform(1, 2)"):
    return (g.permute(0, 2, 1, 3) * q.float() * (s.unsqueeze(-1) / 8 + 1e-6).rsqrt()).sum(dim=(0, 1, 2)).bfloat16()
